// A system test in the style of the PTO comm ST kernels: every rank but 0 adds 1 to rank
// 0's counter kIters times; rank 0 waits until the counter reaches the threshold the host
// computed from the communicator's size, (n_ranks - 1) * kIters. The kernel takes the
// threshold as a plain int: what it is worth comes from the host function below.
#include "../st_common/st_harness.h"

__global__ AICORE void AtomicThresholdKernel(__gm__ int32_t *counter, int threshold, int iters,
                                             __gm__ CommDeviceContext *ctx)
{
    int me = static_cast<int>(ctx->rankId);
    if (me != 0) {
        pto::comm::Signal root(RemoteOf(ctx, counter, 0));
        for (int i = 0; i < iters; ++i) {
            pto::comm::TNOTIFY(root, 1, pto::comm::NotifyOp::AtomicAdd);
        }
    } else {
        pto::comm::Signal mine(counter);
        pto::comm::TWAIT(mine, threshold, pto::comm::WaitCmp::GE);
    }
    pipe_barrier(PIPE_ALL);
}

bool RunAtomicThreshold(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *counter)
{
    Harness h;
    if (!h.Setup(rank_id, n_ranks, root)) {
        return false;
    }
    constexpr int kIters = 3;
    const int threshold = (n_ranks - 1) * kIters;
    AtomicThresholdKernel<<<1, nullptr, h.stream>>>(counter, threshold, kIters, h.deviceCtx);
    return aclrtSynchronizeStream(h.stream) == ACL_SUCCESS;
}

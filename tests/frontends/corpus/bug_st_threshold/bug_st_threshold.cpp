// BUG: the host computes the arrival threshold as n_ranks * kIters, but rank 0 does not
// add to its own counter: rank 0 waits for kIters arrivals that never come (deadlock).
// The kernel is right; the bug is in the host code that launches it.
#include "../st_common/st_harness.h"

__global__ AICORE void ThresholdKernel(__gm__ int32_t *counter, int threshold, int iters,
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
}

bool RunThreshold(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *counter)
{
    Harness h;
    if (!h.Setup(rank_id, n_ranks, root)) {
        return false;
    }
    constexpr int kIters = 2;
    const int threshold = n_ranks * kIters;     // should be (n_ranks - 1) * kIters
    ThresholdKernel<<<1, nullptr, h.stream>>>(counter, threshold, kIters, h.deviceCtx);
    return aclrtSynchronizeStream(h.stream) == ACL_SUCCESS;
}

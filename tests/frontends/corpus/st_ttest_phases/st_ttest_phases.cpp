// A system test in the style of the PTO comm ST kernels: two launches, phase 0 then
// phase 1, with a host barrier between them. In phase 0 rank 0 Sets 42 into rank 1's
// flag; in phase 1 rank 1 polls its flag with TTEST until it reads 42, and records the
// number of polls. The barrier is what makes the value be there by phase 1.
#include "../st_common/st_harness.h"

__global__ AICORE void PollKernel(__gm__ int32_t *flag, __gm__ int32_t *polls, __gm__ CommDeviceContext *ctx, int phase)
{
    int me = static_cast<int>(ctx->rankId);
    if (phase == 0 && me == 0) {
        pto::comm::Signal target(RemoteOf(ctx, flag, 1));
        pto::comm::TNOTIFY(target, 42, pto::comm::NotifyOp::Set);
        pipe_barrier(PIPE_ALL);
    }
    if (phase == 1 && me == 1) {
        pto::comm::Signal local(flag);
        int n = 1;
        while (!pto::comm::TTEST(local, 42, pto::comm::WaitCmp::EQ)) {
            ++n;
        }
        *polls = n;
    }
    pipe_barrier(PIPE_ALL);
}

bool RunPoll(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *flag, int32_t *polls)
{
    Harness h;
    if (!h.Setup(rank_id, n_ranks, root)) {
        return false;
    }
    PollKernel<<<1, nullptr, h.stream>>>(flag, polls, h.deviceCtx, 0);
    HostBarrier(h.comm, h.stream);
    PollKernel<<<1, nullptr, h.stream>>>(flag, polls, h.deviceCtx, 1);
    aclrtSynchronizeStream(h.stream);
    HostBarrier(h.comm, h.stream);
    return true;
}

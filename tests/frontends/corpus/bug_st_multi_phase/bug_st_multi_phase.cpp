// BUG: the phased test of st_multi_phase without the host barrier between the launches.
// Rank 0's host can run phase 1 before rank 1 has seen phase 0's value: rank 0 Sets 3
// over the 1 that rank 1's EQ wait is looking for, and rank 1 waits forever.
#include "../st_common/st_harness.h"

__global__ AICORE void PhaseKernel(__gm__ int32_t *sig, __gm__ CommDeviceContext *ctx, int phase)
{
    int me = static_cast<int>(ctx->rankId);
    if (me == 0) {
        pto::comm::Signal peer(RemoteOf(ctx, sig, 1));
        pto::comm::TNOTIFY(peer, 2 * phase + 1, pto::comm::NotifyOp::Set);
    } else if (me == 1) {
        pto::comm::Signal mine(sig);
        if (phase == 1) {
            pto::comm::TWAIT(mine, 2 * phase + 1, pto::comm::WaitCmp::GE);
        } else {
            pto::comm::TWAIT(mine, 2 * phase + 1, pto::comm::WaitCmp::EQ);
        }
    }
    pipe_barrier(PIPE_ALL);
}

bool RunPhases(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *sig)
{
    Harness h;
    if (!h.Setup(rank_id, n_ranks, root)) {
        return false;
    }
    HostBarrier(h.comm, h.stream);
    for (int phase = 0; phase < 3; ++phase) {
        PhaseKernel<<<1, nullptr, h.stream>>>(sig, h.deviceCtx, phase);
        aclrtSynchronizeStream(h.stream);
    }
    return true;
}

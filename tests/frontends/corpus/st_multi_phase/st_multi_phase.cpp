// A system test in the style of the PTO comm ST kernels: the host launches the kernel
// three times, one phase per launch, with a host barrier after each. In phase p rank 0
// Sets rank 1's signal to 2p + 1 and rank 1 waits for it: EQ in phases 0 and 2, GE in
// phase 1. The barrier keeps rank 0 from writing the next phase's value before rank 1 has
// seen this one.
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
        HostBarrier(h.comm, h.stream);
    }
    return true;
}

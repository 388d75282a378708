// A system test in the style of the PTO comm ST kernels: every rank Sets its own slot of
// rank 0's scoreboard to 1000 + its rank, and rank 0 waits on each slot in turn. The slot
// count is the kernel's nranks argument, which the host passes from the communicator.
#include "../st_common/st_harness.h"

__global__ AICORE void ScoreboardKernel(__gm__ int32_t *board, __gm__ CommDeviceContext *ctx, int nranks)
{
    int me = static_cast<int>(ctx->rankId);
    __gm__ int32_t *slot = RemoteOf(ctx, board, 0) + me;
    pto::comm::Signal mine(slot);
    pto::comm::TNOTIFY(mine, 1000 + me, pto::comm::NotifyOp::Set);
    if (me == 0) {
        for (int r = 0; r < nranks; ++r) {
            pto::comm::Signal cell(board + r);
            pto::comm::TWAIT(cell, 1000 + r, pto::comm::WaitCmp::EQ);
        }
    }
    pipe_barrier(PIPE_ALL);
}

bool RunScoreboard(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *board)
{
    Harness h;
    if (!h.Setup(rank_id, n_ranks, root)) {
        return false;
    }
    ScoreboardKernel<<<1, nullptr, h.stream>>>(board, h.deviceCtx, n_ranks);
    return aclrtSynchronizeStream(h.stream) == ACL_SUCCESS;
}

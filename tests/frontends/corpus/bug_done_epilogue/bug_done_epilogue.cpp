// BUG: a launch-end barrier on rank 0's `done` counter whose epilogue gives the counter
// back by rankSize - 1, as if rank 0 did not count itself. One arrival is left behind
// after every launch: the second launch's wait passes before the peers arrive, and the
// counter is not zero when the hosts finish (check clean_exit).
#include <pto/comm/pto_comm_inst.hpp>

namespace {

AICORE inline __gm__ int32_t *OnRank(__gm__ uint64_t *win, __gm__ int32_t *p, int32_t me, int32_t pe)
{
    uint64_t offset = (uint64_t)p - win[me];
    return (__gm__ int32_t *)(win[pe] + offset);
}

}  // namespace

__global__ AICORE void bug_done_epilogue(__gm__ int32_t *done, __gm__ uint64_t *windowsIn,
                                         int32_t rankId, int32_t rankSize)
{
    pto::comm::Signal root(OnRank(windowsIn, done, rankId, 0));
    pto::comm::TNOTIFY(root, 1, pto::comm::NotifyOp::AtomicAdd);
    if (rankId == 0) {
        pto::comm::Signal mine(done);
        pto::comm::TWAIT(mine, rankSize, pto::comm::WaitCmp::GE);
        pto::comm::TNOTIFY(mine, -(rankSize - 1), pto::comm::NotifyOp::AtomicAdd);  // should be -rankSize
    }
}

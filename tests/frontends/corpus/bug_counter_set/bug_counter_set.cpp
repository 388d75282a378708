// BUG: a counter barrier whose arrivals use NotifyOp::Set instead of AtomicAdd. The
// peers' Sets of 1 collapse into one value, so the wait for nranks - 1 arrivals hangs
// with three or more ranks.
// sigproof: ranks = 3
#include <pto/comm/pto_comm_inst.hpp>

namespace kernels {

AICORE inline __gm__ int32_t *Remote(__gm__ uint64_t *win, __gm__ int32_t *p, int me, int pe)
{
    return (__gm__ int32_t *)(win[pe] + ((uint64_t)p - win[me]));
}

__global__ AICORE void bug_counter_set(__gm__ int32_t *count, __gm__ uint64_t *windowsIn,
                                       int rank, int nranks)
{
    for (int p = 0; p < nranks; ++p) {
        if (p != rank) {
            comm::Signal c(Remote(windowsIn, count, rank, p));
            comm::TNOTIFY(c, 1, comm::NotifyOp::Set);   // should be AtomicAdd
        }
    }
    comm::Signal mine(count);
    comm::TWAIT(mine, nranks - 1, comm::WaitCmp::GE);
}

}  // namespace kernels

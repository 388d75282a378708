// Neighbourhood exchange over a small local table of peers: each rank notifies its left
// and right neighbour on a ring through the symmetric window, then waits until both
// have notified it. The peers live in `int peers[2]`, indexed by the loop variable.
#include <pto/comm/pto_comm_inst.hpp>

__global__ AICORE void peer_table(__gm__ int32_t *arrived, __gm__ uint64_t *windowsIn)
{
    int me = GetRank();
    int n = GetRankSize();
    int peers[2] = {(me + n - 1) % n, (me + 1) % n};   // left, right
    for (int k = 0; k < 2; ++k) {
        int pe = peers[k];
        __gm__ int32_t *slot = arrived + k;
        __gm__ int32_t *remote = (__gm__ int32_t *)(windowsIn[pe] + ((uint64_t)slot - windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(remote), 1, pto::comm::NotifyOp::AtomicAdd);
    }
    for (int k = 0; k < 2; ++k) {
        pto::comm::TWAIT(pto::comm::Signal(arrived + k), 1, pto::comm::WaitCmp::GE);
    }
}

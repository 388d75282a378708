// BUG (found by exploring the data): a rank hands a token to a peer read from a routing table in global memory and waits
// for a token itself. The config bounds the table's entries to the ranks; the skeleton
// then explores every peer the table could hold, and finds the schedule in which two
// ranks pick the same target and a third rank waits forever.
#include <pto/comm/pto_comm_inst.hpp>

__global__ AICORE void bug_runtime_peer_any(__gm__ int32_t *token, __gm__ int32_t *route,
                                        __gm__ uint64_t *windowsIn)
{
    int me = GetRank();
    int peer = route[me];
    __gm__ int32_t *dst = (__gm__ int32_t *)(windowsIn[peer] + ((uint64_t)token - windowsIn[me]));
    pto::comm::TNOTIFY(pto::comm::Signal(dst), 1, pto::comm::NotifyOp::AtomicAdd);
    pto::comm::TWAIT(pto::comm::Signal(token), 1, pto::comm::WaitCmp::GE);
}

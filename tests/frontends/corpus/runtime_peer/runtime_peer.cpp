// A rank hands a token to a peer taken from a work queue in global memory, then waits
// for its own token. Which peer is data: the code cannot tell, so the skeleton needs the
// config (here: the queue holds the ring successor) or it makes the peer a param.
#include <pto/comm/pto_comm_inst.hpp>

__global__ AICORE void runtime_peer(__gm__ int32_t *token, __gm__ int32_t *ready_queue,
                                    __gm__ uint64_t *windowsIn, int rank, int head)
{
    int peer = ready_queue[head];
    __gm__ int32_t *dst = (__gm__ int32_t *)(windowsIn[peer] + ((uint64_t)token - windowsIn[rank]));
    pto::comm::TNOTIFY(pto::comm::Signal(dst), 1, pto::comm::NotifyOp::AtomicAdd);
    pto::comm::TWAIT(pto::comm::Signal(token), 1, pto::comm::WaitCmp::GE);
}

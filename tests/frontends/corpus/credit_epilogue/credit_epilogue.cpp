// Credit-based flow control between rank 0 (producer) and rank 1 (consumer), with an
// AtomicAdd(-K) epilogue that returns every counter to zero, launched twice without a
// host reset. K messages, W buffer slots (template parameters with defaults).
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

template <int K = 3, int W = 2>
__global__ AICORE void credit_epilogue(__gm__ int32_t *data, __gm__ int32_t *credit,
                                       __gm__ uint64_t *windows, int32_t rank)
{
    if (rank == 0) {
        for (int i = 0; i < K; ++i) {
            if (i >= W) {
                comm::TWAIT(comm::Signal(credit), i - W + 1, comm::WaitCmp::GE);
            }
            // TPUT message i into slot i % W on rank 1
            pipe_barrier(PIPE_ALL);
            __gm__ int32_t *peer = (__gm__ int32_t *)(windows[1] + ((uint64_t)data - windows[rank]));
            comm::TNOTIFY(comm::Signal(peer), 1, comm::NotifyOp::AtomicAdd);
        }
        comm::TWAIT(comm::Signal(credit), K, comm::WaitCmp::GE);
        comm::TNOTIFY(comm::Signal(credit), -K, comm::NotifyOp::AtomicAdd);
    } else {
        for (int i = 0; i < K; ++i) {
            comm::TWAIT(comm::Signal(data), i + 1, comm::WaitCmp::GE);
            __gm__ int32_t *back = (__gm__ int32_t *)(windows[0] + ((uint64_t)credit - windows[rank]));
            comm::TNOTIFY(comm::Signal(back), 1, comm::NotifyOp::AtomicAdd);
        }
        comm::TNOTIFY(comm::Signal(data), -K, comm::NotifyOp::AtomicAdd);
    }
}

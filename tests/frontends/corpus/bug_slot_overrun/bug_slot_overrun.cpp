// BUG: a block-level arrival table on rank 0 sized for one slot per rank (kMaxRanks),
// while every block of every rank writes its own slot rank * blocks + block. With two
// blocks per rank the blocks of the last rank write past the end of the table.
// sigproof: ranks = 2
// sigproof: blocks = 2
// sigproof: signals.arrive = "kMaxRanks"
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

constexpr int32_t kMaxRanks = 2;

__global__ AICORE void bug_slot_overrun(__gm__ int32_t *arrive, __gm__ uint64_t *windowsIn,
                                        int32_t rank, int32_t rankSize)
{
    const int32_t blk = get_block_idx();
    const int32_t nblk = get_block_num();
    const int32_t slot = rank * nblk + blk;
    __gm__ int32_t *mine = arrive + slot;
    __gm__ int32_t *root = (__gm__ int32_t *)(windowsIn[0] + ((uint64_t)mine - windowsIn[rank]));
    comm::TNOTIFY(comm::Signal(root), 1, comm::NotifyOp::Set);
    if (rank == 0 && blk == 0) {
        for (int32_t s = 0; s < rankSize * nblk; ++s) {
            comm::TWAIT(comm::Signal(arrive + s), 1, comm::WaitCmp::EQ);
        }
    }
}

// Two-level barrier, called PHASES times per launch: the blocks of a rank meet on an
// intra-rank counter, block 0 then meets the other ranks' block 0 through cross-rank
// cells, and releases its blocks with a flag. Every cell is indexed by the phase, so a
// second call never sees the first call's values.
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

constexpr int PHASES = 2;
constexpr int MAX_RANKS = 8;

struct ShapeInfo {
    int32_t ep;      // expert-parallel size = rank count
    int32_t epRank;
};

__global__ AICORE void two_level_barrier(__gm__ int32_t *intra, __gm__ int32_t *cross,
                                         __gm__ int32_t *flag, __gm__ uint64_t *windowsIn,
                                         ShapeInfo shape)
{
    const int32_t me = shape.epRank;
    const int32_t blk = get_block_idx();
    for (int phase = 0; phase < PHASES; ++phase) {
        if (blk != 0) {
            comm::Signal arrive(intra + phase);
            comm::TNOTIFY(arrive, 1, comm::NotifyOp::AtomicAdd);
            comm::Signal release(flag + phase);
            comm::TWAIT(release, 1, comm::WaitCmp::GE);
            continue;
        }
        comm::Signal blocks(intra + phase);
        comm::TWAIT(blocks, get_block_num() - 1, comm::WaitCmp::GE);
        for (int p = 0; p < shape.ep; ++p) {
            if (p != me) {
                __gm__ int32_t *cell = cross + phase * MAX_RANKS + me;
                __gm__ int32_t *remote =
                    (__gm__ int32_t *)(windowsIn[p] + ((uint64_t)cell - windowsIn[me]));
                comm::Signal c(remote);
                comm::TNOTIFY(c, 1, comm::NotifyOp::AtomicAdd);
            }
        }
        for (int p = 0; p < shape.ep; ++p) {
            if (p != me) {
                comm::Signal c(cross + phase * MAX_RANKS + p);
                comm::TWAIT(c, 1, comm::WaitCmp::GE);
            }
        }
        comm::Signal release(flag + phase);
        comm::TNOTIFY(release, 1, comm::NotifyOp::Set);
    }
}

// Per-tile ready flags in a padded 2-D layout over one flat window: row r belongs to
// producer rank r and starts at r * kRowStride; its kTiles flags are contiguous, the rest
// of the row is padding (one cache line per producer). Every rank sets its flags on rank
// 0; rank 0 waits for all of them with one Signal2D wait.
#include <pto/comm/pto_comm_inst.hpp>

constexpr int kRanks = 3;
constexpr int kTiles = 2;
constexpr int kRowStride = 16;   // int32 elements: 64 bytes per row

__global__ AICORE void signal2d_tiles(__gm__ int32_t *flags, __gm__ uint64_t *windowsIn)
{
    int me = GetRank();
    for (int t = 0; t < kTiles; ++t) {
        __gm__ int32_t *mine = flags + me * kRowStride + t;
        __gm__ int32_t *on0 = (__gm__ int32_t *)(windowsIn[0] + ((uint64_t)mine - windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(on0), 1, pto::comm::NotifyOp::Set);
    }
    if (me == 0) {
        pto::comm::Signal2D<kRanks, kTiles> all(flags, kRowStride);
        pto::comm::TWAIT(all, 1, pto::comm::WaitCmp::EQ);
    }
}

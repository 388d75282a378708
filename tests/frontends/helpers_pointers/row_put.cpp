// two rows of halves per rank; each rank puts its row into row 1 of its successor
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

constexpr int kRowElems = 64;

struct HcclDeviceContext {
    int32_t rankId;
    int32_t rankNum;
    uint64_t windowsIn[8];
};

using RowShape = pto::Shape<1, 1, 1, 1, kRowElems>;
using RowStride = pto::Stride<kRowElems, kRowElems, kRowElems, kRowElems, 1>;
using RowGlobal = pto::GlobalTensor<half, RowShape, RowStride>;
using RowTile = pto::Tile<pto::TileType::Vec, half, 1, kRowElems>;

template <typename T>
AICORE inline __gm__ T *PeerAddr(__gm__ HcclDeviceContext *ctx, __gm__ T *local, int pe)
{
    uint64_t off = (uint64_t)local - ctx->windowsIn[ctx->rankId];
    return (__gm__ T *)(ctx->windowsIn[pe] + off);
}

__global__ AICORE void row_put(__gm__ HcclDeviceContext *ctx, __gm__ half *send,
                               __gm__ half *recv, __gm__ int32_t *ready)
{
    int me = ctx->rankId;
    int next = (me + 1) % ctx->rankNum;
    RowTile staging;
    TASSIGN(staging, 0x0);

    RowGlobal src(send);
    __gm__ half *target = PeerAddr(ctx, recv, next) + kRowElems;
    RowGlobal dst(target);
    pto::comm::TPUT(dst, src, staging);
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    pto::comm::Signal flag(PeerAddr(ctx, ready, next));
    pto::comm::TNOTIFY(flag, 1, pto::comm::NotifyOp::Set);

    pto::comm::Signal mine(ready);
    pto::comm::TWAIT(mine, 1, pto::comm::WaitCmp::EQ);
    RowGlobal got(recv + kRowElems);
    TLOAD(staging, got);
}

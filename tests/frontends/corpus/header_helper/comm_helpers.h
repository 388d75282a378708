// Helpers shared by the kernels of this folder.
#pragma once
#include <pto/comm/pto_comm_inst.hpp>

struct CommCtx {
    int32_t rank;
    int32_t size;
    uint64_t windowsIn[16];
};

// The address of `ptr` (a symmetric buffer on this rank) in rank `pe`'s window.
template <typename T>
AICORE inline __gm__ T *CommRemotePtr(__gm__ CommCtx *ctx, __gm__ T *ptr, int pe)
{
    return (__gm__ T *)(ctx->windowsIn[pe] + ((uint64_t)ptr - ctx->windowsIn[ctx->rank]));
}

// Raise my slot on every other rank, then wait for every other rank's slot here.
AICORE inline void BarrierAll(__gm__ CommCtx *ctx, __gm__ int32_t *slots, int32_t epoch)
{
    for (int pe = 0; pe < ctx->size; ++pe) {
        if (pe == ctx->rank) {
            continue;
        }
        pto::comm::Signal s(CommRemotePtr(ctx, slots + ctx->rank, pe));
        pto::comm::TNOTIFY(s, epoch, pto::comm::NotifyOp::Set);
    }
    for (int pe = 0; pe < ctx->size; ++pe) {
        if (pe != ctx->rank) {
            pto::comm::Signal s(slots + pe);
            pto::comm::TWAIT(s, epoch, pto::comm::WaitCmp::GE);
        }
    }
}

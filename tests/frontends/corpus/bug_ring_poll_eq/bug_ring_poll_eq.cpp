// BUG: a ring pipeline whose consumer polls with TTEST for EXACTLY step + 1. A rank can
// run a step ahead of its successor and Set step + 2 before the successor has seen
// step + 1: the value is lost and the successor polls forever.
// sigproof: ranks = 2
#include <pto/comm/pto_comm_inst.hpp>

namespace comm = pto::comm;

constexpr int kSteps = 2;

struct Ctx {
    int32_t rank;
    int32_t rankSize;
    uint64_t windowsIn[8];
};

AICORE inline void Post(__gm__ Ctx *ctx, __gm__ int32_t *flag, int32_t to, int32_t v)
{
    __gm__ int32_t *dst = (__gm__ int32_t *)(ctx->windowsIn[to] + ((uint64_t)flag - ctx->windowsIn[ctx->rank]));
    comm::Signal s(dst);
    comm::TNOTIFY(s, v, comm::NotifyOp::Set);
}

__global__ AICORE void bug_ring_poll_eq(__gm__ Ctx *ctx, __gm__ int32_t *flag)
{
    int32_t next = (ctx->rank + 1) % ctx->rankSize;
    comm::Signal mine(flag);
    for (int32_t step = 0; step < kSteps; ++step) {
        Post(ctx, flag, next, step + 1);
        while (!comm::TTEST(mine, step + 1, comm::WaitCmp::EQ)) {
            // spin: a bounded retry would report a timeout here on the simulator
        }
    }
}

// MoE dispatch, push half (one kernel of a two-kernel task graph, in the style of an
// expert-parallel dispatch): every rank tells every peer that its tokens are on the way by a
// Set into the peer's `token_ready[me]`. Its partner, dispatch_wait.cpp, waits for them.
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

__global__ AICORE void dispatch_push(__gm__ CommContext *ctx, __gm__ int32_t *token_ready)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        __gm__ int32_t *slot = token_ready + me;
        __gm__ int32_t *remote =
            (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)slot - ctx->windowsIn[me]));
        pto::comm::Signal sig(remote);
        pto::comm::TNOTIFY(sig, 1, pto::comm::NotifyOp::Set);
    }
}

// BUG: MoE dispatch, push half that tells only the higher ranks (an off-by-one in the
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
    for (int32_t p = me + 1; p < n; ++p) {  // BUG: the lower ranks are never told
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

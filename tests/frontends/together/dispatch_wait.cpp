// MoE dispatch, wait half: a rank may read its received tokens once every peer has set its
// `token_ready` slot here. Checked alone it deadlocks (nobody notifies); checked together
// with dispatch_push.cpp (`sigproof check dispatch_push.cpp dispatch_wait.cpp --together`)
// it is ok.
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

__global__ AICORE void dispatch_wait(__gm__ CommContext *ctx, __gm__ int32_t *token_ready)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        pto::comm::Signal sig(token_ready + p);
        pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::EQ);
    }
}

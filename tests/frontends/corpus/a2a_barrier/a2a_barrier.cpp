// One-shot all-to-all barrier: every rank adds 1 to its own slot in every peer's
// `arrived` array, then waits until every peer has added 1 to its slot here.
// The remote address is computed inline from the symmetric window bases.
#include <pto/comm/pto_comm_inst.hpp>
#include "kernel_operator.h"

struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

__global__ AICORE void a2a_barrier(__gm__ CommContext *ctx, __gm__ int32_t *arrived)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        __gm__ int32_t *slot = arrived + me;
        __gm__ int32_t *remote =
            (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)slot - ctx->windowsIn[me]));
        pto::comm::Signal sig(remote);
        pto::comm::TNOTIFY(sig, 1, pto::comm::NotifyOp::AtomicAdd);
    }
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        pto::comm::Signal sig(arrived + p);
        pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);
    }
}

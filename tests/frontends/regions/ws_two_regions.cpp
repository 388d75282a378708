#include <pto/comm/pto_comm_inst.hpp>
struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

// Two regions of one byte workspace: per-peer arrival flags, then a completion counter.
__global__ AICORE void ws_two_regions(__gm__ CommContext *ctx, __gm__ uint8_t *workspace, uint64_t flagOff,
                                      uint64_t doneOff)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    __gm__ int32_t *flags = (__gm__ int32_t *)(workspace + flagOff);
    __gm__ int32_t *done = (__gm__ int32_t *)(workspace + doneOff);
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        __gm__ int32_t *slot = flags + me;
        __gm__ int32_t *remote = (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)slot - ctx->windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(remote), 1, pto::comm::NotifyOp::Set);
    }
    for (int32_t p = 0; p < n; ++p) {
        if (p == me) {
            continue;
        }
        pto::comm::TWAIT(pto::comm::Signal(flags + p), 1, pto::comm::WaitCmp::EQ);
    }
    __gm__ int32_t *root = (__gm__ int32_t *)(ctx->windowsIn[0] + ((uint64_t)done - ctx->windowsIn[me]));
    pto::comm::TNOTIFY(pto::comm::Signal(root), 1, pto::comm::NotifyOp::AtomicAdd);
    if (me == 0) {
        pto::comm::TWAIT(pto::comm::Signal(done), n, pto::comm::WaitCmp::GE);
    }
}

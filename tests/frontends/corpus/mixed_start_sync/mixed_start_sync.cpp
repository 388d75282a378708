#include <pto/comm/pto_comm_inst.hpp>
#include <pto/pto-inst.hpp>

struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

// peer p's copy of a slot of this rank's window
AICORE inline __gm__ int32_t *PeerSlot(__gm__ CommContext *ctx, int32_t p, __gm__ int32_t *local)
{
    return (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)local - ctx->windowsIn[ctx->rankId]));
}

// A mixed kernel's cross-rank start sync (as dispatch_mega_combine's CrossRankStartSyncAic /
// CrossRankStartSyncAiv): the cube cores sweep the peers over the cube counters, the vector
// cores (two per cube core) over the vector counters; then every core meets at SYNCALL<Mix>.
__global__ AICORE void mixed_start_sync(__gm__ CommContext *ctx, __gm__ int32_t *aic_cnt, __gm__ int32_t *aiv_cnt)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
#if defined(__DAV_CUBE__)
    int32_t coreId = get_block_idx();
    int32_t coreNum = get_block_num();
    for (int32_t i = coreId; i < n; i += coreNum) {
        pto::comm::TNOTIFY(pto::comm::Signal(PeerSlot(ctx, i, aic_cnt + me)), 1, pto::comm::NotifyOp::AtomicAdd);
        pto::comm::TWAIT(pto::comm::Signal(aic_cnt + i), 1, pto::comm::WaitCmp::GE);
    }
#elif defined(__DAV_VEC__)
    int32_t coreId = get_block_idx() + get_subblockid() * get_block_num();
    int32_t coreNum = get_block_num() * get_subblockdim();
    for (int32_t i = coreId; i < n; i += coreNum) {
        pto::comm::TNOTIFY(pto::comm::Signal(PeerSlot(ctx, i, aiv_cnt + me)), 1, pto::comm::NotifyOp::AtomicAdd);
        pto::comm::TWAIT(pto::comm::Signal(aiv_cnt + i), 1, pto::comm::WaitCmp::GE);
    }
#endif
    pto::SYNCALL<pto::SyncCoreType::Mix>();
}

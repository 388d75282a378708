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

// The mixed start sync of mixed_start_sync.cpp with two mistakes that only the cube/vector
// pairing shows: the vector cores step by get_block_num() alone, so the two cores of a pair
// both cover the peers from get_block_num() on (two arrivals there), and they wait with EQ,
// which a second arrival can pass by before the waiter looks: a deadlock with two vector
// cores per cube core (dav-c220's 1:2), none with one (subblocks = 1).
__global__ AICORE void bug_mixed_pair_eq(__gm__ CommContext *ctx, __gm__ int32_t *aic_cnt, __gm__ int32_t *aiv_cnt)
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
    int32_t coreNum = get_block_num();
    for (int32_t i = coreId; i < n; i += coreNum) {
        pto::comm::TNOTIFY(pto::comm::Signal(PeerSlot(ctx, i, aiv_cnt + me)), 1, pto::comm::NotifyOp::AtomicAdd);
        pto::comm::TWAIT(pto::comm::Signal(aiv_cnt + i), 1, pto::comm::WaitCmp::EQ);
    }
#endif
    pto::SYNCALL<pto::SyncCoreType::Mix>();
}

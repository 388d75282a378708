// Two-level barrier with an intra-rank SyncAll: every block counts its arrival on its own
// rank, the blocks meet in SyncAll(), then block 0 announces the rank to every peer and
// waits for all of them.
#include <pto/comm/pto_comm_inst.hpp>

__global__ AICORE void syncall_barrier(__gm__ int32_t *local, __gm__ int32_t *cross, __gm__ uint64_t *windowsIn)
{
    int me = GetRank();
    int n = GetRankSize();
    pto::comm::TNOTIFY(pto::comm::Signal(local), 1, pto::comm::NotifyOp::AtomicAdd);
    AscendC::SyncAll();
    if (get_block_idx() == 0) {
        pto::comm::TWAIT(pto::comm::Signal(local), get_block_num(), pto::comm::WaitCmp::GE);
        for (int p = 0; p < n; ++p) {
            __gm__ int32_t *slot = cross + me;
            __gm__ int32_t *remote = (__gm__ int32_t *)(windowsIn[p] + ((uint64_t)slot - windowsIn[me]));
            pto::comm::TNOTIFY(pto::comm::Signal(remote), 1, pto::comm::NotifyOp::Set);
        }
        for (int p = 0; p < n; ++p) {
            pto::comm::TWAIT(pto::comm::Signal(cross + p), 1, pto::comm::WaitCmp::EQ);
        }
    }
}

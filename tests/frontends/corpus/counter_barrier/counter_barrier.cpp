// Counter threshold barrier across ranks and blocks: every block of every rank adds 1
// to the arrival counter on rank 0; block 0 of rank 0 waits until all nranks * nblocks
// arrivals are in, then Sets the release flag on every rank; every block waits for it.
// sigproof: ranks = 2
// sigproof: blocks = 2
#include <pto/comm/pto_comm_inst.hpp>

using namespace pto;

template <typename T>
AICORE inline __gm__ T *RemoteAddr(__gm__ HcclDeviceContext *hccl, __gm__ T *local, int pe)
{
    uint64_t off = (uint64_t)local - hccl->windowsIn[hccl->rankId];
    return (__gm__ T *)(hccl->windowsIn[pe] + off);
}

__global__ AICORE void counter_barrier(__gm__ HcclDeviceContext *hccl, __gm__ int32_t *count,
                                       __gm__ int32_t *release, int rank, int nranks)
{
    int blk = get_block_idx();
    int nblk = get_block_num();
    comm::Signal arrive(RemoteAddr(hccl, count, 0));
    comm::TNOTIFY(arrive, 1, comm::NotifyOp::AtomicAdd);
    if (rank == 0 && blk == 0) {
        comm::Signal all(count);
        comm::TWAIT(all, nranks * nblk, comm::WaitCmp::GE);
        for (int p = 0; p < nranks; p++) {
            comm::Signal go(RemoteAddr(hccl, release, p));
            comm::TNOTIFY(go, 1, comm::NotifyOp::Set);
        }
    }
    comm::Signal go(release);
    comm::TWAIT(go, 1, comm::WaitCmp::GE);
}

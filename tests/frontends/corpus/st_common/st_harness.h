// The host harness of the st_* system tests, in the shape of the PTO comm ST tests: one
// process per rank, each creating the HCCL communicator and launching the kernel.
#pragma once
#include <pto/comm/pto_comm_inst.hpp>
#include <hccl/hccl.h>
#include <acl/acl.h>

template <typename T>
AICORE inline __gm__ T *RemoteOf(__gm__ CommDeviceContext *ctx, __gm__ T *local, int pe)
{
    uint64_t offset = (uint64_t)local - ctx->windowsIn[ctx->rankId];
    return (__gm__ T *)(ctx->windowsIn[pe] + offset);
}

struct Harness {
    aclrtStream stream{nullptr};
    HcclComm comm{nullptr};
    CommDeviceContext *deviceCtx{nullptr};

    bool Setup(int rankId, int rankCount, const HcclRootInfo *root)
    {
        if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
            return false;
        }
        if (HcclCommInitRootInfo(static_cast<uint32_t>(rankCount), root, static_cast<uint32_t>(rankId), &comm) != HCCL_SUCCESS) {
            return false;
        }
        return BuildDeviceContext(comm, &deviceCtx);
    }
};

// Every rank's host waits here until all ranks' hosts have arrived, after the work queued
// on the stream so far (the kernels launched before it) has finished.
inline void HostBarrier(HcclComm comm, aclrtStream stream)
{
    HcclBarrier(comm, stream);
    aclrtSynchronizeStream(stream);
}

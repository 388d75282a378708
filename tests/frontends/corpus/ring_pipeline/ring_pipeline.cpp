// Ring pipeline: at each step a rank Sets step + 1 into its successor's progress flag
// and waits until its own flag has reached step + 1 (GE: a faster predecessor may already
// have written a larger value, which is fine). The signal is an int32 GlobalTensor.
#include <pto/comm/pto_comm_inst.hpp>

#define NUM_STEPS 3

using SigShape = pto::Shape<1, 1, 1, 1, 1>;
using SigStride = pto::Stride<1, 1, 1, 1, 1>;

struct RingArgs {
    __gm__ int32_t *progress;
    uint64_t windowsIn[8];
    int32_t myRank;
    int32_t rankSize;
};

__attribute__((always_inline)) inline __gm__ int32_t *PeerPtr(const RingArgs &a, __gm__ int32_t *p, int pe)
{
    return (__gm__ int32_t *)(a.windowsIn[pe] + ((uint64_t)p - a.windowsIn[a.myRank]));
}

__global__ AICORE void ring_pipeline(RingArgs args)
{
    const int next = (args.myRank + 1) % args.rankSize;
    for (int step = 0; step < NUM_STEPS; ++step) {
        // ... compute this step's chunk and TPUT it to `next` ...
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        pto::GlobalTensor<int32_t, SigShape, SigStride> out(PeerPtr(args, args.progress, next));
        pto::comm::TNOTIFY(out, step + 1, pto::comm::NotifyOp::Set);
        pto::GlobalTensor<int32_t, SigShape, SigStride> in(args.progress);
        pto::comm::TWAIT(in, step + 1, pto::comm::WaitCmp::GE);
    }
}

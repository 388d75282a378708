// Two barrier rounds in one launch through a helper from a local header; the second
// round uses epoch 2, so the slots never need a reset between the rounds.
#include "comm_helpers.h"

__global__ AICORE void header_helper(__gm__ CommCtx *ctx, __gm__ int32_t *slots)
{
    BarrierAll(ctx, slots, 1);
    // ... exchange data ...
    BarrierAll(ctx, slots, 2);
}

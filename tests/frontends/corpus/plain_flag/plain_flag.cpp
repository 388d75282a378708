// Producer / consumer with a plain GM flag instead of TNOTIFY: rank 0 writes its data to
// rank 1, fences, and stores 1 into rank 1's `ready` word; rank 1 spins on a volatile
// load of it. The config says that `ready` is a signal.
#include "kernel_operator.h"

__global__ AICORE void plain_flag(__gm__ volatile int32_t *ready, __gm__ uint64_t *windowsIn,
                                  int rank)
{
    if (rank == 0) {
        // ... copy the payload to rank 1 ...
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        __gm__ volatile int32_t *remote =
            (__gm__ volatile int32_t *)(windowsIn[1] + ((uint64_t)ready - windowsIn[0]));
        *remote = 1;
    } else {
        while (ready[0] != 1) {
            dcci(ready, SINGLE_CACHE_LINE);
        }
        // ... read the payload ...
    }
}

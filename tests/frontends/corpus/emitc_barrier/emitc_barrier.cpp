// Generated in the style of an EmitC lowering: mangled temporaries, explicit casts,
// constants as macros, a launch from host code. The protocol is a zero-sum barrier:
// each block adds 1 to its rank's counter, block 0 waits for all blocks and then
// subtracts them again so the counter ends at zero.
#include <pto/pto-inst.hpp>
#include "kernel_operator.h"

#define BLOCK_DIM 4
#define SIG_SLOT ((int32_t)0)

extern "C" __global__ AICORE void emitc_barrier_0(__gm__ int32_t *v1, int32_t v2)
{
    int32_t v3 = get_block_idx();
    int64_t v4 = (int64_t)v3;
    int32_t v5 = (int32_t)1;
    int32_t v6 = SIG_SLOT;
    __gm__ int32_t *v7 = v1 + v6;
    pto::comm::Signal v8(v7);
    pto::comm::TNOTIFY(v8, v5, pto::comm::NotifyOp::AtomicAdd);
    bool v9 = v4 == (int64_t)0;
    if (v9) {
        int32_t v10 = get_block_num();
        pto::comm::TWAIT(v8, v10, pto::comm::WaitCmp::GE);
        int32_t v11 = -v10;
        pto::comm::TNOTIFY(v8, v11, pto::comm::NotifyOp::AtomicAdd);
    }
    return;
}

void launch_emitc_barrier(void *stream, uint8_t *sig)
{
    emitc_barrier_0<<<BLOCK_DIM, nullptr, stream>>>((int32_t *)sig, 7);
}

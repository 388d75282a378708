// In the style of the kernels pypto generates for the simpler runtime (written for these
// tests, not copied): two kernels of one task graph. Their entries unpack everything from
// one int64 argument array: the rank arrives as a scalar through a union, the communication
// context as a raw int64 table (rankId in word 2, the window bases from word 4 on: pypto's
// comm_layout.h pins those offsets), the SPMD block from the dispatch payload. Every block of
// every rank adds 1 to its slot on each peer (push_entry); wait_entry waits until all 4
// blocks of each peer have. Checked together: `sigproof check spmd_pair.cpp --together`.
#include <pto/comm/pto_comm_inst.hpp>

static __aicore__ __gm__ int32_t *arrived_of(__gm__ int64_t *args)
{
    __gm__ ChipTensor *arrived__ssa_v0_tensor = reinterpret_cast<__gm__ ChipTensor *>(args[0]);
    return reinterpret_cast<__gm__ int32_t *>(arrived__ssa_v0_tensor->buffer.addr) + arrived__ssa_v0_tensor->start_offset;
}

static __aicore__ int32_t rank_of(__gm__ int64_t *args)
{
    union {
        uint64_t u64;
        int32_t val;
    } my_rank__ssa_v0_conv;
    my_rank__ssa_v0_conv.u64 = args[1];
    return my_rank__ssa_v0_conv.val;
}

static __aicore__ void push_body(__gm__ int32_t *v1, int32_t v2, __gm__ int64_t *v3, int32_t v4, int32_t v5)
{
    pto::comm::NotifyOp v6 = pto::comm::NotifyOp::AtomicAdd;
    const int64_t v7 = 4;
    const int64_t v8 = 2;
    const int64_t v9 = 1;
    const int64_t v10 = 0;
    for (int64_t i11 = v10; i11 < v8; i11 += v9) {
        if (i11 != (int64_t)v2) {
            int64_t v12 = (v3)[v8];
            int64_t v13 = (v3)[(int64_t)((uint64_t)((int64_t)((int32_t)v12)) + (uint64_t)v7)];
            int64_t v14 = (v3)[(int64_t)((uint64_t)i11 + (uint64_t)v7)];
            pto::Shape<1, 1, 1, 1, 1> v15 = pto::Shape<1, 1, 1, 1, 1>();
            pto::Stride<1, 1, 1, 1, 1> v16 = pto::Stride<1, 1, 1, 1, 1>();
            GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 1>, pto::Stride<1, 1, 1, 1, 1>, pto::Layout::DN> v17 =
                GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 1>, pto::Stride<1, 1, 1, 1, 1>, pto::Layout::DN>(
                    (v1 + (int64_t)((uint64_t)v14 - (uint64_t)v13) / v7) + (v10 + (v2 < v10 ? v10 : v2)), v15, v16);
            pipe_barrier(PIPE_ALL);
            pto::comm::TNOTIFY(v17, 1, v6);
        }
    }
}

static __aicore__ void wait_body(__gm__ int32_t *v1, int32_t v2)
{
    pto::comm::WaitCmp v3 = pto::comm::WaitCmp::GE;
    pto::Shape<1, 1, 1, 1, 1> v9 = pto::Shape<1, 1, 1, 1, 1>();
    pto::Stride<1, 1, 1, 1, 1> v10 = pto::Stride<1, 1, 1, 1, 1>();
    const int64_t v4 = 0;
    const int32_t v7 = 4;
    for (int64_t i8 = v4; i8 < 2; i8 += 1) {
        if (i8 != (int64_t)v2) {
            GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 1>, pto::Stride<1, 1, 1, 1, 1>, pto::Layout::DN> v11 =
                GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 1>, pto::Stride<1, 1, 1, 1, 1>, pto::Layout::DN>(
                    v1 + (v4 + (i8 < v4 ? v4 : i8)), v9, v10);
            pto::comm::TWAIT(v11, v7, v3);
        }
    }
}

extern "C" __aicore__ __attribute__((always_inline)) void push_entry(__gm__ int64_t *args)
{
    int32_t spmd_block_idx = get_block_idx(args);
    int32_t spmd_block_num = get_block_num(args);
    int32_t my_rank__ssa_v0 = rank_of(args);
    __gm__ int64_t *arrived_ctx = reinterpret_cast<__gm__ int64_t *>(args[2]);
    push_body(arrived_of(args), my_rank__ssa_v0, arrived_ctx, spmd_block_idx, spmd_block_num);
}

extern "C" __aicore__ __attribute__((always_inline)) void wait_entry(__gm__ int64_t *args)
{
    int32_t my_rank__ssa_v0 = rank_of(args);
    wait_body(arrived_of(args), my_rank__ssa_v0);
}

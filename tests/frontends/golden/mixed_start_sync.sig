// Skeleton of kernel mixed_start_sync (mixed_start_sync.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp mixed_start_sync.cpp
protocol mixed_start_sync;

param NRANKS = 2;    // assumed: rank count not configured
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks 3 * NBLOCKS;    // a mixed kernel: NBLOCKS cube cores, then 2 vector cores per cube core
signal aic_cnt[NRANKS];    // mixed_start_sync.cpp:19:73
signal aiv_cnt[NRANKS];    // mixed_start_sync.cpp:19:98

kernel {
    if (block < NBLOCKS) {
        int coreNum = NBLOCKS;
        for (int i = block; i < nranks; i += coreNum) {
            TNOTIFY(aic_cnt[rank] @ i, 1, AtomicAdd);
            TWAIT(aic_cnt[i], 1, GE);
        }
        block_barrier;
    } else {
        int coreId = (block - NBLOCKS) / 2 + (block - NBLOCKS) % 2 * NBLOCKS;
        int coreNum_1 = NBLOCKS * 2;
        for (int i_1 = coreId; i_1 < nranks; i_1 += coreNum_1) {
            TNOTIFY(aiv_cnt[rank] @ i_1, 1, AtomicAdd);
            TWAIT(aiv_cnt[i_1], 1, GE);
        }
        block_barrier;
    }
}

host {
    launch;
}

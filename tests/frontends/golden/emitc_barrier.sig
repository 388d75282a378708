// Skeleton of kernel emitc_barrier_0 (emitc_barrier.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp emitc_barrier.cpp
protocol emitc_barrier_0;

param NRANKS = 1;    // ranks from the config
param NBLOCKS = 4;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal v1;    // emitc_barrier.cpp:11:58

kernel {
    TNOTIFY(v1, 1, AtomicAdd);
    bool v9 = block == 0;
    if (v9) {
        TWAIT(v1, nblocks, GE);
        int v11 = -nblocks;
        TNOTIFY(v1, v11, AtomicAdd);
    }
    return;
}

host {
    launch;
}
check clean_exit;

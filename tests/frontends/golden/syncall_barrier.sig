// Skeleton of kernel syncall_barrier (syncall_barrier.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp syncall_barrier.cpp
protocol syncall_barrier;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal local;    // syncall_barrier.cpp:6:47
signal cross[NRANKS];    // syncall_barrier.cpp:6:70

kernel {
    TNOTIFY(local, 1, AtomicAdd);
    block_barrier;
    if (block == 0) {
        TWAIT(local, nblocks, GE);
        for (int p = 0; p < nranks; p++) {
            TNOTIFY(cross[rank] @ p, 1, Set);
        }
        for (int p_1 = 0; p_1 < nranks; p_1++) {
            TWAIT(cross[p_1], 1, EQ);
        }
    }
}

host {
    launch;
}

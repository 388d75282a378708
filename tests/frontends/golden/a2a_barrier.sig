// Skeleton of kernel a2a_barrier (a2a_barrier.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp a2a_barrier.cpp
protocol a2a_barrier;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal arrived[NRANKS];    // a2a_barrier.cpp:13:68

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p == rank) {
            continue;
        }
        TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);
    }
    for (int p_1 = 0; p_1 < nranks; p_1++) {
        if (p_1 == rank) {
            continue;
        }
        TWAIT(arrived[p_1], 1, GE);
    }
}

host {
    launch;
}

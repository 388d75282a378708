// Skeleton of kernel counter_barrier (counter_barrier.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp counter_barrier.cpp
protocol counter_barrier;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal count;    // counter_barrier.cpp:17:79
signal release;    // counter_barrier.cpp:18:47

kernel {
    TNOTIFY(count @ 0, 1, AtomicAdd);
    if (rank == 0 && block == 0) {
        TWAIT(count, nranks * nblocks, GE);
        for (int p = 0; p < nranks; p++) {
            TNOTIFY(release @ p, 1, Set);
        }
    }
    TWAIT(release, 1, GE);
}

host {
    launch;
}

// Skeleton of kernel @counter_barrier (counter_barrier.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir counter_barrier.pto
protocol counter_barrier;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal counter;    // counter_barrier.pto:6:30
signal go;    // counter_barrier.pto:6:55

kernel {
    TNOTIFY(counter @ 0, 1, AtomicAdd);
    if (rank == 0 && block == 0) {
        TWAIT(counter @ 0, nranks * nblocks, GE);
        for (int p = 0; p < nranks; p++) {
            TNOTIFY(go @ p, 1, Set);
        }
    }
    TWAIT(go, 1, EQ);
}

host {
    launch;
}

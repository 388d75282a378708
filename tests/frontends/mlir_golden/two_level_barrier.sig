// Skeleton of kernel @two_level_barrier (two_level_barrier.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir two_level_barrier.pto
protocol two_level_barrier;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal intra;    // two_level_barrier.pto:6:32
signal cross[NRANKS];    // two_level_barrier.pto:6:55
signal go;    // two_level_barrier.pto:6:78

kernel {
    if (block == 0) {
        TWAIT(intra, nblocks - 1, GE);
        for (int p = 0; p < nranks; p++) {
            if (p != rank) {
                TNOTIFY(cross[rank] @ p, 1, AtomicAdd);
            }
        }
        for (int q = 0; q < nranks; q++) {
            if (q != rank) {
                TWAIT(cross[q], 1, GE);
            }
        }
        TNOTIFY(go, 1, Set);
    } else {
        TNOTIFY(intra, 1, AtomicAdd);
        TWAIT(go, 1, GE);
    }
}

host {
    launch;
}

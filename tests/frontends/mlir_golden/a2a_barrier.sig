// Skeleton of kernel @a2a_barrier (a2a_barrier.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir a2a_barrier.pto
protocol a2a_barrier;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal arrived[NRANKS];    // a2a_barrier.pto:7:26

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            pipe_barrier(PIPE_ALL);
            TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);
        }
    }
    for (int q = 0; q < nranks; q++) {
        if (q != rank) {
            TWAIT(arrived[q], 1, GE);
        }
    }
}

host {
    launch;
}

// Skeleton of kernel @credit_epilogue (credit_epilogue.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir credit_epilogue.pto
protocol credit_epilogue;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal data;    // credit_epilogue.pto:7:30
signal credit;    // credit_epilogue.pto:7:52

kernel {
    if (rank == 0) {
        for (int i = 0; i < 3; i++) {
            if (i >= 2) {
                TWAIT(credit, i - 2 + 1, GE);
            }
            pipe_barrier(PIPE_ALL);
            TNOTIFY(data @ 1, 1, AtomicAdd);
        }
        TWAIT(credit, 3, GE);
        TNOTIFY(credit, -3, AtomicAdd);
    } else {
        for (int i_1 = 0; i_1 < 3; i_1++) {
            TWAIT(data, i_1 + 1, GE);
            TNOTIFY(credit @ 0, 1, AtomicAdd);
        }
        TNOTIFY(data, -3, AtomicAdd);
    }
}

host {
    launch;
    launch;
}
check clean_exit;

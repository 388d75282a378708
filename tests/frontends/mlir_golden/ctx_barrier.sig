// Skeleton of kernel @ctx_barrier (ctx_barrier.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir ctx_barrier.pto
protocol ctx_barrier;

param NRANKS = 2;    // assumed: rank count not configured
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal arg0[NRANKS];    // ctx_barrier.pto:8:26

kernel {
    for (int arg2 = 0; arg2 < nranks; arg2++) {
        TNOTIFY(arg0[rank] @ arg2, 1, AtomicAdd);
    }
    for (int arg3 = 0; arg3 < nranks; arg3++) {
        TWAIT(arg0[arg3], 1, GE);
    }
}

host {
    launch;
}

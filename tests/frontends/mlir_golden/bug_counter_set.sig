// Skeleton of kernel @bug_counter_set (bug_counter_set.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir bug_counter_set.pto
protocol bug_counter_set;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal count;    // bug_counter_set.pto:6:30

kernel {
    if (rank == 0) {
        TWAIT(count, nranks - 1, GE);
    } else {
        TNOTIFY(count @ 0, 1, Set);
    }
}

host {
    launch;
}

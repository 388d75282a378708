// Skeleton of kernel @bug_wrong_count (bug_wrong_count.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir bug_wrong_count.pto
protocol bug_wrong_count;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal arrivals;    // bug_wrong_count.pto:6:30

kernel {
    if (rank != 0) {
        TNOTIFY(arrivals @ 0, 1, AtomicAdd);
    } else {
        TWAIT(arrivals, nranks, EQ);
    }
}

host {
    launch;
}

// Skeleton of kernel plain_flag (plain_flag.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp plain_flag.cpp
protocol plain_flag;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal ready;    // plain_flag.cpp:6:42

kernel {
    if (rank == 0) {
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        TNOTIFY(ready @ 1, 1, Set);
    } else {
        while (TTEST(ready, 1, NE)) {
        }
    }
}

host {
    launch;
}

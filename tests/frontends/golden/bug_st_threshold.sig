// Skeleton of kernel ThresholdKernel (bug_st_threshold.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_st_threshold.cpp
protocol ThresholdKernel;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal counter;    // bug_st_threshold.cpp:6:47

kernel {
    if (rank != 0) {
        for (int i = 0; i < 2; i++) {
            TNOTIFY(counter @ 0, 1, AtomicAdd);
        }
    } else {
        TWAIT(counter, nranks * 2, GE);
    }
}

host {
    launch;
}

// Skeleton of kernel AtomicThresholdKernel (st_atomic_threshold.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp st_atomic_threshold.cpp
protocol AtomicThresholdKernel;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal counter;    // st_atomic_threshold.cpp:7:53

kernel {
    if (rank != 0) {
        for (int i = 0; i < 3; i++) {
            TNOTIFY(counter @ 0, 1, AtomicAdd);
        }
    } else {
        TWAIT(counter, (nranks - 1) * 3, GE);
    }
    pipe_barrier(PIPE_ALL);
}

host {
    launch;
}

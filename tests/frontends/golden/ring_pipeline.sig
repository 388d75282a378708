// Skeleton of kernel ring_pipeline (ring_pipeline.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp ring_pipeline.cpp
protocol ring_pipeline;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal progress;    // ring_pipeline.cpp:30:75

kernel {
    for (int step = 0; step < 3; step++) {
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        TNOTIFY(progress @ ((rank + 1) % nranks), step + 1, Set);
        TWAIT(progress, step + 1, GE);
    }
}

host {
    launch;
}

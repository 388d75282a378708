// Skeleton of kernel @ring_pipeline (ring_pipeline.pto), extracted by sigproof frontends.mlir.
// Regenerate rather than edit: python -m frontends.mlir ring_pipeline.pto
protocol ring_pipeline;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal flag;    // ring_pipeline.pto:20:28

kernel {
    int value = 1;
    for (int s = 0; s < 3; s++) {
        TNOTIFY(flag @ (rank + 1) % nranks, value, Set);
        while (true) {
            bool ready = TTEST(flag, value, GE);
            if (ready) {
                break;
            }
        }
        value = value + 1;
    }
}

host {
    launch;
}

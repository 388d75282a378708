// Skeleton of kernel PollKernel (st_ttest_phases.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp st_ttest_phases.cpp
protocol PollKernel;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 1;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal flag;    // st_ttest_phases.cpp:7:42

kernel {
    if (launch_id == 0 && rank == 0) {
        TNOTIFY(flag @ 1, 42, Set);
        pipe_barrier(PIPE_ALL);
    }
    if (launch_id == 1 && rank == 1) {
        while (!TTEST(flag, 42, EQ)) {
        }
    }
    pipe_barrier(PIPE_ALL);
}

host {
    launch;
    host_barrier;
    launch;
    host_barrier;
}

// Skeleton of kernel PhaseKernel (bug_st_multi_phase.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_st_multi_phase.cpp
protocol PhaseKernel;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 1;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal sig;    // bug_st_multi_phase.cpp:6:43

kernel {
    if (rank == 0) {
        TNOTIFY(sig @ 1, 2 * launch_id + 1, Set);
    } else {
        if (rank == 1) {
            if (launch_id == 1) {
                TWAIT(sig, 2 * launch_id + 1, GE);
            } else {
                TWAIT(sig, 2 * launch_id + 1, EQ);
            }
        }
    }
    pipe_barrier(PIPE_ALL);
}

host {
    launch;
    launch;
    launch;
}

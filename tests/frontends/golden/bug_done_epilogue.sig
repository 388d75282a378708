// Skeleton of kernel bug_done_epilogue (bug_done_epilogue.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_done_epilogue.cpp
protocol bug_done_epilogue;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal done;    // bug_done_epilogue.cpp:17:49

kernel {
    TNOTIFY(done @ 0, 1, AtomicAdd);
    if (rank == 0) {
        TWAIT(done, nranks, GE);
        TNOTIFY(done, -(nranks - 1), AtomicAdd);
    }
}

host {
    launch;
    launch;
}
check clean_exit;

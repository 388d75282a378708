// Skeleton of kernel bug_counter_set (bug_counter_set.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_counter_set.cpp
protocol bug_counter_set;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal count;    // bug_counter_set.cpp:14:47

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, Set);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

host {
    launch;
}

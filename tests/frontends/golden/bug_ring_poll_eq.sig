// Skeleton of kernel bug_ring_poll_eq (bug_ring_poll_eq.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_ring_poll_eq.cpp
protocol bug_ring_poll_eq;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal flag;    // bug_ring_poll_eq.cpp:24:65

kernel {
    int next = (rank + 1) % nranks;
    for (int step = 0; step < 2; step++) {
        TNOTIFY(flag @ next, step + 1, Set);
        while (!TTEST(flag, step + 1, EQ)) {
        }
    }
}

host {
    launch;
}

// Skeleton of kernel bug_put_notify_no_fence (bug_put_notify_no_fence.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_put_notify_no_fence.cpp
protocol bug_put_notify_no_fence;

param NRANKS = 2;    // assumed: rank count not configured
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal ready;    // bug_put_notify_no_fence.cpp:30:75
buffer recv[64];    // bug_put_notify_no_fence.cpp:30:55
buffer send[64];    // bug_put_notify_no_fence.cpp:29:86

kernel {
    int next = (rank + 1) % nranks;
    TPUT(recv[0:64] @ next, send[0:64]);
    TNOTIFY(ready @ next, 1, Set);
    TWAIT(ready, 1, EQ);
    READ(recv[0:64]);
}

host {
    launch;
}

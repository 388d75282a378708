// Skeleton of kernel put_notify_fence (put_notify_fence.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp put_notify_fence.cpp
protocol put_notify_fence;

param NRANKS = 2;    // assumed: rank count not configured
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal ready;    // put_notify_fence.cpp:29:75
buffer recv[64];    // put_notify_fence.cpp:29:55
buffer send[64];    // put_notify_fence.cpp:28:79

kernel {
    int next = (rank + 1) % nranks;
    TPUT(recv[0:64] @ next, send[0:64]);
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    TNOTIFY(ready @ next, 1, Set);
    TWAIT(ready, 1, EQ);
    READ(recv[0:64]);
}

host {
    launch;
}

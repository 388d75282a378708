// Skeleton of kernel bug_runtime_peer_any (bug_runtime_peer_any.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_runtime_peer_any.cpp
protocol bug_runtime_peer_any;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal token;    // bug_runtime_peer_any.cpp:7:52

kernel {
    int peer = any(0, nranks - 1);
    TNOTIFY(token @ peer, 1, AtomicAdd);
    TWAIT(token, 1, GE);
}

host {
    launch;
}

// Skeleton of kernel runtime_peer (runtime_peer.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp runtime_peer.cpp
protocol runtime_peer;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal token;    // runtime_peer.cpp:6:44

kernel {
    TNOTIFY(token @ ((rank + 1) % 3), 1, AtomicAdd);
    TWAIT(token, 1, GE);
}

host {
    launch;
}

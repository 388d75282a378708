// Skeleton of kernel peer_table (peer_table.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp peer_table.cpp
protocol peer_table;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal arrived[2];    // peer_table.cpp:6:42

kernel {
    int peers[2] = {(rank + nranks - 1) % nranks, (rank + 1) % nranks};
    for (int k = 0; k < 2; k++) {
        int pe = peers[k];
        TNOTIFY(arrived[k] @ pe, 1, AtomicAdd);
    }
    for (int k_1 = 0; k_1 < 2; k_1++) {
        TWAIT(arrived[k_1], 1, GE);
    }
}

host {
    launch;
}

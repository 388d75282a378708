// Skeleton of kernel signal2d_tiles (signal2d_tiles.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp signal2d_tiles.cpp
protocol signal2d_tiles;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal flags[max(16 * NRANKS - 14, 34)];    // signal2d_tiles.cpp:11:46
view flags_view[3][2] = flags[0::16];    // signal2d_tiles.cpp:21:26

kernel {
    for (int t = 0; t < 2; t++) {
        TNOTIFY(flags[rank * 16 + t] @ 0, 1, Set);
    }
    if (rank == 0) {
        TWAIT(flags_view, 1, EQ);
    }
}

host {
    launch;
}

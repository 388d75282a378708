// Skeleton of kernel two_level_barrier (two_level_barrier.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp two_level_barrier.cpp
protocol two_level_barrier;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal intra[2];    // two_level_barrier.cpp:16:49
signal flag[2];    // two_level_barrier.cpp:17:49
signal cross[2][8];    // two_level_barrier.cpp:16:72

kernel {
    for (int phase = 0; phase < 2; phase++) {
        if (block != 0) {
            TNOTIFY(intra[phase], 1, AtomicAdd);
            TWAIT(flag[phase], 1, GE);
            continue;
        }
        TWAIT(intra[phase], nblocks - 1, GE);
        for (int p = 0; p < nranks; p++) {
            if (p != rank) {
                TNOTIFY(cross[phase][rank] @ p, 1, AtomicAdd);
            }
        }
        for (int p_1 = 0; p_1 < nranks; p_1++) {
            if (p_1 != rank) {
                TWAIT(cross[phase][p_1], 1, GE);
            }
        }
        TNOTIFY(flag[phase], 1, Set);
    }
}

host {
    launch;
    reset intra;
    reset cross;
    reset flag;
    host_barrier;
    launch;
}

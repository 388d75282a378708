// Skeleton of kernel bug_slot_overrun (bug_slot_overrun.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp bug_slot_overrun.cpp
protocol bug_slot_overrun;

param NRANKS = 2;    // ranks from the config
param NBLOCKS = 2;    // blocks from the config
ranks NRANKS;
blocks NBLOCKS;
signal arrive[2];    // bug_slot_overrun.cpp:12:48

kernel {
    TNOTIFY(arrive[block + nblocks * rank] @ 0, 1, Set);
    if (rank == 0 && block == 0) {
        for (int s = 0; s < nranks * nblocks; s++) {
            TWAIT(arrive[s], 1, EQ);
        }
    }
}

host {
    launch;
}

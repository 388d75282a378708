// Skeleton of kernel header_helper (header_helper.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp header_helper.cpp
protocol header_helper;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // assumed: block count not configured
ranks NRANKS;
blocks NBLOCKS;
signal slots[NRANKS];    // header_helper.cpp:5:66

kernel {
    for (int pe = 0; pe < nranks; pe++) {
        if (pe == rank) {
            continue;
        }
        TNOTIFY(slots[rank] @ pe, 1, Set);
    }
    for (int pe_1 = 0; pe_1 < nranks; pe_1++) {
        if (pe_1 != rank) {
            TWAIT(slots[pe_1], 1, GE);
        }
    }
    for (int pe_2 = 0; pe_2 < nranks; pe_2++) {
        if (pe_2 == rank) {
            continue;
        }
        TNOTIFY(slots[rank] @ pe_2, 2, Set);
    }
    for (int pe_3 = 0; pe_3 < nranks; pe_3++) {
        if (pe_3 != rank) {
            TWAIT(slots[pe_3], 2, GE);
        }
    }
}

host {
    launch;
}

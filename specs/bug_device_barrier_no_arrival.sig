// BUG (device barrier without its intra-rank arrival stage): data_device_barrier.sig with
// block 0 entering the cross-rank barrier at once. Nothing tells block 0 that its siblings'
// TPUTs are done, so the next rank's block 1 may READ its part while the previous rank's
// block 1 is still writing it. Verdict: data_race. Fixed version: data_device_barrier.sig.
protocol bug_device_barrier_no_arrival;

param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
buffer mine[B];           // each block's part, on its own rank
buffer theirs[B];         // the previous rank's parts, delivered here
signal entered;           // block 0s of the other ranks that are past their arrival stage
signal go;                // rank-local: block 0 saw every rank enter

kernel {
    int next = (rank + 1) % nranks;
    TPUT(theirs[block] @ next, mine[block]);
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    if (block != 0) {
        TWAIT(go, 1, EQ);
    } else {
        // BUG: no TWAIT(arrived, nblocks - 1, GE) here
        for (int p = 0; p < nranks; p++) {
            if (p != rank) {
                TNOTIFY(entered @ p, 1, AtomicAdd);
            }
        }
        TWAIT(entered, nranks - 1, GE);           // every rank is past its arrival stage
        TNOTIFY(go, 1, Set);
    }
    READ(theirs[block]);
}

expect data_race;

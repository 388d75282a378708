// Mutant of specs/field/counted_epilogue.sig: the adds go to (rank + i + 1) % nranks: the own slot on the own rank, none to the successor (deadlock).
protocol counted_epilogue;

param N = 8;              // ranks
param C = 2;              // calls per launch
ranks N;
signal done[N];            // done[p]: calls rank p has finished with this rank

host {
    launch;
    launch;
}

kernel {
    for (int c = 0; c < C; c++) {
        // ... push this rank's chunks to every peer ...
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        for (int i = 1; i < nranks; i++) {
            TNOTIFY(done[rank] @ ((rank + i + 1) % nranks), 1, AtomicAdd);
        }
        for (int i = 1; i < nranks; i++) {
            TWAIT(done[(rank + i) % nranks], launch_id * C + c + 1, GE);
        }
    }
}

expect ok;

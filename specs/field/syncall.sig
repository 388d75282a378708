// Software SYNCALL across the AI cores of each rank, and across 8 ranks, as hand-written
// all-core barriers are built when the hardware sync is not available: every block adds 1
// to a counter on its rank and waits for all blocks of the rank (block_num arrivals per
// round, rounds counted up, never reset); then block 0 of each rank joins a cross-rank
// round by adding to a counter on every rank and waiting for all ranks, and releases its
// own blocks with a flag. Three rounds per launch.
protocol syncall;

param N = 8;              // ranks
param B = 4;              // blocks (AI cores) per rank
param K = 3;              // barrier rounds
ranks N;
blocks B;
signal cores;             // arrivals of this rank's blocks, all rounds
signal ranks_in;          // arrivals of all ranks' block 0, all rounds
signal go;                // the round this rank's blocks may pass

kernel {
    for (int k = 1; k <= K; k++) {
        TNOTIFY(cores @ rank, 1, AtomicAdd);
        TWAIT(cores, k * nblocks, GE);
        if (block == 0) {
            for (int i = 0; i < nranks; i++) {
                TNOTIFY(ranks_in @ ((rank + i) % nranks), 1, AtomicAdd);
            }
            TWAIT(ranks_in, k * nranks, GE);
            TNOTIFY(go @ rank, k, Set);
        }
        TWAIT(go, k, GE);
    }
}

expect ok;

// A device barrier with an intra-rank arrival stage (issue 19's target protocol, the shape of
// gemm_ar's fixed DeviceBarrier): every block TPUTs its part into the next rank's `theirs`,
// fences, and arrives on a rank-local counter; block 0 waits for its siblings, then runs an
// all-to-all barrier with the other ranks' block 0 (an AtomicAdd on every peer, a wait for
// N - 1), then releases its siblings with a rank-local Set; every block then READs the part
// that the previous rank's block of the same index delivered. Happens-before runs from each
// TPUT through the fence, the arrival (a release), block 0's TWAIT (an acquire), its adds on
// the peers, the peer's block 0 and its Set of `go` to the sibling's TWAIT and READ.
// Verdict: ok. Buggy variant: bug_device_barrier_no_arrival.sig.
protocol data_device_barrier;

param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
buffer mine[B];           // each block's part, on its own rank
buffer theirs[B];         // the previous rank's parts, delivered here
signal arrived;           // rank-local: sibling blocks whose TPUT is complete
signal entered;           // block 0s of the other ranks that are past their arrival stage
signal go;                // rank-local: block 0 saw every rank enter

kernel {
    int next = (rank + 1) % nranks;
    TPUT(theirs[block] @ next, mine[block]);
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    if (block != 0) {
        TNOTIFY(arrived, 1, AtomicAdd);           // "my part is out"
        TWAIT(go, 1, EQ);
    } else {
        TWAIT(arrived, nblocks - 1, GE);          // every sibling's part is out
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

expect ok;

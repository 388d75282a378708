// The fixed version of bug_data_done_before_siblings.sig: every sibling block fences its
// TPUT and arrives on a rank-local counter; block 0 waits for all of them before it
// announces "done" to the next rank. Happens-before then runs from each block's TPUT
// through its fence and AtomicAdd (a release), block 0's TWAIT (an acquire), block 0's
// fenced Set and the next rank's TWAIT to its READ. Verdict: ok.
protocol data_barrier_two_level;

param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
buffer mine[B];
buffer theirs[B];
signal arrived;           // rank-local: sibling blocks whose TPUT is complete
signal done[N];

kernel {
    int next = (rank + 1) % nranks;
    TPUT(theirs[block] @ next, mine[block]);
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    if (block != 0) {
        TNOTIFY(arrived, 1, AtomicAdd);           // "my part is out"
    } else {
        TWAIT(arrived, nblocks - 1, GE);          // every sibling's part is out
        TNOTIFY(done[rank] @ next, 1, Set);
        TWAIT(done[(rank + nranks - 1) % nranks], 1, GE);
        READ(theirs);
    }
}

expect ok;

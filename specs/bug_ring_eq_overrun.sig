// BUG (EQ wait on a value a peer can advance): the ring pipeline of
// ring_pipeline_ge.sig, but every rank waits for its own flag with EQ step + 1.
//
// Each rank Sets step + 1 into its successor's flag, then waits EQ step + 1 on
// its own. A rank can run one step ahead: with 2 ranks, both Set 1, rank 0 reads
// its 1, passes, and Sets 2 into rank 1's flag before rank 1's EQ 1 wait has
// read the 1. The unread 1 is replaced by 2, which the pending EQ 1 wait can
// never accept: lost_notification. Rank 1 then spins on EQ 1 forever while
// rank 0 spins on EQ 2 (rank 1 never got to step 1): deadlock.
protocol bug_ring_eq_overrun;

param N = 2;              // ranks in the ring
param S = 2;              // pipeline steps
ranks N;
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    for (int step = 0; step < S; step++) {
        TNOTIFY(flag @ next, step + 1, Set);
        TWAIT(flag, step + 1, EQ);
    }
}

expect lost_notification;
expect deadlock;

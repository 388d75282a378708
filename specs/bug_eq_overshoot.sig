// BUG (wrong count / EQ on a counter that overshoots): a progress counter on the
// root (rank 0) to which every worker rank AtomicAdds 1 after each of its S
// steps; the root waits for step s with EQ (nranks - 1) * (s + 1), i.e. "exactly
// all workers have finished step s".
//
// The workers are not held back by the root, so a fast worker can already add
// its step s + 1 increment before the root has read the value (nranks - 1) *
// (s + 1). The counter jumps past the value the EQ wait needs and only grows
// afterwards: the root spins forever = deadlock. AtomicAdd never destroys a
// value, so this is not a lost notification (the checker reports deadlock
// only). (Fix: wait with GE, which the counter cannot overshoot.)
protocol bug_eq_overshoot;

param N = 3;              // ranks: root + N - 1 workers
param S = 2;              // steps
ranks N;
signal progress;          // on the root

kernel {
    for (int s = 0; s < S; s++) {
        if (rank == 0) {
            TWAIT(progress, (nranks - 1) * (s + 1), EQ);    // BUG: should be GE
            // ... consume the step-s results ...
        } else {
            // ... compute step s, TPUT to the root ...
            pipe_barrier(PIPE_ALL);
            TNOTIFY(progress @ 0, 1, AtomicAdd);
        }
    }
}

expect deadlock;

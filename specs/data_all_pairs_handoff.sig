// A fenced all-pairs handoff (issue 19's target protocol): every rank TPUTs its payload
// into its own slot of every peer's inbox, fences once, and then Sets its flag on every
// peer; every rank then waits for each peer's flag and READs that peer's slot. The fence
// orders each TPUT before the flags (a release), each TWAIT acquires, so every READ sees a
// complete TPUT. Verdict: ok. Buggy variant: bug_all_pairs_handoff_no_fence.sig.
protocol data_all_pairs_handoff;

param N = 3;              // ranks
ranks N;
buffer payload;           // what this rank sends
buffer inbox[N];          // inbox[p] on rank r: rank p's payload
signal ready[N];          // ready[p] on rank r: rank p's payload is in inbox[p]

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TPUT(inbox[rank] @ p, payload);
        }
    }
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(ready[rank] @ p, 1, Set);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(ready[p], 1, EQ);
            READ(inbox[p]);
        }
    }
}

expect ok;

// BUG (publish before fence): the all-pairs handoff of data_all_pairs_handoff.sig without its
// fence. Nothing orders a rank's TPUT before the flags it Sets afterwards, so the peer that
// waits for the flag and READs its slot may read while the TPUT is still writing it.
// Verdict: data_race (the READ against the TPUT). Fixed version: data_all_pairs_handoff.sig.
protocol bug_all_pairs_handoff_no_fence;

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

expect data_race;

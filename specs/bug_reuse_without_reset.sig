// BUG (reuse without reset): a Set(1) + GE 1 barrier between two ranks, used in
// L launches with nothing clearing the flags in between (no host reset, no
// epoch values):
//     TNOTIFY(arrived @ peer, 1, Set);  TWAIT(arrived, 1, GE);
//
// The first launch is a correct barrier. From the second launch on the flag is
// still 1 from the last launch, so the wait passes at once, even when the peer
// has not even started its second launch: an early pass, which is the real
// damage (the rank goes on to read data the peer has not produced yet).
// It is exposed with a ghost counter: `entered` on rank r counts the launches
// the peer has entered (AtomicAdd 1 before it arrives), and after the barrier
// of launch e each rank asserts entered >= e: assertion.
// With `check clean_exit;` the flags (still 1 after the last launch; and the
// ghost counters) are also reported: dirty_exit.
// There is no deadlock (every wait is satisfied, early) and no lost
// notification (the second Set(1) writes the same value).
protocol bug_reuse_without_reset;

param L = 2;              // launches
ranks 2;
signal arrived;           // barrier flag, on every rank
signal entered;           // ghost: launches the peer has entered

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int peer = 1 - rank;
    int e = launch_id + 1;
    TNOTIFY(entered @ peer, 1, AtomicAdd);  // ghost: "I am in launch e"
    TNOTIFY(arrived @ peer, 1, Set);        // barrier: arrive
    TWAIT(arrived, 1, GE);                  // BUG: still 1 from the last launch
    assert(TTEST(entered, e, GE));          // the peer must be in launch e too
}

check clean_exit;
expect assertion;
expect dirty_exit;

// BUG (a peer's next launch counts in before the root's host has reset the count):
// the rank-0-root barrier of root_multi_launch.sig over L launches, with the host barrier
// AFTER the resets left out. Every host waits at the first host barrier until every
// rank's launch l is over, then resets its signals and relaunches at once. A fast peer's
// launch l + 1 AtomicAdds arrived@0 before rank 0's host has run `reset arrived`; the
// reset then replaces that unread arrival with 0 (lost_notification), and rank 0's next
// kernel waits for nranks - 1 arrivals that will never all come (deadlock).
// (Fix: a host_barrier after the resets, as in root_multi_launch.sig. That one alone is
// enough; the barrier before the resets is the one that may go.)
protocol bug_root_multi_launch_reset_race;
param N = 4;              // ranks (the bench runs 16)
param L = 3;              // launches
ranks N;
signal arrived;           // on rank 0: peers arrived in this launch
signal release;           // on each peer: rank 0 saw them all
host {
    for (int l = 0; l < L; l++) {
        launch;
        host_barrier;                               // every rank's launch l is over
        reset arrived;
        reset release;                              // BUG: no host_barrier after the resets
    }
}
kernel {
    if (rank == 0) {
        TWAIT(arrived, nranks - 1, GE);
        for (int p = 1; p < nranks; p++) {
            TNOTIFY(release @ p, 1, Set);
        }
    } else {
        TNOTIFY(arrived @ 0, 1, AtomicAdd);
        TWAIT(release, 1, GE);
    }
}
expect lost_notification;
expect deadlock;

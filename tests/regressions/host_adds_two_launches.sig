// Regression (partial-order reduction, the adds a host can still make before a
// host_barrier; a scratch copy that counted one launch where two follow each other gave
// ok): host 2 launches twice before its host_barrier, each kernel adding one, so rank 0's
// count of two can be met before host 1's reset, and the Set it then makes is erased.
protocol host_adds_two_launches;
ranks 3;
signal arrived;
signal x;
host {
    if (rank == 1) {
        reset x;
    }
    if (rank == 2) {
        launch;
        launch;
    } else {
        launch;
    }
    host_barrier;
}
kernel {
    if (rank == 0) {
        TWAIT(arrived, 2, GE);
        TNOTIFY(x @ 1, 5, Set);
    }
    if (rank == 2) {
        TNOTIFY(arrived @ 0, 1, AtomicAdd);
    }
    if (rank == 1) {
        TWAIT(x, 5, EQ);
    }
}
expect deadlock;
expect lost_notification;

// Regression (partial-order reduction, the adds a host can still make before a
// host_barrier; a scratch copy that counted only its kernels' adds gave ok): rank 0 waits
// for two arrivals, one from host 2 itself and one from its kernel, then Sets rank 1's flag,
// which host 1 resets before its launch. Host 2's own add must count: with it, rank 0 can
// Set the flag before the reset erases it.
protocol host_adds_own_notify;
ranks 3;
signal arrived;
signal x;
host {
    if (rank == 2) {
        TNOTIFY(arrived @ 0, 1, AtomicAdd);
    }
    if (rank == 1) {
        reset x;
    }
    launch;
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

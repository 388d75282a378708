// Regression (partial-order reduction, the adds a host can still make before a
// host_barrier; a scratch copy that took a kernel that Sets the count as one that adds
// nothing gave ok): rank 2's kernel Sets rank 0's count to 2 at once, so rank 0 can Set
// rank 1's flag before host 1's reset erases it.
protocol host_adds_kernel_set;
ranks 3;
signal arrived;
signal x;
host {
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
        TNOTIFY(arrived @ 0, 2, Set);
    }
    if (rank == 1) {
        TWAIT(x, 5, EQ);
    }
}
expect deadlock;
expect lost_notification;

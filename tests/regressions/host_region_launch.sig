// Regression (partial-order reduction, hosts past a host_barrier; a scratch copy that left
// the kernel of a launch out of what a host may do before its next host_barrier gave ok):
// host 0 resets its flag while host 1 may still launch a kernel that Sets it. The reset
// after the Set erases it, and rank 0 waits forever.
protocol host_region_launch;
ranks 2;
signal s;
host {
    if (rank == 0) {
        reset s;
    }
    launch;
    host_barrier;
}
kernel {
    if (rank == 1) {
        TNOTIFY(s @ 0, 1, Set);
    } else {
        TWAIT(s, 1, EQ);
    }
}
expect deadlock;
expect lost_notification;

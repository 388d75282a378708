// The lease of lease.sig given back in the first launch only: dirty_exit at every N.
protocol lease;

param N = 3;
ranks N;
signal lease;

host {
    launch;
    launch;
}

kernel {
    TNOTIFY(lease, 1, AtomicAdd);
    TWAIT(lease, 1, GE);
    if (launch_id == 0) {
        TNOTIFY(lease, -1, AtomicAdd);   // the bug: the second launch keeps its lease
    }
}

check clean_exit;
expect dirty_exit;

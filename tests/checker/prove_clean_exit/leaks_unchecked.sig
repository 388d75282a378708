// leaks_on_second_launch.sig without `check clean_exit;`: the leak is not a property then (ok).
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

expect ok;

// A lease each rank holds on its own slot while its kernel runs (+1 on entry, -1 on exit),
// over two launches: every lease is given back, so the slots are back at 0 when the hosts
// finish. Proved for every N with the dirty_exit obligation (docs/prove.md).
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
    TNOTIFY(lease, -1, AtomicAdd);
}

check clean_exit;
expect ok;

// Monotone epoch (generation) counters, never reset, advanced once per launch.
// The host launches the kernel L times with no host step in between (no reset,
// no host barrier). In launch `launch_id` the epoch is e = launch_id + 1; every
// rank Sets its own slot epoch[rank] on every peer to e, then waits until every
// peer's slot here is >= e.
//
// Why ok: a rank finishes launch e - 1 only after every peer has written e - 1,
// so it can be at most one launch ahead. Its next Set (e + 1) may overwrite an
// unread e on a slower peer, but the values written to a slot only grow and
// every wait uses GE, so the larger value satisfies the pending wait as well:
// no lost notification. No wait can pass too early either, because a slot only
// reaches e when its owner has entered launch e. The counters are never reset
// and deliberately stay at L after the last launch, so `check clean_exit;` is
// not used here.
protocol epoch_counter;

param N = 2;              // ranks
param L = 3;              // launches
ranks N;
signal epoch[N];

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int e = launch_id + 1;
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(epoch[rank] @ p, e, Set);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(epoch[p], e, GE);
        }
    }
}

expect ok for all N, L;

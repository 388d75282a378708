// BUG: the peer list has room for nranks - 1 peers, but the loop that fills it runs over
// every rank and skips only its own slot index, not its own rank: on the last rank the
// write peers[n] lands one past the end. An index outside a local array is an `error`,
// reported at the write, never a silent write into the next local.
protocol bug_peer_array_overrun;

param N = 3;
ranks N;
signal arrived[N];

kernel {
    int peers[2] = {0};
    int n = 0;
    for (int p = 0; p < nranks; p++) {
        if (p != 0) {              // should be: p != rank
            peers[n] = p;
            n++;
        }
    }
    for (int k = 0; k < nranks - 1; k++) {
        if (peers[k] != rank) {
            TNOTIFY(arrived[rank] @ peers[k], 1, AtomicAdd);
        }
    }
    peers[n] = rank;               // one past the end: n == nranks - 1 == 2
}

expect error;

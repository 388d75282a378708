// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// every peer notifies twice (an outer loop of 2 rounds): the counter reaches 2 (N - 1),
// which overflows int32 for N > 2^30: not ok for every N, and the lemma (one notify per peer) fails.
protocol twice_per_peer_outer;

param N = 4;
ranks N;
signal count;

kernel {
    for (int r = 0; r < 2; r++) {
        for (int p = 0; p < nranks; p++) {
            if (p != rank) {
                TNOTIFY(count @ p, 1, AtomicAdd);
            }
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: ok at small N; overflow for N > 2^30

// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// two TNOTIFYs per peer in one iteration: 2 (N - 1) overflows for N > 2^30.
protocol twice_per_peer_inner;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: ok at small N; overflow for N > 2^30

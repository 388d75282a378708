// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// AtomicAdd 2 per peer, threshold 2 (N - 1): correct for small N, but 2 (N - 1) overflows
// int32 for N > 2^30 (the lemma holds; its bound does not fit int32).
protocol adds_two;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 2, AtomicAdd);
        }
    }
    TWAIT(count, 2 * nranks - 2, GE);
}

// check: ok at small N; overflow for N > 2^30

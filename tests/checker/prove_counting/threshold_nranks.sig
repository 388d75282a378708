// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// waits for nranks arrivals where only the nranks - 1 peers add: deadlock at every N
// (the counter's bound N - 1 is below the threshold).
protocol threshold_nranks;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks, GE);
}

// check: deadlock

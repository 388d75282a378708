// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// the counter starts at -3: it reaches N - 4 < N - 1: deadlock at every N.
protocol init_negative;

param N = 4;
ranks N;
signal count = -3;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: deadlock

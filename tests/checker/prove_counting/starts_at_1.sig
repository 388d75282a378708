// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// the peer loop starts at 1: rank 0 never gets an arrival: deadlock at every N.
protocol starts_at_1;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 1; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: deadlock

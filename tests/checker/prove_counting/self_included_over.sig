// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// no guard (N arrivals) but a threshold of nranks + 1: deadlock at every N.
protocol self_included_over;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p >= 0) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks + 1, GE);
}

// check: deadlock

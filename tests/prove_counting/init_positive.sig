// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// the counter starts at 2 and the wait is for nranks + 1: correct.
protocol init_positive;

param N = 4;
ranks N;
signal count = 2;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks + 1, GE);
}

expect ok;

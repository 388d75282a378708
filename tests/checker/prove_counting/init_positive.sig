// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// the counter starts at 2 and the wait is for nranks + 1: correct up to N = 2^31 - 2, but at
// N = 2^31 - 1 the total 2 + (N - 1) = 2^31 overflows int32: not ok for every N (the lemma holds).
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

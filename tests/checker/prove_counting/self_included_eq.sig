// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// no guard (N arrivals, the own rank's included) and an EQ wait for nranks - 1: a rank that looks
// only after all N arrivals waits forever: deadlock at every N (a bound of N - 1 would hide it).
protocol self_included_eq;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p >= 0) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, EQ);
}

// check: deadlock

// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// a Set of 0 into the counter before the arrivals: a second writer (it may erase a peer's add).
protocol reset_by_set;

param N = 4;
ranks N;
signal count;

kernel {
    TNOTIFY(count, 0, Set);
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: deadlock / lost notification

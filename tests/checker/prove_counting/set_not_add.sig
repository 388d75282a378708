// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// Set for AtomicAdd (specs/bug_counter_set_instead_of_add.sig): the arrivals collapse.
protocol set_not_add;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, Set);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: deadlock from N = 3

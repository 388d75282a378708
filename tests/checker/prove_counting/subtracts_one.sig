// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// every peer adds -1 and each rank waits for the counter to fall to -nranks, which only
// the nranks - 1 peers feed: deadlock at every N. The lemma needs an add > 0 (with -1 its
// bounds init <= count <= init - (N - 1) would contradict each other and prove anything).
protocol subtracts_one;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, -1, AtomicAdd);
        }
    }
    TWAIT(count, 0 - nranks, LE);
}

// check: deadlock

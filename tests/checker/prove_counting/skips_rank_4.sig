// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// the guard also skips rank 4, so from N = 5 on rank 4 gets one arrival too few: deadlock
// only beyond the sizes checked explicitly (2..4). The skipped peer breaks the lemma's step check.
protocol skips_rank_4;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank && p != 4) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: ok at N = 2..4, deadlock from N = 5

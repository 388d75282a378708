// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// rank 0's host never launches the kernel: every other rank gets one arrival too few:
// deadlock at every N. In the initial state rank 0 already counts as past its TNOTIFYs
// (its kernel is not running and its host is not at a launch): the lemma's initiation fails.
protocol host_skips_rank_0;

param N = 4;
ranks N;
signal count;

host {
    if (rank != 0) {
        launch;
    }
}

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

// check: deadlock

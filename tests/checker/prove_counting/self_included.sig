// A variant of specs/all_to_all_counter.sig for tests/test_prove_counting.py:
// no `p != rank` guard: every rank adds to every counter, its own included, and waits for
// nranks: correct (the lemma without self-exclusion).
protocol self_included;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p >= 0) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks, GE);
}

expect ok;

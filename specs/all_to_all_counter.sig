// Counter-based all-to-all barrier: one counter per rank instead of one slot
// per (rank, peer). Every rank AtomicAdds 1 into the `count` cell of every peer,
// then waits until its own counter reaches nranks - 1 with GE.
//
// Why ok: the counter on rank r receives exactly nranks - 1 AtomicAdds (one per
// peer), which cannot be lost, and every rank notifies before it waits, so each
// GE nranks - 1 wait is eventually satisfied. The counter never goes beyond
// nranks - 1 in one launch. Verdict: ok. (With Set instead of AtomicAdd the
// peers' writes collapse into one value: see bug_counter_set_instead_of_add.sig.)
protocol all_to_all_counter;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}

expect ok for all N;

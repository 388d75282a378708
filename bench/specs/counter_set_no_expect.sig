// Benchmark copy of specs/bug_counter_set_instead_of_add.sig WITHOUT its `expect deadlock`
// line, so that `sigproof check --fail-fast` stops at the deadlock (fail-fast stops only
// at an unexpected violation), as SPIN stops at its first error.
//
// BUG (wrong op): the counter-based all-to-all barrier of all_to_all_counter.sig
// with NotifyOp::Set instead of NotifyOp::AtomicAdd for the arrivals:
//     TNOTIFY(count @ p, 1, Set);   // meant: AtomicAdd
//
// Every peer writes the same value 1 into the one counter, so the arrivals
// collapse: the counter is 1, never nranks - 1, and every rank's GE nranks - 1
// wait hangs: deadlock (for nranks >= 3; with 2 ranks the one arrival happens
// to be enough, and -D N=2 checks ok). It is not reported as a lost
// notification: each Set writes the value the cell already holds, so no Set
// changes a value -- the notifications merge rather than get overwritten.
protocol counter_set_no_expect;

param N = 4;
ranks N;
signal count;

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, Set);     // BUG: should be AtomicAdd
        }
    }
    TWAIT(count, nranks - 1, GE);
}



// Zero-sum barrier (each arrival adds, each departure subtracts), reused across
// L launches with no host reset and no host barrier, and checked to leave every
// signal at 0 (`check clean_exit;`).
//
// Arrival: every rank AtomicAdds 1 into `count` on every rank (itself included).
// Wait: count >= nranks on the own copy. Departure: the rank takes its nranks
// arrivals back with AtomicAdd(-nranks) on its own copy.
//
// A fast rank may already add its next-round arrival to a slow rank's copy
// before that rank has departed (or even before all of this round's arrivals
// reached it), so a copy can hold arrivals of two rounds. That is harmless: the
// wait of round k + 1 passes once the copy has received nranks * (k + 1)
// arrivals in total; while some rank has entered only k rounds and nobody is
// more than one round ahead of it, a copy has received at most
// nranks * (k + 1) - 1. So no wait passes early, and (by induction) no rank
// gets two rounds ahead.
//
// The barrier property itself is checked with a ghost counter: `entered[p]` on
// rank r counts the rounds rank p has entered (AtomicAdd 1 before its arrival);
// after passing round e every rank asserts entered[p] >= e for every p. The last
// launch subtracts the ghost again (all L entries have arrived by then), so a
// clean exit is required of everything. Verdict: ok.
protocol zero_sum_barrier;

param N = 3;              // ranks
param L = 2;              // launches (barrier rounds)
ranks N;
signal count;
signal entered[N];        // ghost: rounds entered by each rank

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int e = launch_id + 1;
    for (int p = 0; p < nranks; p++) {
        TNOTIFY(entered[rank] @ p, 1, AtomicAdd);   // ghost: "I am in round e"
    }
    // ---- barrier ----
    for (int p = 0; p < nranks; p++) {
        TNOTIFY(count @ p, 1, AtomicAdd);           // arrive
    }
    TWAIT(count, nranks, GE);
    TNOTIFY(count, -nranks, AtomicAdd);             // depart
    // ---- end of barrier ----
    for (int p = 0; p < nranks; p++) {
        assert(TTEST(entered[p], e, GE));           // everybody reached round e
    }
    if (launch_id == L - 1) {
        for (int p = 0; p < nranks; p++) {
            TNOTIFY(entered[p], -L, AtomicAdd);     // ghost epilogue
        }
    }
}

check clean_exit;
expect ok;

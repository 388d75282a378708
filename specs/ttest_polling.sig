// Polling with TTEST, both forms of docs/isa/comm/TTEST.md:
//  - "Polling with Timeout": a bounded `for` loop of K TTEST polls with other
//    work in between, then (kernels cannot give up) a fallback blocking TWAIT;
//  - "Progress-Based Polling": `while (!TTEST(...)) { /* work */ }`.
//
// Rank 1's blocks each Set their cell of the 2-element tensor `ready` on rank 0.
// Rank 0 block 0 polls the whole tensor (one TTEST = one element-by-element
// pass, false at the first cell still 0) at most K times, then falls back to
// TWAIT; then it Sets `done` to 1 on both ranks (its own copy with a local
// TNOTIFY, rank 1's with a remote one). Every other block spins with
// `while (!TTEST(done, 1, EQ)) {}` until released.
//
// Why ok: each cell is Set once to 1 and never changed, so a failed poll only
// delays; the fallback TWAIT and the spin loops are satisfied once the writers
// have run, which nothing prevents. A spinning loop is not a deadlock as long as
// the all-finished state stays reachable. Verdict: ok.
protocol ttest_polling;

param K = 2;              // bounded polls before the fallback wait
param B = 2;              // blocks per rank (= cells of `ready`)
ranks 2;
blocks B;
signal ready[B];          // on rank 0, one cell per block of rank 1
signal done;              // release flag, on every rank

kernel {
    if (rank == 1) {
        TNOTIFY(ready[block] @ 0, 1, Set);
    }
    if (rank == 0 && block == 0) {
        bool got = false;
        for (int i = 0; i < K; i++) {
            if (TTEST(ready, 1, EQ)) {
                got = true;
                break;
            }
            // ... other work between polls ...
        }
        if (!got) {
            TWAIT(ready, 1, EQ);                // "timeout": block after all
        }
        TNOTIFY(done, 1, Set);                  // release my sibling blocks
        TNOTIFY(done @ 1, 1, Set);              // release rank 1
    } else {
        while (!TTEST(done, 1, EQ)) {
            // ... useful work while waiting ...
        }
    }
}

expect ok;

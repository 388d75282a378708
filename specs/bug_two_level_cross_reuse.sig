// BUG (reuse without reset, two-level barrier): the cross-rank barrier skeleton
// of agents/skills/pto-comm-operator-develop/references/signal-design.md as
// paraphrased in the domain notes ("Two real skeletons"), in its ORIGINAL form:
// the intra-rank counter and the release flag are indexed by the phase, but
// the cross-rank cells are not:
//   block 0: for every peer p: AtomicAdd(cross[me] @ p, 1)
//            for every peer p: TWAIT(cross[p], 1, GE)
// The second time the barrier is called the cells are already 1 (2 after the
// peer's second arrival), so block 0 of a fast rank passes the cross-rank part
// at once, while the peer is still in the previous phase. The fixed version
// (phase-indexed cross cells) is two_level_barrier.sig.
//
// The early pass is made visible with a ghost counter: `entered[p]` on rank r
// counts the phases that rank p's block 0 has entered (AtomicAdd 1 on every
// rank, before it arrives); every block asserts after the barrier of phase
// `phase` that entered[p] >= phase + 1 for every rank p: assertion. Nothing
// hangs (all GE waits are satisfied, too early) and nothing is overwritten.
protocol bug_two_level_cross_reuse;

param N = 2;              // ranks
param B = 2;              // blocks per rank
param P = 2;              // barrier phases per launch
ranks N;
blocks B;
signal intra[P];
signal cross[N];          // BUG: should be cross[P][N]
signal flag[P];
signal entered[N];        // ghost: phases entered by each rank's block 0

kernel {
    for (int phase = 0; phase < P; phase++) {
        if (block != 0) {
            TNOTIFY(intra[phase], 1, AtomicAdd);
            TWAIT(flag[phase], 1, GE);
        } else {
            for (int p = 0; p < nranks; p++) {
                TNOTIFY(entered[rank] @ p, 1, AtomicAdd);   // ghost
            }
            TWAIT(intra[phase], nblocks - 1, GE);
            for (int p = 0; p < nranks; p++) {
                if (p != rank) {
                    TNOTIFY(cross[rank] @ p, 1, AtomicAdd);
                }
            }
            for (int p = 0; p < nranks; p++) {
                if (p != rank) {
                    TWAIT(cross[p], 1, GE);                 // passes at once in phase 1
                }
            }
            TNOTIFY(flag[phase], 1, Set);
        }
        for (int p = 0; p < nranks; p++) {
            assert(TTEST(entered[p], phase + 1, GE));       // all ranks reached `phase`
        }
    }
}

expect assertion;

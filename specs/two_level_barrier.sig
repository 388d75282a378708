// Two-level cross-rank barrier with blocks, in the style of
// agents/skills/pto-comm-operator-develop/references/signal-design.md (see
// "Two real skeletons" in the domain notes), the FIXED version: every cell is
// indexed by the phase, so calling the barrier again never sees old values.
//
// Per phase:
//   blocks != 0 : AtomicAdd(intra[phase] @ me, 1)       -- "my block arrived"
//   block 0     : TWAIT(intra[phase], nblocks - 1, GE)  -- all sibling blocks here
//                 for every peer p: AtomicAdd(cross[phase][me] @ p, 1)
//                 for every peer p: TWAIT(cross[phase][p], 1, GE)
//                 Set(flag[phase] @ me, 1)              -- release my blocks
//   blocks != 0 : TWAIT(flag[phase], 1, GE)
// The kernel passes the barrier P times in one launch.
//
// Why ok: each cell of each phase is written by a fixed set of writers, once
// each (intra: nblocks - 1 AtomicAdds; cross[phase][p] on rank r: one AtomicAdd
// by rank p; flag: one Set of 1 by block 0 of the own rank), and only waited
// with GE on exactly that total, so nothing can be lost and no wait of a later
// phase is satisfied by an earlier phase's writes. A fast block already in the
// next phase only touches the next phase's cells.
//
// The barrier property itself is checked with a ghost counter: `entered[p]` on
// rank r counts the phases rank p's block 0 has entered (AtomicAdd 1 on every
// rank before it arrives); after the barrier of `phase` every block asserts
// entered[p] >= phase + 1 for every rank p. Verdict: ok. (The original skeleton,
// with `cross` not indexed by phase, fails this assertion:
// bug_two_level_cross_reuse.sig.)
protocol two_level_barrier;

param N = 2;              // ranks
param B = 2;              // blocks per rank
param P = 2;              // barrier phases per launch
ranks N;
blocks B;
signal intra[P];
signal cross[P][N];
signal flag[P];
signal entered[N];        // ghost: phases entered by each rank's block 0

kernel {
    for (int phase = 0; phase < P; phase++) {
        // ... compute phase ...
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
                    TNOTIFY(cross[phase][rank] @ p, 1, AtomicAdd);
                }
            }
            for (int p = 0; p < nranks; p++) {
                if (p != rank) {
                    TWAIT(cross[phase][p], 1, GE);
                }
            }
            TNOTIFY(flag[phase], 1, Set);
        }
        for (int p = 0; p < nranks; p++) {
            assert(TTEST(entered[p], phase + 1, GE));       // all ranks reached `phase`
        }
    }
}

expect ok;

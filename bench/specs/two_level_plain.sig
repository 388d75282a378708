// Benchmark copy of specs/two_level_barrier.sig WITHOUT its ghost check (the `entered`
// counters and the TTEST assertions that every rank reached the phase), as the
// two-level barrier of the scale issue's table is written: block 0 of each rank
// gathers its blocks (intra), meets the other ranks' block 0 (cross), then
// releases its blocks (flag). Deadlock freedom is what is checked.
protocol two_level_plain;

param N = 2;              // ranks
param B = 2;              // blocks per rank
param P = 2;              // barrier phases per launch
ranks N;
blocks B;
signal intra[P];
signal cross[P][N];
signal flag[P];

kernel {
    for (int phase = 0; phase < P; phase++) {
        // ... compute phase ...
        if (block != 0) {
            TNOTIFY(intra[phase], 1, AtomicAdd);
            TWAIT(flag[phase], 1, GE);
        } else {
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
    }
}

expect ok;

// BUG (wrong count): the intra-rank half of the two-level barrier
// (two_level_barrier.sig), where block 0 waits for `nblocks` arrivals although
// only the nblocks - 1 other blocks AtomicAdd into the counter (block 0 itself
// does not arrive on it).
//
// The counter on each rank reaches exactly nblocks - 1 and stays there, so block
// 0's `GE nblocks` wait never holds; block 0 never Sets the release flag, so the
// other blocks spin on it as well: deadlock. AtomicAdd never overwrites, so
// there is no lost notification. (Fix: TWAIT(intra, nblocks - 1, GE).)
protocol bug_wrong_count;

param N = 2;              // ranks
param B = 3;              // blocks per rank
ranks N;
blocks B;
signal intra;             // per rank: arrivals of blocks 1..nblocks-1
signal release;           // per rank: block 0 lets the others go

kernel {
    if (block != 0) {
        TNOTIFY(intra, 1, AtomicAdd);
        TWAIT(release, 1, GE);
    } else {
        TWAIT(intra, nblocks, GE);          // BUG: only nblocks - 1 arrive
        TNOTIFY(release, 1, Set);
    }
}

expect deadlock;

// Counted epilogue of a collective at 8 ranks, as collective templates end: when a rank has
// pushed its last chunk to a peer it adds 1 to its own slot done[rank] on that peer, then
// waits until every peer's slot here has counted this call. The counters are never reset:
// call c of launch l is the (l * C + c + 1)-th, so the slots serve every call of every
// launch. Two calls per launch, two launches.
//
// Why ok: each slot has one writer, which adds 1 per call, and a rank cannot start call
// c + 1 before every peer has finished call c with it, so a slot runs at most one call
// ahead; the waits are GE on counts that only grow, so an early add only helps, and one
// peer's add can never stand in for another's (one slot per peer, not one shared count).
protocol counted_epilogue;

param N = 8;              // ranks
param C = 2;              // calls per launch
ranks N;
signal done[N];            // done[p]: calls rank p has finished with this rank

host {
    launch;
    launch;
}

kernel {
    for (int c = 0; c < C; c++) {
        // ... push this rank's chunks to every peer ...
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        for (int i = 1; i < nranks; i++) {
            TNOTIFY(done[rank] @ ((rank + i) % nranks), 1, AtomicAdd);
        }
        for (int i = 1; i < nranks; i++) {
            TWAIT(done[(rank + i) % nranks], launch_id * C + c + 1, GE);
        }
    }
}

expect ok for all N;

// BUG (notify before all writers are done): every block of the producer rank
// writes its own chunk of a buffer on the consumer rank, and block 0 then tells
// the consumer "data ready" -- but block 0 announces it right after ITS chunk,
// without waiting for its sibling blocks.
//
// The payload is modelled by one marker cell per chunk, `chunk[b]` on the
// consumer, Set to 1 when block b's data has landed (i.e. the TPUT followed by
// pipe_barrier(PIPE_ALL) and the Set). The consumer waits for `ready` and then
// checks the whole buffer with assert(TTEST(chunk, 1, EQ)): block 1 may not
// have written yet: assertion (data read too early). No wait hangs and no value
// is overwritten, so that is the only violation.
// (Fix: siblings AtomicAdd an intra-rank counter after their chunk and block 0
// waits for it to reach nblocks - 1 before the notify, as in
// two_level_barrier.sig.)
protocol bug_notify_before_writers_done;

param B = 2;              // blocks of the producer = chunks
ranks 2;
blocks B;
signal chunk[B];          // on rank 1: payload markers
signal ready;             // on rank 1

kernel {
    if (rank == 0) {
        // ... TPUT chunk `block` to rank 1 ...
        pipe_barrier(PIPE_ALL);
        TNOTIFY(chunk[block] @ 1, 1, Set);
        if (block == 0) {
            TNOTIFY(ready @ 1, 1, Set);     // BUG: the other blocks may not be done
        }
    } else {
        if (block == 0) {
            TWAIT(ready, 1, EQ);
            assert(TTEST(chunk, 1, EQ));    // every chunk must be there
        }
    }
}

expect assertion;

// BUG (wrong direction / wrong address): a gather-style "I'm done" signal where
// the index and the target rank are swapped.
//
// Intended: every worker rank r > 0 Sets its slot on the root,
//     TNOTIFY(done[rank] @ 0, 1, Set);
// and the root (rank 0) waits until all worker slots done[1:nranks] are 1.
// Written: TNOTIFY(done[0] @ rank, 1, Set) -- the worker writes slot 0 of its
// OWN copy, a cell nobody waits on. The root's slots stay 0 and its tensor
// wait can never complete: deadlock (the workers finish, the root spins).
// Nothing is overwritten, so there is no lost notification.
protocol bug_wrong_direction;

param N = 3;
ranks N;
signal done[N];           // on the root: one slot per worker

kernel {
    if (rank == 0) {
        TWAIT(done[1:nranks], 1, EQ);
    } else {
        TNOTIFY(done[0] @ rank, 1, Set);     // BUG: should be done[rank] @ 0
    }
}

expect deadlock;

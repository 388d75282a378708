// BUG (the root's loops stop one peer short): the root/peers EQ handshake of
// root_eq_handshake.sig with `p < nranks - 1` for `p < nranks`, the off-by-one of a loop
// written for "the other nranks - 1 ranks" but started at 1. The root never waits for the
// last peer's hello and never answers it: that peer waits for its go forever
// (deadlock). Its hello is left unread, which is no lost_notification: nothing
// overwrites it.
protocol bug_root_eq_last_peer;
param N = 4;              // ranks (the bench runs 16)
ranks N;
signal hello[N];          // on rank 0: hello[p] from peer p
signal go;                // on each peer
kernel {
    if (rank == 0) {
        for (int p = 1; p < nranks - 1; p++) {      // BUG: should be p < nranks
            TWAIT(hello[p], p + 1, EQ);
        }
        for (int p = 1; p < nranks - 1; p++) {      // BUG: should be p < nranks
            TNOTIFY(go @ p, 100 + p, Set);
        }
    } else {
        TNOTIFY(hello[rank] @ 0, rank + 1, Set);
        TWAIT(go, 100 + rank, EQ);
    }
}
expect deadlock;

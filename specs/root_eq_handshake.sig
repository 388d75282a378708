// A root/peers handshake on EQ with a distinct value per peer (bench family of issue 19):
// each peer says hello with its own value; the root waits for each exactly, then answers
// each peer with another value of its own.
protocol root_eq_handshake;
param N = 4;              // ranks
ranks N;
signal hello[N];          // on rank 0: hello[p] from peer p
signal go;                // on each peer
kernel {
    if (rank == 0) {
        for (int p = 1; p < nranks; p++) {
            TWAIT(hello[p], p + 1, EQ);
        }
        for (int p = 1; p < nranks; p++) {
            TNOTIFY(go @ p, 100 + p, Set);
        }
    } else {
        TNOTIFY(hello[rank] @ 0, rank + 1, Set);
        TWAIT(go, 100 + rank, EQ);
    }
}
expect ok;

// Leader election with CAS and a plain LOAD (ok): every rank tries to CAS its id + 1 into
// rank 0's `leader` cell; exactly one wins, and it alone announces `go` to everybody. Then
// every rank LOADs the leader and checks (observe: records a failure, but goes on) that it
// names a rank. FETCH_ADD counts the ranks that saw `go`.
protocol cas_election;

param N = 3;
ranks N;
signal leader;            // on rank 0: 0 = nobody yet, else the winner's rank + 1
signal go;
signal seen;              // on rank 0

kernel {
    bool won = CAS(leader @ 0, 0, rank + 1);
    if (won) {
        for (int p = 0; p < nranks; p++) {
            TNOTIFY(go @ p, 1, Set);
        }
    }
    TWAIT(go, 1, GE);
    int who = LOAD(leader @ 0);
    observe(who >= 1 && who <= nranks);
    int before = FETCH_ADD(seen @ 0, 1);
    observe(before < nranks);
}

expect ok;

// Epoch barrier over three launches at 8 ranks, the MegaMoE / DeepEP way: the counters are
// never reset; in launch l every rank Sets its own slot epoch[rank] on every peer to the
// epoch e = l + 1, then waits until every peer's slot here has reached e. The peers are
// visited starting from the successor, (rank + i) % nranks, as collectives do to spread
// the traffic.
//
// Why ok: a rank enters launch e + 1 only after every peer wrote e, so it is at most one
// launch ahead; its Set of e + 1 may replace an unread e on a slower peer, but the values
// of a slot only grow and every wait is GE: nothing is lost, and no wait passes early.
protocol epoch_barrier;

param N = 8;              // ranks
param L = 3;              // launches
ranks N;
signal epoch[N];

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int e = launch_id + 1;
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TNOTIFY(epoch[rank] @ p, e, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(epoch[p], e, GE);
    }
}

expect ok;
expect ok for all N;

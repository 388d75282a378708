// BUG: ready_queue_runtime_peer.sig without its `served` check. Rank 0 serves the
// queue in an order that comes from runtime data (`int peer = any(1, nranks - 1);`),
// but it does not remember whom it has served: when the pick names the same ready
// producer twice, that producer is counted twice, rank 0 stops after N - 1 items and
// another producer waits for its ack forever.
//
// Expected: deadlock (a producer stuck in TWAIT(ack, 1, EQ)); the counterexample's
// steps show the two picks ("chose peer = 1" twice).
protocol bug_ready_queue_served_twice;

param N = 3;
ranks N;
signal ready[N];          // on the consumer (rank 0): producer p's item is there
signal ack;               // on each producer: the consumer has taken the item

kernel {
    if (rank == 0) {
        int served = 0;                       // bitmask of the producers served
        int count = 0;
        while (count < nranks - 1) {
            int peer = any(1, nranks - 1);    // runtime data: the next producer to look at
            if (TTEST(ready[peer], 1, EQ)) {          // BUG: served twice?
                // ... consume the item of `peer` ...
                TNOTIFY(ack @ peer, 1, Set);
                served = served | (1 << peer);
                count++;
            }
        }
    } else {
        // ... produce the item, TPUT it to rank 0 ...
        pipe_barrier(PIPE_ALL);
        TNOTIFY(ready[rank] @ 0, 1, Set);
        TWAIT(ack, 1, EQ);                    // the buffer is free again
    }
}

expect deadlock;

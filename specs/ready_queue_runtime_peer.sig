// Ready-queue consumer whose next peer comes from runtime data.
//
// Ranks 1..N-1 each produce one item and Set their ready flag on rank 0, then wait
// for rank 0's acknowledgement before they reuse the buffer. Rank 0 serves the queue
// in an order it does not know in advance: which producer it looks at next comes from
// runtime data (a scheduler's pick, a routing table), modelled with
// `int peer = any(1, nranks - 1);` so that every pick, in every round, is explored.
// A producer it has already served, or one whose flag is not set yet, is skipped and
// the next pick is taken.
//
// Why ok: every ready flag is Set once and never overwritten, every ack is Set once,
// and from every state some sequence of picks serves a producer that is ready, so
// every run can still finish (a scheduler that keeps picking a served producer only
// delays, it cannot make the protocol stuck).
protocol ready_queue_runtime_peer;

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
            if (((served >> peer) & 1) == 0 && TTEST(ready[peer], 1, EQ)) {
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

expect ok;

// PTO documentation example: "Producer-consumer pattern" (docs/isa/comm/TNOTIFY.md
// and TWAIT.md): the producer Sets a flag in the consumer's memory to 1 after
// producing, the consumer waits EQ 1 before consuming.
//
// Extended to R rounds over one buffer, as a real kernel does it: round i's flag
// value is i + 1 (a sequence number, so the flag never needs a reset), and the
// consumer hands the buffer back with an `ack` flag in the producer's memory
// before the producer may overwrite it. Rank 0 produces, rank 1 consumes.
//
// Why ok: the producer writes ready = i + 1 only after it has seen ack == i,
// i.e. after the consumer's EQ i wait has read the previous value. So no value
// is overwritten unread, both EQ waits see exactly the value they wait for, and
// every round completes. (Compare bug_ring_eq_overrun.sig: without the ack the
// producer can run ahead and the EQ wait misses its value.)
protocol doc_producer_consumer;

param R = 3;              // rounds
ranks 2;
signal ready;             // on the consumer (rank 1)
signal ack;               // on the producer (rank 0)

kernel {
    for (int i = 0; i < R; i++) {
        if (rank == 0) {
            TWAIT(ack, i, EQ);                  // buffer free again
            // ... produce data, TPUT it to rank 1 ...
            pipe_barrier(PIPE_ALL);
            TNOTIFY(ready @ 1, i + 1, Set);     // data of round i is there
        } else {
            TWAIT(ready, i + 1, EQ);            // wait for round i
            // ... consume data ...
            TNOTIFY(ack @ 0, i + 1, Set);       // give the buffer back
        }
    }
}

expect ok;

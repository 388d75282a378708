// Credit-based flow control whose counters return to zero with an AtomicAdd(-n)
// epilogue (the "credit counters that return to zero" pattern), over two
// launches with nothing reset by the host.
//
// Rank 0 (producer) sends K messages into a ring of W buffer slots on rank 1
// (consumer). `data` on rank 1 counts messages sent (AtomicAdd 1 each), `credit`
// on rank 0 counts slots handed back (AtomicAdd 1 per consumed message). Before
// reusing a slot for message i >= W the producer waits credit >= i - W + 1.
// Teardown: the producer waits until all K credits are back, the consumer has
// waited for all K messages; then each subtracts what it received from its own
// counter with AtomicAdd(-K).
//
// Why ok: all counters are only ever changed by AtomicAdd and read with GE, so
// nothing is lost. A launch's epilogue can race with the peer's next launch
// (e.g. the producer's next message arrives before the consumer's -K), but
// additions commute, and the next launch's waits only count beyond what was
// subtracted; no wait can pass early because a rank's next launch starts only
// after the peer has finished consuming/returning everything of this launch.
// When both hosts are done every counter is back at 0: `check clean_exit;` holds.
protocol credit_epilogue;

param K = 3;              // messages per launch
param W = 2;              // buffer slots (initial credits)
param L = 2;              // launches
ranks 2;
signal data;              // on rank 1: messages sent
signal credit;            // on rank 0: slots returned

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    if (rank == 0) {
        for (int i = 0; i < K; i++) {
            if (i >= W) {
                TWAIT(credit, i - W + 1, GE);       // slot i % W is free again
            }
            // ... TPUT message i into slot i % W on rank 1 ...
            pipe_barrier(PIPE_ALL);
            TNOTIFY(data @ 1, 1, AtomicAdd);
        }
        TWAIT(credit, K, GE);                       // teardown: all credits back
        TNOTIFY(credit, -K, AtomicAdd);             // epilogue: back to zero
    } else {
        for (int i = 0; i < K; i++) {
            TWAIT(data, i + 1, GE);                 // message i is there
            // ... consume slot i % W ...
            TNOTIFY(credit @ 0, 1, AtomicAdd);      // return the slot
        }
        TNOTIFY(data, -K, AtomicAdd);               // epilogue: back to zero
    }
}

check clean_exit;
expect ok;

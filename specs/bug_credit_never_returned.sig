// BUG (credit accounting): the credit-based flow control of credit_epilogue.sig,
// where the consumer handles the last message in a separate tail path that
// forgets to hand its buffer slot back.
//
// The producer's teardown waits until all K credits are back (credit >= K)
// before it subtracts them, but only K - 1 are ever returned. The counter stops
// at K - 1 and the producer's teardown wait hangs: deadlock. (The consumer
// finishes; nothing is overwritten, all updates are AtomicAdd, so there is no
// lost notification.) A simulator run would "pass" here because its TWAIT
// gives up after a spin limit; on the NPU the kernel hangs.
protocol bug_credit_never_returned;

param K = 3;              // messages
param W = 2;              // buffer slots (initial credits)
ranks 2;
signal data;              // on rank 1: messages sent
signal credit;            // on rank 0: slots returned

kernel {
    if (rank == 0) {
        for (int i = 0; i < K; i++) {
            if (i >= W) {
                TWAIT(credit, i - W + 1, GE);       // slot i % W is free again
            }
            pipe_barrier(PIPE_ALL);
            TNOTIFY(data @ 1, 1, AtomicAdd);
        }
        TWAIT(credit, K, GE);                       // teardown: all credits back
        TNOTIFY(credit, -K, AtomicAdd);
    } else {
        for (int i = 0; i < K - 1; i++) {
            TWAIT(data, i + 1, GE);
            // ... consume slot i % W ...
            TNOTIFY(credit @ 0, 1, AtomicAdd);      // return the slot
        }
        TWAIT(data, K, GE);                         // tail: last message
        // ... consume and finalize ...
        // BUG: missing TNOTIFY(credit @ 0, 1, AtomicAdd);
        TNOTIFY(data, -K, AtomicAdd);
    }
}

expect deadlock;

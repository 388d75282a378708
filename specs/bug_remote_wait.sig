// BUG (TWAIT on a remote signal): "pull" style synchronization -- the producer
// marks its OWN flag ready and the consumer spins on the producer's copy:
//     rank 0: TNOTIFY(ready, 1, Set);          // local flag
//     rank 1: TWAIT(ready @ 0, 1, EQ);         // remote read
// TWAIT/TTEST can only read the local NPU's memory (docs/isa/comm/TWAIT.md:
// "signalData must point to local address (on current NPU)"); signals are
// pushed by the writer with TNOTIFY to the waiter's copy. The consumer's wait
// names rank 0's copy: a model run-time error. The erroring process stops
// there (as if it had returned), so nothing else is reported: error.
// (Fix: rank 0 does TNOTIFY(ready @ 1, 1, Set); rank 1 does TWAIT(ready, 1, EQ).)
protocol bug_remote_wait;

ranks 2;
signal ready;

kernel {
    if (rank == 0) {
        TNOTIFY(ready, 1, Set);
    } else {
        TWAIT(ready @ 0, 1, EQ);            // BUG: waits on a remote copy
    }
}

expect error;

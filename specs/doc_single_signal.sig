// PTO documentation example: a single signal, notify / wait.
// (docs/isa/comm/TNOTIFY.md, TWAIT.md: rank 0 sets a flag in rank 1's memory,
// rank 1 spins until the flag equals 1.)
//
// Rank 0 writes flag@1 = 1 with a plain Set; rank 1 waits on its own copy with
// EQ 1. Only one write ever happens to flag@1 and exactly one wait reads it, so
// the wait always completes and nothing is overwritten: verdict ok.
protocol doc_single_signal;

ranks 2;
signal flag;

kernel {
    if (rank == 0) {
        TNOTIFY(flag @ 1, 1, Set);
    } else {
        TWAIT(flag, 1, EQ);
    }
}

expect ok;

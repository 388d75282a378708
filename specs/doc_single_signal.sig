// PTO documentation example: a single signal, notify / wait
// (docs/isa/comm/TNOTIFY.md "Basic set notification" and TWAIT.md "Wait for
// Single Signal"):
//     comm::TNOTIFY(sig, 1, comm::NotifyOp::Set);      // on the remote flag
//     comm::WAIT(sig, 1, comm::WaitCmp::EQ);           // on the local flag
// transcribed with the PTO spellings, which the language accepts as is.
//
// Rank 0 writes flag@1 = 1 with a plain Set; rank 1 waits on its own copy with
// EQ 1. Only one write ever happens to flag@1 and exactly one wait reads it, so
// the wait always completes and nothing is overwritten. Verdict: ok.
protocol doc_single_signal;

ranks 2;
signal flag;

kernel {
    if (rank == 0) {
        comm::TNOTIFY(flag @ 1, 1, comm::NotifyOp::Set);
    } else {
        comm::TWAIT(flag, 1, comm::WaitCmp::EQ);
    }
}

expect ok;

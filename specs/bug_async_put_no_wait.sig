// BUG (missing WAIT_EVENT): an async put is still in flight when the producer notifies.
// TPUT_ASYNC returns at once; only WAIT_EVENT on its event orders the transfer before
// what follows. Verdict: data_race (the consumer's READ against the transfer's write).
// Fixed: async_put_wait_event.sig.
protocol bug_async_put_no_wait;

ranks 2;
buffer src[2];
buffer dst[2];
signal ready;

kernel {
    if (rank == 0) {
        event e = TPUT_ASYNC(dst @ 1, src);
        TNOTIFY(ready @ 1, 1, Set);               // BUG: the transfer may not be done
        WAIT_EVENT(e);
    } else {
        TWAIT(ready, 1, GE);
        READ(dst);
    }
}

expect data_race;

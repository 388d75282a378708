// The fixed producer of bug_tput_notify_no_fence.sig: the payload is fenced before the
// flag. Verdict: ok (under both memory models).
protocol tput_notify_fence;

ranks 2;
buffer payload[4];
signal ready;

kernel {
    if (rank == 0) {
        TPUT(payload @ 1, payload);
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        TNOTIFY(ready @ 1, 1, Set);
    } else {
        TWAIT(ready, 1, EQ);
        READ(payload);
    }
}

expect ok;

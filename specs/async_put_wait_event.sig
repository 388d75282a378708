// The fixed producer of bug_async_put_no_wait.sig: WAIT_EVENT before the notification
// (the completed transfer is then ordered before the TNOTIFY like a fenced write).
// Meanwhile the producer polls with TEST_EVENT, doing other work while the transfer runs.
// Verdict: ok.
protocol async_put_wait_event;

ranks 2;
buffer src[2];
buffer dst[2];
buffer scratch;
signal ready;

kernel {
    if (rank == 0) {
        event e = TPUT_ASYNC(dst @ 1, src);
        if (!TEST_EVENT(e)) {
            WRITE(scratch);                       // overlap: local work meanwhile
        }
        WAIT_EVENT(e);
        TNOTIFY(ready @ 1, 1, Set);
    } else {
        TWAIT(ready, 1, GE);
        READ(dst);
    }
}

expect ok;

// BUG (reuse without reset), with data: a Set(1) + GE 1 handshake used by two launches to
// guard a buffer. In the second launch rank 1's TWAIT passes at once -- the flag still
// holds the first launch's 1 -- and its READ can run while rank 0's second TPUT is still
// writing. Verdict: data_race (the synchronization that was meant to order them is the
// TWAIT, satisfied by the previous launch's value). Fix: `reset ready;` on rank 1's host
// between the launches (with a host barrier), or an epoch (`launch_id + 1`, GE).
protocol bug_set_barrier_reused;

ranks 2;
buffer data[2];
signal ready;             // on rank 1

host {
    launch;
    launch;
}

kernel {
    if (rank == 0) {
        TPUT(data @ 1, data);
        fence;
        TNOTIFY(ready @ 1, 1, Set);
    } else {
        TWAIT(ready, 1, GE);
        READ(data);
    }
}

expect data_race;

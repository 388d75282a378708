// ring_once_eq with the host clearing the flag after its only launch: the predecessor's one
// Set has been read by then, and no later launch reads the flag, so the reset loses nothing
// and every flag is back at 0 when the hosts are done.
protocol reset_at_exit;
param N = 3;
ranks N;
signal flag;
check clean_exit;

host {
    launch;
    reset flag;
}

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, EQ);
}

expect ok for all N;

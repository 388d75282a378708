// ring_once_eq with a second Set of 2 right after the first: the successor's EQ 1 wait may
// not have seen the 1 yet: a lost notification (and the deadlock it leaves).
protocol ring_twice_eq;
param N = 3;
ranks N;
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(flag @ next, 1, Set);
    TNOTIFY(flag @ next, 2, Set);
    TWAIT(flag, 1, EQ);
}

expect lost_notification;

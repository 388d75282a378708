// Each rank raises its successor's flag once and waits for its own with EQ. The Set replaces
// only the INIT 0, which the wait (EQ 1) does not accept: nothing is lost, for every N.
protocol ring_once_eq;
param N = 3;
ranks N;
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, EQ);
}

expect ok for all N;

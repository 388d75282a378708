// A signal of two rows of N slots, `signal log[2 * N]`: each rank raises its slot in the
// second row on its successor, then waits for its own. The dimension is an expression of
// N, so the index `rank + nranks` is in range at every size.
protocol two_rows;
param N = 3;
ranks N;
signal log[2 * N];
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(log[rank + nranks] @ next, 1, Set);
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, EQ);
}

expect ok for all N;

// two_rows.sig with one more signal, of N - 2 elements: none at N = 2, where the spec is
// refused (a signal needs at least one element), so it is not ok for every N >= 2.
protocol two_rows;
param N = 3;
ranks N;
signal log[2 * N];
signal flag;
signal spare[N - 2];       // never used: at N = 2 the spec declares an empty signal

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(log[rank + nranks] @ next, 1, Set);
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, EQ);
}

expect ok;

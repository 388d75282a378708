// One flag per step, written once by the predecessor and waited on once: the ring of the
// field's ring all-reduce without its host reset, N - 1 steps (a computed dimension that no
// rank index covers, so deadlock freedom needs facts about every index of `ready`).
protocol flags_once;

param N = 4;
ranks N;
signal ready[N - 1];

kernel {
    int next = (rank + 1) % nranks;
    for (int s = 0; s < nranks - 1; s++) {
        TNOTIFY(ready[s] @ next, 1, Set);
        TWAIT(ready[s], 1, EQ);
    }
}

expect ok;

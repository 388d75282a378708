// The signal skeleton of specs/data_all_pairs_handoff.sig (no buffers, TPUT, fence or READ):
// what SPIN is given for that family (the Promela export has no data_race).
protocol data_all_pairs_skeleton;
param N = 3;              // ranks
ranks N;
signal ready[N];
kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(ready[rank] @ p, 1, Set);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(ready[p], 1, EQ);
        }
    }
}
expect ok;

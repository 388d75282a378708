// The signal skeleton of specs/data_barrier_two_level.sig (no buffers, TPUT, pipe_barrier,
// dsb or READ): what SPIN is given for that family (the Promela export has no data_race).
protocol data_two_level_skeleton;
param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
signal arrived;
signal done[N];
kernel {
    int next = (rank + 1) % nranks;
    if (block != 0) {
        TNOTIFY(arrived, 1, AtomicAdd);
    } else {
        TWAIT(arrived, nblocks - 1, GE);
        TNOTIFY(done[rank] @ next, 1, Set);
        TWAIT(done[(rank + nranks - 1) % nranks], 1, GE);
    }
}
expect ok;

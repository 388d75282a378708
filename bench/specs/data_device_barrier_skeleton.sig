// The signal skeleton of specs/data_device_barrier.sig (no buffers, TPUT, fence or READ):
// what SPIN is given for that family (the Promela export has no data_race).
protocol data_device_barrier_skeleton;
param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
signal arrived;
signal entered;
signal go;
kernel {
    if (block != 0) {
        TNOTIFY(arrived, 1, AtomicAdd);
        TWAIT(go, 1, EQ);
    } else {
        TWAIT(arrived, nblocks - 1, GE);
        for (int p = 0; p < nranks; p++) {
            if (p != rank) {
                TNOTIFY(entered @ p, 1, AtomicAdd);
            }
        }
        TWAIT(entered, nranks - 1, GE);
        TNOTIFY(go, 1, Set);
    }
}
expect ok;

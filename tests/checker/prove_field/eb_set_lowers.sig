// Mutant of specs/field/epoch_barrier.sig: the Set writes L - launch_id, falling from launch to launch, and the waits ask GE that value: a Set lowers the slot.
protocol epoch_barrier;

param N = 8;              // ranks
param L = 3;              // launches
ranks N;
signal epoch[N];

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int e = L - launch_id;
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TNOTIFY(epoch[rank] @ p, e, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(epoch[p], e, GE);
    }
}

expect ok;

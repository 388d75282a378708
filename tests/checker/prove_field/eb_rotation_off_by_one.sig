// Mutant of specs/field/epoch_barrier.sig: the notify loop targets (rank + i + 1) % nranks: it writes the own slot and skips the successor (deadlock).
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
    int e = launch_id + 1;
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i + 1) % nranks;
        TNOTIFY(epoch[rank] @ p, e, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(epoch[p], e, GE);
    }
}

expect ok;

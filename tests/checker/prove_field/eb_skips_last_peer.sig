// Mutant of specs/field/epoch_barrier.sig: the notify loop stops one peer early (deadlock).
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
    for (int i = 1; i < nranks - 1; i++) {
        int p = (rank + i) % nranks;
        TNOTIFY(epoch[rank] @ p, e, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(epoch[p], e, GE);
    }
}

expect ok;

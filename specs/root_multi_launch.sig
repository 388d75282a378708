// A rank-0-root barrier over L launches with host resets (bench family of issue 19): peers
// count in at rank 0, rank 0 releases them; between launches every host resets its signals,
// with a host barrier on each side of the resets.
protocol root_multi_launch;
param N = 4;              // ranks
param L = 3;              // launches
ranks N;
signal arrived;           // on rank 0: peers arrived in this launch
signal release;           // on each peer: rank 0 saw them all
host {
    for (int l = 0; l < L; l++) {
        launch;
        host_barrier;                               // every rank's launch l is over
        reset arrived;
        reset release;
        host_barrier;                               // every reset is done before launch l + 1
    }
}
kernel {
    if (rank == 0) {
        TWAIT(arrived, nranks - 1, GE);
        for (int p = 1; p < nranks; p++) {
            TNOTIFY(release @ p, 1, Set);
        }
    } else {
        TNOTIFY(arrived @ 0, 1, AtomicAdd);
        TWAIT(release, 1, GE);
    }
}
expect ok;

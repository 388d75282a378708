// The signal skeleton of data_credit_pipeline.sig (no buffer, no TPUT, no READ, no fence):
// what SPIN is given for that family (the Promela export has no data_race).
protocol data_credit_pipeline_skeleton;
param N = 4;              // stages (ranks)
param I = 2;              // items
ranks N;
signal full;
signal credit;
kernel {
    for (int i = 0; i < I; i++) {
        if (rank != 0) {
            TWAIT(full, i + 1, GE);
        }
        if (rank != nranks - 1) {
            if (i > 0) {
                TWAIT(credit, i, GE);
            }
            TNOTIFY(full @ rank + 1, 1, AtomicAdd);
        }
        if (rank != 0) {
            TNOTIFY(credit @ rank - 1, 1, AtomicAdd);
        }
    }
}
expect ok;

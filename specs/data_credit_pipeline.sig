// A data pipeline with credits (bench family of issue 19): stage r receives item i in its
// `slot` from stage r - 1, reads it, forwards it to stage r + 1 with a fenced TPUT and a
// count, and returns a credit to r - 1 once its slot may be overwritten.
protocol data_credit_pipeline;
param N = 4;              // stages (ranks)
param I = 2;              // items
ranks N;
buffer slot;
signal full;              // on stage r: items delivered into its slot
signal credit;            // on stage r: items stage r + 1 is done with
kernel {
    for (int i = 0; i < I; i++) {
        if (rank != 0) {
            TWAIT(full, i + 1, GE);                     // item i is in my slot
            READ(slot);
        }
        if (rank != nranks - 1) {
            if (i > 0) {
                TWAIT(credit, i, GE);                   // the next stage is done with item i - 1
            }
            TPUT(slot @ rank + 1, slot);
            fence;
            TNOTIFY(full @ rank + 1, 1, AtomicAdd);
        }
        if (rank != 0) {
            TNOTIFY(credit @ rank - 1, 1, AtomicAdd);   // my slot may be overwritten
        }
    }
}
expect ok;

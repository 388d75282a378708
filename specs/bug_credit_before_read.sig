// BUG (the credit goes back before the slot is read): the data credit pipeline of
// data_credit_pipeline.sig with each stage returning its credit as soon as the item has
// ARRIVED, before it READs its slot. The previous stage takes that credit as "my next TPUT
// may overwrite your slot", so its TPUT of item i + 1 into the slot can run while this
// stage still reads item i: a data_race on the slot (the early reuse of the field's
// pipelines). (Fix: return the credit after the READ, as in data_credit_pipeline.sig.)
protocol bug_credit_before_read;
param N = 4;              // stages (ranks); the bench runs 16
param I = 2;              // items
ranks N;
buffer slot;
signal full;              // on stage r: items delivered into its slot
signal credit;            // on stage r: items stage r + 1 is done with
kernel {
    for (int i = 0; i < I; i++) {
        if (rank != 0) {
            TWAIT(full, i + 1, GE);                     // item i is in my slot
            TNOTIFY(credit @ rank - 1, 1, AtomicAdd);   // BUG: before the READ below
            READ(slot);
        }
        if (rank != nranks - 1) {
            if (i > 0) {
                TWAIT(credit, i, GE);                   // the next stage is "done" with item i - 1
            }
            TPUT(slot @ rank + 1, slot);
            fence;
            TNOTIFY(full @ rank + 1, 1, AtomicAdd);
        }
    }
}
expect data_race;

// Regression (partial-order reduction, counts; a scratch copy that took a writer that Sets
// the counter as one that adds nothing gave ok here): block 0 waits for a count of two,
// then polls y once. Block 2 Sets the count to 2: it can let block 0 pass before block 1
// Sets y, and the poll fails then.
protocol count_gate_set_writer;
ranks 1;
blocks 3;
signal cnt;
signal y;
kernel {
    if (block == 0) {
        TWAIT(cnt, 2, GE);
        bool seen = TTEST(y, 1, EQ);
        assert(seen);                 // fails when block 0 polls before block 1's Set
    } else if (block == 1) {
        TNOTIFY(y, 1, Set);
    } else {
        TNOTIFY(cnt, 2, Set);
    }
}
expect assertion;

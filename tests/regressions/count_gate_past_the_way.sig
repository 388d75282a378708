// Regression (partial-order reduction, counts; a scratch copy that counted only the adds on
// an adder's way, not what it may add past a TTEST that ends the way, gave ok here): block 0
// waits for two adds, then polls y once. Block 2 adds one, polls z, and adds another: alone
// it can let block 0 pass before block 1 Sets y, and the poll fails then.
protocol count_gate_past_the_way;
ranks 1;
blocks 3;
signal cnt;
signal y;
signal z;
kernel {
    if (block == 0) {
        TWAIT(cnt, 2, GE);
        bool seen = TTEST(y, 1, EQ);
        assert(seen);                 // fails when block 0 polls before block 1's Set
    } else if (block == 1) {
        TNOTIFY(y, 1, Set);
    } else {
        TNOTIFY(cnt, 1, AtomicAdd);
        bool t = TTEST(z, 1, EQ);
        TNOTIFY(cnt, 1, AtomicAdd);
    }
}
expect assertion;

// Regression (partial-order reduction, counts; a scratch copy that let a GE wait hold back
// its block while the adders left out could add exactly what it lacks gave ok here): block
// 0 waits for two adds, then polls y once. Blocks 2 and 3 add one each, so together they can
// let it pass before block 1 Sets y: the poll fails then.
protocol count_gate_exact;
ranks 1;
blocks 4;
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
        TNOTIFY(cnt, 1, AtomicAdd);
    }
}
expect assertion;

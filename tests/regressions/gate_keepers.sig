// Regression (partial-order reduction, gates; a scratch copy that held a block back at a
// TWAIT without keeping the TWAIT's writers gave ok here): block 0 waits for flag, then
// polls y once. Block 2 Sets flag, so block 0 can pass before block 1 Sets y: the poll
// fails then.
protocol gate_keepers;
ranks 1;
blocks 3;
signal flag;
signal y;
kernel {
    if (block == 0) {
        TWAIT(flag, 1, EQ);
        bool seen = TTEST(y, 1, EQ);
        assert(seen);                 // fails when block 0 polls before block 1's Set
    } else if (block == 1) {
        TNOTIFY(y, 1, Set);
    } else {
        TNOTIFY(flag, 1, Set);
    }
}
expect assertion;

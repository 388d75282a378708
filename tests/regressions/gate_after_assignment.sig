// Regression (partial-order reduction, gates; a scratch copy whose walk along a block's way
// did not take its assignments gave ok here): block 1's way starts at its TNOTIFY of y and
// sets k before its TWAIT, so the TWAIT reads flag[1], which block 2 Sets. Block 0's Set of x
// must still be taken in both orders with block 1's TTEST behind that TWAIT: the assert
// fails when block 2 and block 1 go first.
protocol gate_after_assignment;
ranks 1;
blocks 3;
signal flag[2];
signal x;
signal y;
kernel {
    if (block == 0) {
        TNOTIFY(x, 1, Set);
    } else if (block == 1) {
        int k = 0;
        TNOTIFY(y, 1, Set);
        k = k + 1;
        TWAIT(flag[k], 1, EQ);
        bool seen = TTEST(x, 1, EQ);
        assert(seen);                 // fails when block 1 polls before block 0's Set
    } else {
        TNOTIFY(flag[1], 1, Set);
    }
}
expect assertion;

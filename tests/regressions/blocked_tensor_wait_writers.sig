// Regression (partial-order reduction; a scratch copy that took a blocked TWAIT on a tensor
// as needing the writers of its first element only gave ok here): block 0 waits for both
// cells of `flags`, then polls `y` once. Once block 1 has Set flags[0], block 0 still needs
// block 3's Set of flags[1], which must be taken both before and after block 2's Set of y:
// the poll fails when block 3 goes first.
protocol blocked_tensor_wait_writers;
ranks 1;
blocks 4;
signal flags[2];
signal y;
kernel {
    if (block == 0) {
        TWAIT(flags, 1, EQ);
        bool seen = TTEST(y, 1, EQ);
        assert(seen);                 // fails when block 0 polls before block 2's Set
    } else if (block == 1) {
        TNOTIFY(flags[0], 1, Set);
    } else if (block == 2) {
        TNOTIFY(y, 1, Set);
    } else {
        TNOTIFY(flags[1], 1, Set);
    }
}
expect assertion;

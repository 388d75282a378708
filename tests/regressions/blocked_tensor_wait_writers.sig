// Regression (partial-order reduction): a blocked TWAIT on a tensor needs the writers of
// every element it reads, not only of the first (a scratch copy that kept only the first
// element's writers gave ok here). Rank 0 waits for both cells of `flags`, then polls `y`
// once; rank 3 Sets `y`. When rank 2's cell comes last but before rank 3's Set, rank 0's
// poll fails.
protocol blocked_tensor_wait_writers;
ranks 4;
signal flags[2];
signal y;
kernel {
    if (rank == 0) {
        TWAIT(flags, 1, EQ);
        bool seen = TTEST(y, 1, EQ);
        assert(seen);                 // fails when rank 0 polls before rank 3's Set
    } else if (rank == 3) {
        TNOTIFY(y @ 0, 1, Set);
    } else {
        TNOTIFY(flags[rank - 1] @ 0, 1, Set);
    }
}
expect assertion;

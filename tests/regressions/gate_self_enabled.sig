// Regression (partial-order reduction, gates; a scratch copy without the rule's "nothing on
// the way writes what the gate reads" failed only on this): rank 1 Sets the very flag its
// TWAIT reads, so the TWAIT holds back nothing. Rank 0's Set of x must still be taken in
// both orders with rank 1's TTEST behind that TWAIT: the assert fails when rank 1 polls first.
protocol gate_self_enabled;
ranks 2;
signal go;
signal x;
kernel {
    if (rank == 0) {
        TNOTIFY(x @ 1, 1, Set);
    } else {
        TNOTIFY(go, 1, Set);
        TWAIT(go, 1, EQ);
        bool seen = TTEST(x, 1, EQ);
        assert(seen);                 // fails when rank 1 polls before rank 0's Set
    }
}
expect assertion;

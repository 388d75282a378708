// Regression (partial-order reduction, a false ok found by stop 48's audit with
// tests/oracles/strategies_values.py): g takes adds of both signs that cannot overflow, so
// blocks 1 and 2 commute. Block 0's TTEST holds at g = 0, and block 2's decrease keeps it
// holding, so the decrease was taken as independent of the TTEST and left alone in the set.
// But block 1 (left out) may add first: then the TTEST fails, and the assert with it, unless
// block 2's decrease came before. The reduced search said ok; the comparison that holds now
// is a shortcut only where nothing left out can move the element the other way.
protocol bounded_adds_beside_a_test;
ranks 1;
blocks 3;
signal g;
kernel {
    if (block == 0) {
        assert(TTEST(g, 1, LT));      // fails when block 1's add comes before it alone
    } else if (block == 1) {
        TNOTIFY(g, 1, AtomicAdd);
    } else {
        TNOTIFY(g, -1, AtomicAdd);
    }
}
expect assertion;

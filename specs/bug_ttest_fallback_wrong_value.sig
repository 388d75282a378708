// BUG (the fallback wait compares with the wrong value): the ring of TTEST pollers of
// ttest_ring.sig, where the wait after the failed polls asks for the token to reach the
// number of tries K instead of 1. The token is a flag Set to 1 once, so whenever every
// poll of a rank comes too early (the token is not there yet), the rank waits for a value
// that never comes: deadlock. On the device that is a hang; on the CPU simulator the wait
// silently gives up. (Fix: TWAIT(token, 1, GE), as in ttest_ring.sig.)
protocol bug_ttest_fallback_wrong_value;
param N = 4;              // ranks; the bench runs 8
param K = 2;              // polls before the fallback wait
ranks N;
signal token;
kernel {
    if (rank != 0) {
        bool got = false;
        for (int i = 0; i < K; i++) {
            if (TTEST(token, 1, GE)) {
                got = true;
                break;
            }
        }
        if (!got) {
            TWAIT(token, K, GE);                        // BUG: the token is 1, not K
        }
    }
    if (rank != nranks - 1) {
        TNOTIFY(token @ rank + 1, 1, Set);
    }
}
expect deadlock;

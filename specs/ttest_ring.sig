// A ring of TTEST pollers (bench family of issue 19): every rank but 0 polls the token K
// times, then waits for it, and passes it on.
protocol ttest_ring;
param N = 4;              // ranks
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
            TWAIT(token, 1, GE);
        }
    }
    if (rank != nranks - 1) {
        TNOTIFY(token @ rank + 1, 1, Set);
    }
}
expect ok for all N, K;

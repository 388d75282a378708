// PTO documentation example: counter threshold ("Atomic counter increment" in
// docs/isa/comm/TNOTIFY.md together with the "Progress-Based Polling" example of
// docs/isa/comm/TTEST.md, which waits `counter >= expected_count`).
//
// Every block of every worker rank (ranks 1..nranks-1) adds 1 to the counter on
// rank 0 with AtomicAdd; block 0 of rank 0 waits until the counter reaches the
// number of contributions with GE. AtomicAdd never loses an increment, GE is
// satisfied by the exact final count (which is also the maximum the counter can
// reach), so the wait always completes. Verdict: ok.
protocol doc_counter_threshold;

param N = 3;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
signal counter;

kernel {
    if (rank == 0) {
        if (block == 0) {
            TWAIT(counter, (nranks - 1) * nblocks, GE);
        }
    } else {
        TNOTIFY(counter @ 0, 1, AtomicAdd);
    }
}

expect ok;

// Ring pipeline with progress values: at every step each rank Sets `step + 1`
// into the single `flag` of its successor (rank + 1) % nranks, then waits for
// its own flag to reach `step + 1` with GE (its predecessor reached this step).
//
// A rank can run one step ahead of its successor, so the predecessor may Set
// step + 2 over a step + 1 that the successor has not read yet. That is the
// correct "progress value overwritten by a larger one" pattern: every waiter
// uses GE, the values written to one flag only grow, so the larger value
// satisfies the pending wait too and nothing is lost. No flag is ever reset
// (the values are sequence numbers), and every step's wait is eventually
// satisfied. Verdict: ok. (The same ring with EQ waits is
// bug_ring_eq_overrun.sig.)
protocol ring_pipeline_ge;

param N = 3;              // ranks in the ring
param S = 3;              // pipeline steps
ranks N;
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    for (int step = 0; step < S; step++) {
        // ... compute this step's chunk, TPUT it to `next` ...
        pipe_barrier(PIPE_ALL);
        TNOTIFY(flag @ next, step + 1, Set);
        TWAIT(flag, step + 1, GE);
        // ... consume the chunk the predecessor sent ...
    }
}

expect ok for all N, S;

// Ring all-reduce at 8 ranks, as ring collectives are written: a reduce-scatter of N - 1
// steps then an all-gather of N - 1 steps. In every step each rank TPUTs one chunk to its
// successor, fences, and raises the successor's flag for that step; it then waits for its
// own flag of that step before it reduces (or copies) the chunk its predecessor sent.
// One flag per step, written once by one writer, waited on once: nothing is overwritten.
// The host clears the flags after the launch, so the next call starts clean.
protocol ring_allreduce;

param N = 8;                  // ranks in the ring
ranks N;
signal ready[2 * (N - 1)];    // ready[s]: the predecessor's chunk of step s has landed

host {
    launch;
    reset ready;
}

kernel {
    int next = (rank + 1) % nranks;
    for (int s = 0; s < 2 * (nranks - 1); s++) {
        // ... TPUT(chunk[(rank - s) mod N] @ next) ...
        pipe_barrier(PIPE_ALL);
        dsb(DSB_DDR);
        TNOTIFY(ready[s] @ next, 1, Set);
        TWAIT(ready[s], 1, EQ);
        // ... reduce (first N - 1 steps) or copy (last N - 1) the chunk that arrived ...
    }
}

check clean_exit;
expect ok;
expect ok for all N;

// BUG (notify before all writers are done), with data: in the style of gemm_ar's pre-fix
// DeviceBarrier (pto-isa 3ddc1b0c). Every block of a rank TPUTs its part of the result
// into the next rank's `theirs` buffer; block 0 then announces "my data is complete" with
// one Set -- but nothing told block 0 that its sibling blocks' TPUTs were done. The next
// rank's block 0 waits for the announcement and reads every part: block 1's TPUT may
// still be writing its slot. Verdict: data_race (the READ on the receiving rank against
// block 1's TPUT, which no synchronization orders before it).
// Fixed version: data_barrier_two_level.sig (an intra-rank arrival stage first).
protocol bug_data_done_before_siblings;

param N = 2;              // ranks
param B = 2;              // blocks per rank
ranks N;
blocks B;
buffer mine[B];           // each block's part, on its own rank
buffer theirs[B];         // the previous rank's parts, delivered here
signal done[N];           // done[p] on rank r: rank p's parts are all in `theirs`

kernel {
    int next = (rank + 1) % nranks;
    TPUT(theirs[block] @ next, mine[block]);
    if (block == 0) {
        fence;                                    // block 0's own TPUT is ordered ...
        TNOTIFY(done[rank] @ next, 1, Set);       // BUG: ... but not its siblings'
        TWAIT(done[(rank + nranks - 1) % nranks], 1, GE);
        READ(theirs);
    }
}

expect data_race;

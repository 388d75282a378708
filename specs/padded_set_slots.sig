// packed_set_slots.sig with every slot padded to its own 64-byte line (`slot[p][0]` of a
// `[N][16]` signal), as newer kernels do: no two Sets share a line, so nothing is erased
// at either granularity. Verdict: ok (also with --set-granularity line).
protocol padded_set_slots;

param N = 3;
ranks N;
signal slot[N][16];       // slot[p][0] on rank 0; [1..15] is padding

kernel {
    if (rank != 0) {
        TNOTIFY(slot[rank][0] @ 0, 1, Set);
    } else {
        for (int p = 1; p < nranks; p++) {
            TWAIT(slot[p][0], 1, GE);
        }
    }
}

expect ok for all N;

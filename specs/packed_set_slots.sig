// Packed Set slots (hw-native-sys/pto-isa issue 322): every rank p != 0 Sets its own slot
// slot[p] on rank 0, and rank 0 waits for every slot. The slots are packed 16 int32 to a
// 64-byte line. At the default `--set-granularity word` each Set is one store: ok. At
// `--set-granularity line` a Set reads the whole line and writes it back: a peer's Set in
// between is erased -- lost_notification ("cache-line clobber") and the wait for that slot
// hangs (deadlock). Padded to one line per slot: padded_set_slots.sig, ok at both.
protocol packed_set_slots;

param N = 3;
ranks N;
signal slot[N];           // on rank 0: slot[p] = 1 once rank p arrived

kernel {
    if (rank != 0) {
        TNOTIFY(slot[rank] @ 0, 1, Set);
    } else {
        for (int p = 1; p < nranks; p++) {
            TWAIT(slot[p], 1, GE);
        }
    }
}

expect ok;

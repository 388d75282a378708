// BUG (missing fence): the producer TPUTs its payload and TNOTIFYs the consumer without
// `pipe_barrier(PIPE_ALL); dsb(DSB_DDR);` in between -- the PTOAS compiler emitted exactly
// this (hw-native-sys/PTOAS issues 711, 872). TNOTIFY orders what comes after it, not the
// data movement before it, so the flag can land before the payload. Under the default
// `--memory-model pto`: data_race (the consumer's READ against the TPUT). Under
// `--memory-model sc` program order orders them: ok. Fixed: tput_notify_fence.sig.
protocol bug_tput_notify_no_fence;

ranks 2;
buffer payload[4];
signal ready;             // on rank 1

kernel {
    if (rank == 0) {
        TPUT(payload @ 1, payload);
        TNOTIFY(ready @ 1, 1, Set);               // BUG: no fence before it
    } else {
        TWAIT(ready, 1, EQ);
        READ(payload);
    }
}

expect data_race;

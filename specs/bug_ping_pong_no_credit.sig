// BUG (credit accounting): ping_pong_credits.sig without the back-pressure wait. The
// producer refills slot r % 2 in round r + 2 without waiting for the consumer's credit of
// round r: its TPUT can overwrite the slot while the consumer is still reading it.
// Verdict: data_race (the producer's TPUT against the consumer's READ of the same slot).
protocol bug_ping_pong_no_credit;

param ROUNDS = 4;
ranks 2;
buffer buf[2];
signal full[2];           // on rank 1: rounds delivered in slot s
signal credit[2];         // on rank 0: rounds consumed from slot s

kernel {
    if (rank == 0) {
        for (int r = 0; r < ROUNDS; r++) {
            int s = r % 2;
            TPUT(buf[s] @ 1, buf[s]);
            fence;
            TNOTIFY(full[s] @ 1, r / 2 + 1, Set);
        }
    } else {
        for (int r = 0; r < ROUNDS; r++) {
            int s = r % 2;
            TWAIT(full[s], r / 2 + 1, GE);
            READ(buf[s]);
            TNOTIFY(credit[s] @ 0, r / 2 + 1, Set);
        }
    }
}

expect data_race;

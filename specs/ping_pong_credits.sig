// Double-buffered producer/consumer with credits (ok): rank 0 fills slot r % 2 of rank 1's
// buffer in round r, fences, and raises that slot's round count; rank 1 waits for it,
// reads the slot and returns a credit. Before reusing a slot (from round 2 on) the
// producer waits for the credit of the round that last used it: back-pressure. Every flag
// only grows and is waited with GE, so nothing is lost either.
protocol ping_pong_credits;

param ROUNDS = 4;
ranks 2;
buffer buf[2];
signal full[2];           // on rank 1: rounds delivered in slot s
signal credit[2];         // on rank 0: rounds consumed from slot s

kernel {
    if (rank == 0) {
        for (int r = 0; r < ROUNDS; r++) {
            int s = r % 2;
            if (r >= 2) {
                TWAIT(credit[s], r / 2, GE);      // the consumer is done with this slot
            }
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

expect ok;

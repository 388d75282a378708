// Regression (found while writing specs/): the lost_notification report must name
// the unread write. Rank 0 block 0 Sets flag@1 = 1 (read by rank 1), then block 1
// Sets 1 again (line 16: same value, unread again) and then 2, destroying the unread 1
// that rank 1's second EQ 1 wait needs. The report used to name the first Set,
// which had been read; it must name the same-value Set at 16:13, and the trace
// shows that step's effect as "flag@1: 1 -> 1 (same value)".
ranks 2;
blocks 2;
signal flag;
kernel {
    if (rank == 0) {
        if (block == 0) {
            TNOTIFY(flag @ 1, 1, Set);      // A
        } else {
            TWAIT(flag, 7, EQ);             // released by rank 1 after it read A
            TNOTIFY(flag @ 1, 1, Set);      // B: same value, after A was read
            TNOTIFY(flag @ 1, 2, Set);      // C: overwrites B's unread 1
        }
    } else {
        if (block == 0) {
            TWAIT(flag, 1, EQ);
            TNOTIFY(flag @ 0, 7, Set);
            TWAIT(flag, 1, EQ);
        }
    }
}
expect lost_notification;
expect deadlock;

// BUG (reset racing a fast peer): a two-rank barrier reused for R rounds with a
// single flag per rank that each rank clears itself after passing:
//     TNOTIFY(flag @ peer, 1, Set);  TWAIT(flag, 1, EQ);  TNOTIFY(flag, 0, Set);
//
// Rank A can pass round r as soon as B has notified it, clear its own flag and
// already notify B for round r + 1 -- while B has read its round-r 1 but has not
// cleared its flag yet. B's Set(0) then erases A's round-(r+1) notification,
// which nobody has read and which B's next EQ 1 wait needed: lost_notification.
// B then notifies A for round r + 1 and waits EQ 1 on a flag nobody will set
// again, while A waits for round r + 2 ... or has finished: deadlock.
// (Fixes: round numbers as values with GE waits, as in ring_pipeline_ge.sig;
// or zero-sum: AtomicAdd(flag @ peer, 1), wait GE 1, then AtomicAdd(flag, -1)
// on the own flag instead of Set(0), which cannot erase the peer's next add.)
protocol bug_reset_race;

param R = 2;              // rounds
ranks 2;
signal flag;

kernel {
    int peer = 1 - rank;
    for (int r = 0; r < R; r++) {
        TNOTIFY(flag @ peer, 1, Set);
        TWAIT(flag, 1, EQ);
        TNOTIFY(flag, 0, Set);              // BUG: may clear the peer's next notify
    }
}

expect lost_notification;
expect deadlock;

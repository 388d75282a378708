// BUG (reset racing a slow peer): the all-to-all barrier of the language
// contract, section 7 (all_to_all_barrier.sig), "made reusable" by having every
// rank clear, after its waits, the slot it wrote on every peer:
//     TNOTIFY(arrived[rank] @ p, 0, Set);
//
// A rank passes its waits as soon as every peer has ARRIVED, not when every
// peer has also passed its own waits. So rank r can clear arrived[r] on a peer
// p that has not yet read it: the Set(0) replaces an unread notification that
// p's GE 1 wait needed with a value it cannot accept: lost_notification. Rank r
// will never write that slot again, so p waits forever: deadlock.
// (Fixes: epoch values with GE waits (epoch_counter.sig), or zero-sum: every
// rank takes back the arrivals on its OWN copy with AtomicAdd(-1) after its own
// waits (zero_sum_barrier.sig).)
protocol bug_a2a_reset_after_wait;

param N = 4;
ranks N;
signal arrived[N];

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(arrived[p], 1, GE);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(arrived[rank] @ p, 0, Set);     // BUG: p may not have read it
        }
    }
}

expect deadlock;
expect lost_notification;

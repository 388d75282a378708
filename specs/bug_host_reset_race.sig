// BUG (host reset racing a fast peer): signals cleared by the host between
// launches (the usual memset before relaunch), but without a host barrier that
// keeps the peers' next launch from starting before the reset is done.
//
// Every launch rank 0's kernel Sets flag@1 = 1 and rank 1's kernel waits
// flag >= 1. Every host runs `launch; reset flag;` L times. Rank 0's host does
// not wait for rank 1's: its next launch can Set flag@1 = 1 again after rank
// 1's kernel has consumed the previous 1 but before rank 1's host has run its
// reset. The reset then replaces a notification nobody has read yet, and that
// the next launch's GE 1 wait needed, with 0: lost_notification. Rank 0 has
// nothing more to send, so rank 1's next kernel waits forever: deadlock.
// (Fix: `launch; reset flag; host_barrier;` -- see the fixed variant in the
// comment at the end.)
protocol bug_host_reset_race;

param L = 2;              // launches
ranks 2;
signal flag;              // on rank 1

host {
    for (int l = 0; l < L; l++) {
        launch;
        reset flag;                         // BUG: peers may already be in launch l + 1
    }
}

kernel {
    if (rank == 0) {
        TNOTIFY(flag @ 1, 1, Set);
    } else {
        TWAIT(flag, 1, GE);
    }
}

expect lost_notification;
expect deadlock;

// Fixed host (ok): the reset is done on every rank before anybody relaunches.
//     for (int l = 0; l < L; l++) { launch; reset flag; host_barrier; }
// The barrier must come AFTER the reset: `launch; host_barrier; reset flag;`
// has the same race (rank 0 relaunches while rank 1's host is still resetting)
// and gives the same two violations.

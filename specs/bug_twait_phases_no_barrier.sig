// BUG: the multi-phase TWAIT test of twait_phases_barrier.sig (in the style of
// tests/npu/a2a3/comm/st/testcase/twait/twait_kernel.cpp) WITHOUT the host
// barrier between launches. Rank 0 Sets 1, 3, 5 into rank 1's signal in
// launches 0, 1, 2; rank 1 waits EQ 1, GE 3, EQ 5.
//
// Nothing ties rank 0's launches to rank 1's: rank 0 can finish launch 0 and
// Set 3 in launch 1 before rank 1's EQ 1 wait has read the 1. The unread 1 is
// replaced by 3, which the EQ 1 wait cannot accept: lost_notification. After
// that the value only moves on to 5, so rank 1 spins on EQ 1 forever: deadlock.
// (The overwrite of an unread 3 by 5 alone would be harmless: that wait is GE 3.)
protocol bug_twait_phases_no_barrier;

param PHASES = 3;
ranks 2;
signal sig;

host {
    for (int k = 0; k < PHASES; k++) {
        launch;                             // no host_barrier here
    }
}

kernel {
    int value = 2 * launch_id + 1;          // 1, 3, 5
    if (rank == 0) {
        TNOTIFY(sig @ 1, value, Set);
    } else {
        if (launch_id == 1) {
            TWAIT(sig, value, GE);
        } else {
            TWAIT(sig, value, EQ);
        }
    }
}

expect lost_notification;
expect deadlock;

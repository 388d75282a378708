// The multi-phase TWAIT system test, in the style of
// tests/npu/a2a3/comm/st/testcase/twait/twait_kernel.cpp: three launches of one
// kernel; in launch k rank 0 Sets the signal on rank 1 to 1, 3, 5, and rank 1
// waits for it with EQ 1, GE 3, EQ 5 respectively. The host runs
// `launch; host_barrier;` for every phase.
//
// Why ok: rank 0's launch k + 1 can only start after the host barrier, which
// every host reaches only after its own launch k returned; so rank 1's wait of
// phase k has read its value before rank 0 writes the next one. Every Set
// replaces a value that has been read, and every wait sees exactly its value.
// The signal stays at 5 at the end (the test checks it), so no clean_exit.
// Without the host barrier the phases overlap: bug_twait_phases_no_barrier.sig.
protocol twait_phases_barrier;

param PHASES = 3;
ranks 2;
signal sig;

host {
    for (int k = 0; k < PHASES; k++) {
        launch;
        host_barrier;
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

expect ok;

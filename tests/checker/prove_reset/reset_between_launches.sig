// reset_at_exit over two launches, the host clearing the flag after each: a predecessor
// already in its second launch may raise the flag before this host clears it after the
// first, and the reset erases a notification the second launch waits for.
protocol reset_between_launches;
param N = 3;
ranks N;
signal flag;

host {
    for (int l = 0; l < 2; l++) {
        launch;
        reset flag;
    }
}

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, EQ);
}

expect lost_notification;

// Skeleton of kernel ScoreboardKernel (st_scoreboard.cpp), extracted by sigproof frontends.cpp.
// Regenerate rather than edit: python -m frontends.cpp st_scoreboard.cpp
protocol ScoreboardKernel;

param NRANKS = 3;    // ranks from the config
param NBLOCKS = 1;    // blocks from the kernel launch
ranks NRANKS;
blocks NBLOCKS;
signal board[NRANKS];    // st_scoreboard.cpp:6:48

kernel {
    TNOTIFY(board[rank] @ 0, 1000 + rank, Set);
    if (rank == 0) {
        for (int r = 0; r < nranks; r++) {
            TWAIT(board[r], 1000 + r, EQ);
        }
    }
    pipe_barrier(PIPE_ALL);
}

host {
    launch;
}

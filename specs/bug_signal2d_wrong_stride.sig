// BUG: the producers write their tile flags through a 2-D view with row stride 8 (the
// padded layout of the window), but the consumer builds its view without the stride,
// `Signal2D<N, 2>(window)`, which packs the rows: it waits on window[0..5], and
// window[2..5] is padding nobody writes. Rank 0 hangs.
protocol bug_signal2d_wrong_stride;

param N = 3;
ranks N;
signal window[N * 8];
view tiles[N][2] = window[0::8];     // the producers' layout
view packed[N][2] = window;          // the consumer's: rows of 2, no padding

kernel {
    for (int c = 0; c < 2; c++) {
        TNOTIFY(tiles[rank][c] @ 0, 1, Set);
    }
    if (rank == 0) {
        TWAIT(packed, 1, EQ);
    }
}

expect deadlock;

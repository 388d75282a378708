// Per-tile ready flags laid out as a 2-D view over a flat window, as `Signal2D<R, C>(ptr,
// stride)` does in the C++ code: row r (the producer rank) starts at r * 8, its C = 2 tile
// flags are contiguous, the rest of each 8-element row is padding. Each rank sets its row
// on rank 0; rank 0 waits for the whole 2-D view at once (one multi-element TWAIT).
//
// Why ok: row r of the view is written only by rank r, each flag once with Set 1; rank
// 0's TWAIT reads exactly the R * C flags (not the padding) with EQ 1. Verdict: ok.
protocol signal2d_tile_flags;

param N = 3;
ranks N;
signal window[N * 8];
view tiles[N][2] = window[0::8];     // tiles[r][c] is window[r * 8 + c]

kernel {
    for (int c = 0; c < 2; c++) {
        TNOTIFY(tiles[rank][c] @ 0, 1, Set);
    }
    if (rank == 0) {
        TWAIT(tiles, 1, EQ);
    }
}
expect ok;

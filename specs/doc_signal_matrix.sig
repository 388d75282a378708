// PTO documentation example: "Wait for Signal Matrix" (docs/isa/comm/TWAIT.md,
// also the TTEST.md "Test Signal Matrix" example):
//     comm::Signal2D<4, 8> grid(signal_matrix);
//     comm::WAIT(grid, 1, comm::WaitCmp::EQ);  // waits until all 32 signals == 1
//
// Rank 0 owns the 4x8 grid and waits on the whole tensor with EQ 1. The 32
// cells are written by W worker ranks (ranks 1..W): worker w owns the w-th band
// of ROWS / W rows and Sets every cell of it, one TNOTIFY per cell, in
// row-major order (W must divide ROWS).
//
// The tensor wait is modelled with hardware semantics: element by element,
// restarting the pass at the first cell that is still 0. Every cell is Set
// exactly once to 1 and never changed again, so once all workers are done a
// full pass succeeds; no value is ever overwritten. Verdict: ok.
//
// Keep W small: each worker's progress multiplies the state space.
protocol doc_signal_matrix;

param W = 2;              // worker ranks
const ROWS = 4;
const COLS = 8;
ranks W + 1;
signal grid[ROWS][COLS];

kernel {
    if (rank == 0) {
        TWAIT(grid, 1, EQ);                 // all 32 cells, one read per step
    } else {
        for (int r = (rank - 1) * ROWS / W; r < rank * ROWS / W; r++) {
            for (int c = 0; c < COLS; c++) {
                TNOTIFY(grid[r][c] @ 0, 1, Set);
            }
        }
    }
}

expect ok;

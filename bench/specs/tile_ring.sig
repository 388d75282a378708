// Tiles around a ring (bench for buffer blocks, model/grain.py): every rank TPUTs T tiles of
// W elements to the next rank, each fenced and flagged, then waits for and reads the T tiles
// it receives. Every access is a whole tile, so each tile is one happens-before block.
protocol tile_ring;

param N = 4;
param T = 4;
param W = 1024;

ranks N;
buffer send[T * W];
buffer recv[T * W];
signal ready[T];

kernel {
    for (int t = 0; t < T; t += 1) {
        TPUT(recv[t * W:(t + 1) * W] @ (rank + 1) % nranks, send[t * W:(t + 1) * W]);
        fence;
        TNOTIFY(ready[t] @ (rank + 1) % nranks, 1, Set);
    }
    for (int t = 0; t < T; t += 1) {
        TWAIT(ready[t], 1, EQ);
        READ(recv[t * W:(t + 1) * W]);
    }
}

expect ok;

// Ring pipeline with one flag per round, as a ring all-gather kernel is usually
// written: in round `step` every rank forwards its chunk to its successor
// (TPUT, not modelled), raises the successor's flag for that round, and waits
// for its own flag of that round before it consumes the chunk its predecessor
// sent. Every (round, rank) flag is written once, by one writer, and waited on
// once with EQ, so nothing is overwritten or reused: ok. The host clears the
// flags after the launch so that the next call starts clean.
//
//   for (int step = 0; step < S; step++) {
//       TPUT(next, chunk[step]);
//       TNOTIFY(flag[step] @ next, 1, Set);
//       TWAIT(flag[step], 1, EQ);
//   }
protocol ring_pipeline_flags;

param N = 5;              // ranks in the ring
param S = 3;              // pipeline rounds
ranks N;
signal flag[S];

host {
    launch;
    reset flag;
}

kernel {
    int next = (rank + 1) % nranks;
    for (int step = 0; step < S; step++) {
        // ... TPUT this round's chunk to `next` ...
        pipe_barrier(PIPE_ALL);
        TNOTIFY(flag[step] @ next, 1, Set);
        TWAIT(flag[step], 1, EQ);
        // ... consume the chunk the predecessor sent ...
    }
}

check clean_exit;
expect ok;

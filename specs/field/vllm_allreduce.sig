// vLLM's custom all-reduce (two-shot), its signals only: every block of every rank meets the
// same block of every peer at a start barrier and at an end barrier. Each block keeps its own
// flag, one more per call (here: launch_id + 1), writes it into its slot on every peer and
// waits until every peer's slot here has reached it. The reduce-scatter and all-gather
// between the barriers move data only and are left out.
//
// Why ok: the flag of a slot only grows from call to call and every wait is GE (vLLM spins
// while the slot is < flag), so a peer already in the next call, whose larger flag replaces
// an unread one, loses nothing; the end barrier keeps a rank from starting the next call
// while a peer still reads its buffers.
protocol vllm_custom_allreduce;

param N = 8;              // ranks
param B = 2;              // blocks per rank
param L = 2;              // calls (launches)
ranks N;
blocks B;
signal start[B][N];       // start[block][peer]: the peer's flag for this block, here
signal end[B][N];

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    int flag = launch_id + 1;
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TNOTIFY(start[block][rank] @ p, flag, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(start[block][p], flag, GE);
    }
    // two-shot reduce-scatter and all-gather through the peers' buffers
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TNOTIFY(end[block][rank] @ p, flag, Set);
    }
    for (int i = 1; i < nranks; i++) {
        int p = (rank + i) % nranks;
        TWAIT(end[block][p], flag, GE);
    }
}

expect ok;

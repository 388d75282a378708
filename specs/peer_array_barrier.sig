// A barrier over a list of peers held in a small local array, the way kernels keep
// `int peers[K] = {...}` for a neighbourhood exchange: each rank notifies its left and
// right neighbour on a ring, then waits until both have notified it.
//
// Why ok: peers[0] and peers[1] are the ring neighbours (distinct for N >= 3), so slot
// arrived[k] on a rank is written once, by its neighbour k, with AtomicAdd 1; every rank
// notifies before it waits. Verdict: ok.
protocol peer_array_barrier;

param N = 3;
ranks N;
signal arrived[2];     // arrived[0]: from the right neighbour, arrived[1]: from the left

kernel {
    int peers[2] = {(rank + nranks - 1) % nranks, (rank + 1) % nranks};   // left, right
    for (int k = 0; k < 2; k++) {
        TNOTIFY(arrived[k] @ peers[k], 1, AtomicAdd);   // to the left: "from your right"
    }
    for (int k = 0; k < 2; k++) {
        TWAIT(arrived[k], 1, GE);
    }
}

expect ok;

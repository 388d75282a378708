// The all-to-all barrier of the language contract, section 7, verbatim.
// Every rank adds 1 to its own slot `arrived[rank]` on every peer, then waits
// until each peer has added 1 to its slot here.
//
// Why ok: slot arrived[p] on rank r is written only by rank p, once, with
// AtomicAdd 1, and read only by rank r with GE 1. Every rank notifies all peers
// before it waits, so every wait's value eventually arrives; AtomicAdd never
// overwrites anything. Single launch, so no reuse problem. Verdict: ok.
protocol all_to_all_barrier;

param N = 4;
ranks N;
signal arrived[N];

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(arrived[p], 1, GE);
        }
    }
}

expect ok for all N;

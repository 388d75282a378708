// Each rank writes its own number + 1 into its slot on its successor and waits, with EQ, for
// its predecessor's slot to hold the predecessor's number + 1. The wait's threshold depends
// on its local `prev`, the same local that picks the slot: only a wait on slot[p] with
// threshold p + 1 reads slot[p], and the Set writes exactly that.
protocol ring_slot_eq;
param N = 3;
ranks N;
signal slot[N];

kernel {
    int prev = (rank + nranks - 1) % nranks;
    TNOTIFY(slot[rank] @ ((rank + 1) % nranks), rank + 1, Set);
    TWAIT(slot[prev], prev + 1, EQ);
}

expect ok for all N;

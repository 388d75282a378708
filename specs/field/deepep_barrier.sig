// DeepEP's barrier_block over the ranks of a node (intranode kernels call it at their start
// and at their end). Each rank has a row of N counters, sig[i] on rank r standing for
// barrier_signal_ptrs[r][i]. Thread i of rank r adds TAG to its own counter sig[i] and
// subtracts TAG from its slot sig[r] on rank i; then every thread spins until its own counter
// is <= 0. The threads of a rank are written as one loop, from the rank's successor on, as
// the kernel's threads would go round the peers.
//
// Why ok: sig[i] on rank r gets +TAG from r and -TAG from i, once per barrier each; r adds
// before it waits, so its counter is <= 0 only once i has subtracted for this barrier. A
// fast peer may already subtract for the next barrier, which takes the counter below 0:
// `<= 0` still passes there, while `== 0` (the mutation in tests/test_field_specs.py) can
// miss the zero and deadlock. The counters stay within int32 (at most K * L adds of TAG
// each way), so the partial-order reduction lets the adds commute.
protocol deepep_barrier_block;

param N = 8;              // ranks
param K = 2;              // barriers per kernel (at its start and at its end)
param L = 2;              // launches
param TAG = 1024;         // FINISHED_SUM_TAG
ranks N;
signal sig[N];            // barrier_signal_ptrs[rank][i], on every rank
check clean_exit;         // every counter is back at 0 for the next kernel

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < nranks; i++) {
            int p = (rank + i) % nranks;
            TNOTIFY(sig[p] @ rank, TAG, AtomicAdd);
            TNOTIFY(sig[rank] @ p, -TAG, AtomicAdd);
        }
        for (int i = 0; i < nranks; i++) {
            int p = (rank + i) % nranks;
            TWAIT(sig[p], 0, LE);
        }
    }
}

expect ok;

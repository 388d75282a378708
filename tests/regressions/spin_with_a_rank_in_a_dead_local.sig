// Regression (rank rotation, found by stop 49's audit of the symmetry checks): each rank
// ends spinning forever in a local loop that keeps assigning a rank to `u`, which nobody
// reads. The spinning process's state kept `u` unzeroed (the states at visible statements
// zero their dead locals), and renaming the ranks renames live locals only: the renamed
// state was no state of the renamed run, and rebuilding the deadlock's trace stopped with
// an internal error ("a renamed step is not a step of the concrete state"). Now a
// spinning process's dead locals are zeroed like any other state's.
protocol spin_with_a_rank_in_a_dead_local;
ranks 3;
signal f;
kernel {
    int u = (rank + 2) % nranks;
    TNOTIFY(f @ u, 1, AtomicAdd);
    if (TTEST(f, 1, GE)) {
        while (true) {
            u = (rank + 1) % nranks;    // a rank, assigned and never read
        }
    }
}
expect deadlock;

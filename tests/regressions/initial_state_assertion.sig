// Regression (found by the differential tests): a violation that already happens in the
// initial state (host 1's first local statements) has the shortest counterexample, an
// empty trace; the checker used to report a later, longer one (rank 0's kernel assert).
ranks 2;
signal f;
expect assertion;
host { assert(rank < 1); launch; }
kernel { TNOTIFY(f @ rank, 1, Set); assert(rank == 1); }  // the notify: so that the check is not vacuous

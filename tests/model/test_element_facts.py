"""Facts about signal elements that the ghost and the reduction rely on (model/analysis.py).

Elements that only grow (`rising`, `never_lost`, `launch_bound`):

An element whose every write is a Set by the blocks of one rank, with one value per launch
that never decreases from launch to launch, only grows; read only by GE/GT it can lose no
notification, so it needs no lost-notification ghost, and the partial-order reduction takes
its Sets as increases. Each test below changes one thing the proof relies on and checks that
the analysis then refuses, and that the verdict, reduced or not, is the reference's.
The random differential tests (tests/model/test_reduction.py, tests/model/test_differential.py) cover
the same facts on generated protocols, about 40% of which have such an element.

Counters written only by AtomicAdds that can never overflow (`bounded_adds`): any two of
their adds commute, whatever their signs (DeepEP's barrier_block adds +TAG and -TAG).
"""

from __future__ import annotations

import pytest
from oracles.reference import Reference
from oracles.agreement import compile_text

from checker.check import Options, check_program
from model import System
from model.analysis import Analysis

EPOCH = """
protocol epoch;
param N = 3;
ranks N;
signal epoch[N] INIT;
host {
    for (int l = 0; l < 3; l++) {
        launch;
        HOST
    }
}
kernel {
    int e = VALUE;
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(epoch[WHO] @ p, e, Set);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(epoch[p], e, CMP);
        }
    }
}
"""


def epoch(value="launch_id + 1", cmp="GE", who="rank", host="", init="", blocks=1, n=3):
    text = EPOCH.replace("N = 3", f"N = {n}").replace("VALUE", value).replace("CMP", cmp).replace("WHO", who).replace("HOST", host) \
        .replace("INIT", init)
    if blocks > 1:
        text = text.replace("ranks N;", f"ranks N;\nblocks {blocks};")
    return compile_text(text)


def off_diagonal(program) -> int:
    """epoch[r] on every rank p != r: the elements the Sets write."""
    n, e = program.nranks, program.elems_per_rank
    return sum(1 << (p * e + r) for p in range(n) for r in range(n) if p != r)


def verdicts(program) -> tuple:
    ref = Reference(System(program), program.clean_exit, max_states=50_000)
    reduced = check_program(program, "t.sig", Options())
    plain = check_program(program, "t.sig", Options(por=False, symmetry=False))
    return ref.violated(clean_exit=program.clean_exit), set(reduced.violated), set(plain.violated)


def test_an_epoch_counter_only_grows_and_needs_no_ghost():
    program = epoch()
    a = Analysis(program)
    assert a.launch_bound(0) == 3
    assert a.rising() == off_diagonal(program)
    assert a.never_lost() == off_diagonal(program)
    assert System(program).G == 0  # no lost-notification ghost left
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain == set()


def test_the_reduction_takes_its_sets_as_increases():
    program = epoch()
    plain = check_program(program, "t.sig", Options(por=False, symmetry=False))
    reduced = check_program(program, "t.sig", Options(symmetry=False))
    assert reduced.stats.states * 10 < plain.stats.states, (reduced.stats.states, plain.stats.states)


@pytest.mark.parametrize("why, change", [
    ("the values fall from launch to launch", dict(value="3 - launch_id", n=2)),
    ("every rank writes epoch[0]", dict(who="0")),
    ("the host resets it between launches", dict(host="reset epoch;", n=2)),
    ("it starts above the first value", dict(init="= 5", n=2)),
    ("two blocks of a launch write different values", dict(value="launch_id * 2 + block", blocks=2, n=2)),
])
def test_what_breaks_the_proof_is_refused_and_judged_like_the_reference(why, change):
    program = epoch(**change)
    a = Analysis(program)
    assert a.never_lost() & off_diagonal(program) != off_diagonal(program), why
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain, why


def test_falling_epochs_lose_a_notification_reduced_or_not():
    ref, reduced, plain = verdicts(epoch(value="3 - launch_id", n=2))
    assert ref == reduced == plain and "lost_notification" in ref


def test_an_eq_reader_keeps_the_ghost_of_a_rising_element():
    program = epoch(cmp="EQ")
    a = Analysis(program)
    assert a.rising() == off_diagonal(program)
    assert a.never_lost() == 0
    assert System(program).G > 0
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain and "lost_notification" in ref


def test_an_add_is_not_a_set():
    program = compile_text(EPOCH.replace("e, Set", "1, AtomicAdd").replace("VALUE", "launch_id + 1")
                           .replace("CMP", "GE").replace("WHO", "rank").replace("HOST", "").replace("INIT", ""))
    assert Analysis(program).rising() == 0


def test_launches_without_a_bound_give_no_proof():
    program = compile_text("""
protocol poll;
ranks 2;
signal go;
signal flag[2];
host {
    while (!TTEST(go, 1, EQ)) {
        launch;
    }
}
kernel {
    TNOTIFY(flag[rank] @ (rank + 1) % nranks, launch_id + 1, Set);
    TWAIT(flag[(rank + 1) % nranks], launch_id + 1, GE);
}
""")
    a = Analysis(program)
    assert a.launch_bound(0) is None
    assert a.rising() == 0


def test_without_launch_id_a_constant_flag_rises_once():
    program = compile_text("""
protocol flags;
ranks 2;
signal flag;
host { launch; launch; }
kernel {
    if (rank == 0) { TNOTIFY(flag @ 1, 1, Set); }
    if (rank == 1) { TWAIT(flag, 1, GE); }
}
""")
    a = Analysis(program)
    assert a.rising() == 1 << program.elems_per_rank  # flag on rank 1
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain == set()


BARRIER = """
protocol deepep;
param N = 3;
ranks N;
signal sig[N] INIT;
check clean_exit;
host { for (int l = 0; l < 2; l++) { launch; } }
kernel {
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < nranks; i++) {
            TNOTIFY(sig[i] @ rank, 1024, AtomicAdd);
            SUB
        }
        for (int i = 0; i < nranks; i++) {
            TWAIT(sig[i], 0, CMP);
        }
    }
}
"""


def barrier(cmp="LE", init="", sub="TNOTIFY(sig[rank] @ i, -1024, AtomicAdd);", n=3):
    return compile_text(BARRIER.replace("N = 3", f"N = {n}").replace("CMP", cmp).replace("INIT", init).replace("SUB", sub))


def everything(program) -> int:
    return (1 << (program.nranks * program.elems_per_rank)) - 1


def test_the_counters_of_a_deepep_barrier_cannot_overflow_and_their_adds_commute():
    program = barrier()
    assert Analysis(program).bounded_adds() == everything(program)
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain == set()
    small = check_program(program, "t.sig", Options(symmetry=False))
    full = check_program(program, "t.sig", Options(por=False, symmetry=False))
    assert small.stats.states * 10 < full.stats.states, (small.stats.states, full.stats.states)


def test_an_eq_wait_on_those_counters_deadlocks_reduced_or_not():
    ref, reduced, plain = verdicts(barrier(cmp="EQ", n=2))
    assert ref == reduced == plain and "deadlock" in ref


@pytest.mark.parametrize("why, change", [
    ("it starts next to INT32_MAX", dict(init="= 2147481599")),
    ("a Set writes it too", dict(sub="TNOTIFY(sig[rank] @ i, 0, Set);")),
])
def test_counters_that_may_overflow_or_are_not_only_added_to_get_no_bound(why, change):
    program = barrier(**change, n=2)
    assert Analysis(program).bounded_adds() != everything(program), why
    ref, reduced, plain = verdicts(program)
    assert ref == reduced == plain, why


def test_an_add_that_repeats_while_a_test_fails_has_no_bound():
    program = compile_text("""
protocol spin_add;
ranks 2;
signal c;
signal go;
kernel {
    if (rank == 0) {
        while (!TTEST(go, 1, EQ)) {
            TNOTIFY(c @ 1, 1, AtomicAdd);
        }
    } else {
        TNOTIFY(go @ 0, 1, Set);
    }
}
""")
    a = Analysis(program)
    c_on_1 = 1 << program.elems_per_rank  # c is the first signal
    assert a._adds_of_one_run("kernel", 0, 0, 0, c_on_1)[program.elems_per_rank][0] > 2**31
    assert a.bounded_adds() & c_on_1 == 0

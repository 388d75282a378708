"""Index clauses (checker/invariants.py): cells at every index k of a signal dimension that no
rank or fixed index covers (`ready[2 * (N - 1)]`), with `past` atoms (a rank is past a TNOTIFY
at iteration k). With them the field ring all-reduce, one flag per step written once and reset
by the host at exit, is proved deadlock-free and clean for every N; its mutants
(tests/checker/prove_index/ring_*.sig) are never proved."""

import functools
import itertools
from pathlib import Path

import pytest
import z3
from helpers import prover_alone

from checker import gcs, invariants
from checker import prove as prove_mod
from checker import prove_smt as smt
from checker.check import read_spec
from checker.prove import FAIL, PROVED, prove_file
from model import compile_spec, parse

ROOT = Path(__file__).resolve().parents[2]
RING = str(ROOT / "specs" / "field" / "ring_allreduce.sig")
FIXTURES = ROOT / "tests" / "checker" / "prove_index"
MUTANTS = sorted(p.stem for p in FIXTURES.glob("ring_*.sig"))


@functools.lru_cache(maxsize=None)
def proved(path: str):
    return prove_file(path)


@functools.lru_cache(maxsize=None)
def commands(path: str):
    spec = parse(read_spec(Path(path)), path)
    return prove_mod.commands(spec, compile_spec(spec, {}), ["N"], {"N": 2})


def test_the_ring_allreduce_is_proved_clean_for_every_size():
    proof = proved(RING)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert proof.claim == "ok for all N >= 2"
    assert "dirty_exit" in proof.properties and "deadlock" in proof.properties
    text = "\n".join(proof.invariant)
    assert "every index k of `ready`" in text and "past(j, `TNOTIFY(ready[s] @ next, 1, Set)`" in text


def test_the_ring_allreduce_invariant_holds_on_every_reachable_state():
    """Every clause, an index clause at every index, on the commands' states at N = 2, 3 (N = 4
    in `pytest -m deep`: 1,472 states)."""
    holds_everywhere(proved(RING), (2, 3))


@pytest.mark.deep
def test_the_ring_allreduce_invariant_holds_at_four_ranks():
    holds_everywhere(proved(RING), (4,))


def holds_everywhere(proof, sizes):
    assert proof.verdict == PROVED
    gc, a1, a2 = proof.raw
    assert any(invariants.index_of(c) for c in a1) and any(invariants.index_of(c) for c in a2)
    for n in sizes:
        conc = gcs.Concrete(gc, {"N": n})
        for st in conc.reachable():
            view = invariants.ConcreteView(conc, st)
            for i in range(n):
                assert all(invariants.clause_holds_concrete(c, view, {"i": i}) for c in a1), n
                for j in range(n):
                    if i != j:
                        assert all(invariants.clause_holds_concrete(c, view, {"i": i, "j": j}) for c in a2), n


def test_index_clauses_are_formed_only_for_a_dimension_no_rank_or_fixed_index_covers():
    ring = invariants.vocabulary(commands(RING))
    assert [(sig, n) for sig, n, *_ in ring.index] == [("ready", 0)]
    for other in ("field/epoch_barrier.sig", "padded_set_slots.sig", "all_to_all_barrier.sig"):
        assert invariants.vocabulary(commands(str(ROOT / "specs" / other))).index == (), other


def test_an_index_clause_is_checked_at_every_index_of_its_dimension():
    gc = commands(RING)
    conc = gcs.Concrete(gc, {"N": 3})
    k = invariants.K("ready", 0)
    zero = ((("==", ("cell", "ready", "i", (k,)), ("int", 0)), True),)
    assert invariants.index_of(zero) == ("ready", 0)
    states = conc.reachable()
    view = invariants.ConcreteView(conc, states[0])
    assert invariants.clause_holds_concrete(zero, view, {"i": 0})
    # rank 1's last flag (index 3 of 4) alone raised (a made-up state: only the reading is
    # tested): the clause fails at rank 1, and only at that index
    init = states[0]
    sig = list(init[5])
    sig[conc.E + 3] = 1
    later = invariants.ConcreteView(conc, init[:5] + (tuple(sig),))
    assert invariants.clause_holds_concrete(zero, later, {"i": 0})
    assert not invariants.clause_holds_concrete(zero, later, {"i": 1})
    assert [v for v in range(4) if not invariants.clause_holds_concrete(zero, later, {"i": 1, "k": v})] == [3]


def test_past_reads_the_same_in_both_backends():
    """`past(x, TNOTIFY, v)`: the concrete reading and the z3 term, evaluated on the values of
    every reachable state at N = 3 (every rank, every v from -1 to the dimension)."""
    gc = commands(RING)
    notify = next(pc for pc, x in enumerate(gc.kernel.instrs) if isinstance(x, gcs.ir.Notify))
    enc = smt.Enc(gc.sizes, gc)

    class Values(smt.View):  # one concrete state read as z3 values
        def __init__(self, st):
            self.enc, self.st = enc, st

        def kpc(self, x):
            return z3.IntVal(self.st[2][x.as_long()])

        def kloc(self, s, x):
            return z3.IntVal(self.st[3][x.as_long()][s])

        def lc(self, x):
            return z3.IntVal(self.st[4][x.as_long()])

    conc = gcs.Concrete(gc, {"N": 3})
    seen = set()
    for st in conc.reachable():
        concrete, symbolic = invariants.ConcreteView(conc, st), Values(st)
        for x, v in itertools.product(range(3), range(-1, 5)):
            want = concrete.past(x, notify, v)
            got = z3.simplify(symbolic.past(z3.IntVal(x), notify, z3.IntVal(v))).as_long()
            assert got == want, (st, x, v)
            seen.add(want)
    assert seen == {0, 1}


def test_an_index_instance_outside_the_dimension_says_nothing():
    """A hypothesis instance of an index clause at an index beyond the dimension (or below 0) is
    vacuous: the cells there are no cells of the program, and a clause read there could assume
    what no state shows (here: a flag that is never 7)."""
    gc = commands(RING)
    prover = smt.Prover(gc, {"N": 2})
    k = invariants.K("ready", 0)
    never = ((("==", ("cell", "ready", "i", (k,)), ("int", 7)), True),)
    dim = prover.enc.dim(gc.sizes.dims_of("ready")[0])
    for index in (dim, dim + 3, z3.IntVal(-1)):
        (_, _, inst), = prover.hypotheses(prover.pre, [never], [], [prover.s], "", [index])
        s = z3.Solver()
        s.add(*prover.domain, prover.in_range(prover.s), z3.Not(inst))
        assert s.check() == z3.unsat, index  # true whatever the state: it assumes nothing
    (_, _, inside), = prover.hypotheses(prover.pre, [never], [], [prover.s], "", [dim - 1])
    s = z3.Solver()
    s.add(*prover.domain, prover.in_range(prover.s), z3.Not(inside))
    assert s.check() == z3.sat  # inside the dimension it does assume the clause


def test_the_mutants_are_there():
    assert {"ring_wait_wrong_value", "ring_skips_last_notify", "ring_no_reset", "ring_adds_twice",
            "ring_waits_next_step"} <= set(MUTANTS)


@pytest.mark.parametrize("name", MUTANTS)
def test_a_ring_mutant_fails_at_a_small_size(name):
    proof = prove_file(FIXTURES / f"{name}.sig")
    assert proof.verdict == FAIL, proof.claim


# the prover alone, without the explicit refutation at small sizes (20-50 CPU s each): one in
# the default suite, the others in `pytest -m deep`
ALONE = ["ring_wait_wrong_value"] + [pytest.param(n, marks=pytest.mark.deep) for n in MUTANTS
                                     if n != "ring_wait_wrong_value"]


@pytest.mark.parametrize("name", ALONE)
def test_a_ring_mutant_is_never_proved_by_the_prover_alone(name):
    proof = prover_alone(str(FIXTURES / f"{name}.sig"))
    assert proof.verdict != PROVED, proof.claim


@pytest.mark.deep  # ~15 CPU s
def test_flags_written_once_without_a_reset_are_proved_deadlock_free():
    """The ring's flags alone (N - 1 steps, no host reset, no clean exit): deadlock freedom
    already needs the index clauses."""
    proof = proved(str(FIXTURES / "flags_once.sig"))
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    holds_everywhere(proof, (2, 3))

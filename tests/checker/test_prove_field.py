"""`sigproof prove` on the field protocols (specs/field/): the epoch barrier, whose peers are
visited as `(rank + i) % nranks` and whose launch count is a fixed param (L = 3), is proved
for every N; its buggy variants (tests/checker/prove_field/) are never proved, not even by the
prover alone (without the explicit refutation at small sizes that catches them first)."""

import functools
from pathlib import Path

import pytest
from helpers import prover_alone

from checker import gcs, invariants
from checker import prove as prove_mod
from checker.check import read_spec
from checker.prove import FAIL, PROVED, Proof, prove_file
from model import compile_spec, parse

ROOT = Path(__file__).resolve().parents[2]
FIELD = ROOT / "specs" / "field"
FIXTURES = ROOT / "tests" / "checker" / "prove_field"
EPOCH = str(FIELD / "epoch_barrier.sig")
EPILOGUE = str(FIELD / "counted_epilogue.sig")


@functools.lru_cache(maxsize=None)
def proved(path: str) -> Proof:
    return prove_file(path)


def test_epoch_barrier_is_proved_for_every_size():
    proof = proved(EPOCH)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert proof.claim == "ok for all N >= 2"
    assert proof.symbolic == ("N",)
    assert [c.status for c in proof.checked] == ["ok", "ok", "ok"]
    # the ring offsets and the fixed launch bound are what the proof needed
    assert any("mod nranks" in c for c in proof.invariant)
    assert any(" 3" in c or "3 " in c for c in proof.invariant)


def test_the_epoch_barrier_invariant_holds_on_every_reachable_state():
    """On the guarded commands' states at N = 2, 3 (equal to the explicit engine's on
    positions and signals: tests/checker/test_prove.py checks it for every field spec; N = 4
    in `pytest -m deep`)."""
    proof = proved(EPOCH)
    assert proof.verdict == PROVED
    holds_on_every_reachable_state(proof, (2, 3))


@pytest.mark.deep
def test_the_epoch_barrier_invariant_holds_on_every_reachable_state_at_four_ranks():
    proof = proved(EPOCH)
    assert proof.verdict == PROVED
    holds_on_every_reachable_state(proof, (4,))


def holds_on_every_reachable_state(proof, sizes):
    gc, a1, a2 = proof.raw
    for n in sizes:
        conc = gcs.Concrete(gc, {"N": n})
        for st in conc.reachable():
            view = invariants.ConcreteView(conc, st)
            for i in range(n):
                for c in a1:
                    assert invariants.clause_holds_concrete(c, view, {"i": i}), (n, c)
                for j in range(n):
                    if i != j:
                        for c in a2:
                            assert invariants.clause_holds_concrete(c, view, {"i": i, "j": j}), (n, c)


@pytest.mark.deep  # ~30 CPU s alone (2026-12-04); `sigproof prove specs/` in .ci/run proves it too
def test_counted_epilogue_is_proved_for_every_size():
    """Per-peer slots `done[rank] @ ((rank + i) % nranks)`, AtomicAdd 1 per call, two launches
    of C = 2 calls: the ring offsets bound each slot by its writer's call count."""
    proof = proved(EPILOGUE)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert proof.claim == "ok for all N >= 2"
    holds_on_every_reachable_state(proof, (2, 3))


def test_the_ring_offset_reads_the_same_in_both_backends():
    """`rot` (j - i) mod nranks: the concrete backend and the z3 encoding agree on ranks in range."""
    import z3  # noqa: PLC0415 - only to evaluate the prover's terms here

    from checker import prove_smt as smt  # noqa: PLC0415

    gc = proof_commands(EPOCH)
    enc = smt.Enc(gc.sizes, gc)
    view = smt.State(enc, "_t")
    for n in (2, 3, 5):
        conc = gcs.Concrete(gc, {"N": n})
        cv = invariants.ConcreteView(conc, conc.initial())
        for x in range(n):
            for y in range(n):
                term = invariants.value(("rot", "i", "j"), view, {"i": z3.IntVal(x), "j": z3.IntVal(y)})
                got = z3.simplify(z3.substitute(term, (enc.N, z3.IntVal(n))))
                assert got.as_long() == invariants.value(("rot", "i", "j"), cv, {"i": x, "j": y}) == (y - x) % n


def proof_commands(path: str):
    spec = parse(read_spec(Path(path)), path)
    base = compile_spec(spec, {})
    return prove_mod.commands(spec, base, ["N"], {"N": 2})


MUTANTS = sorted(p.stem for p in FIXTURES.glob("*.sig"))


def test_the_mutants_are_there():
    assert {"eb_threshold_high", "eb_rotation_off_by_one", "eb_skips_last_peer", "eb_set_misses_increment",
            "eb_set_lowers", "eb_value_overflows", "eb_waits_on_self", "ce_threshold_high", "ce_rotation_off_by_one",
            "ce_skips_last_peer", "ce_set_one"} <= set(MUTANTS)


@pytest.mark.parametrize("name", MUTANTS)
def test_a_mutant_fails_at_a_small_size(name):
    proof = prove_file(FIXTURES / f"{name}.sig")
    assert proof.verdict == FAIL, proof.claim
    assert proof.exit_code == 1


# the prover alone on the mutants it gets furthest with (up to the deadlock lemma: 15-30 s each);
# one in the default suite, the others in `pytest -m deep` (the default suite stays short)
ALONE = ["eb_set_misses_increment"] + [pytest.param(n, marks=pytest.mark.deep)
                                       for n in ("eb_threshold_high", "eb_value_overflows", "ce_threshold_high")]


@pytest.mark.parametrize("name", ALONE)
def test_a_mutant_is_never_proved_by_the_prover_alone(name):
    proof = prover_alone(str(FIXTURES / f"{name}.sig"))
    assert proof.verdict != PROVED, proof.claim

"""`sigproof prove` with `check clean_exit;`: the dirty_exit obligation (a final state, every
host done, with a signal cell away from its INIT) is asked under the invariant
(checker/prove_smt.py `Prover._clean_exit`). A lease given back is proved for every N; one
kept in the second launch fails at N = 2 with the explicit trace and is never proved by the
prover alone, while the same leak without `check clean_exit;` is ok (the obligation, not
something else, is what rejects it)."""

from pathlib import Path

from helpers import proved_once, prover_alone

from checker import gcs, invariants
from checker import prove as prove_mod
from checker.prove import FAIL, PROVED, UNPROVED, prove_file

FIXTURES = Path(__file__).resolve().parent / "prove_clean_exit"
LEASE = str(FIXTURES / "lease.sig")
LEAK = str(FIXTURES / "leaks_on_second_launch.sig")
UNCHECKED = str(FIXTURES / "leaks_unchecked.sig")


proved = proved_once


def test_a_lease_given_back_is_proved_clean_for_every_size():
    proof = proved(LEASE)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert proof.claim == "ok for all N >= 2"
    assert "dirty_exit" in proof.properties
    assert any("host returned" in c and "lease@i == 0" in c for c in proof.invariant), proof.invariant


def test_the_clean_exit_invariant_holds_on_every_reachable_state():
    gc, a1, _ = proved(LEASE).raw
    for n in (2, 3, 4):
        conc = gcs.Concrete(gc, {"N": n})
        finals = 0
        for st in conc.reachable():
            view = invariants.ConcreteView(conc, st)
            for i in range(n):
                for c in a1:
                    assert invariants.clause_holds_concrete(c, view, {"i": i}), (n, c)
            finals += not conc.successors(st)
        assert finals == 1


def test_a_lease_kept_fails_at_two_ranks_with_the_trace():
    proof = prove_file(LEAK)
    assert proof.verdict == FAIL and proof.claim == "dirty_exit at N = 2"
    assert proof.exit_code == 1
    assert [v.property for v in proof.failure.violations] == ["dirty_exit"]


def test_a_lease_kept_is_never_proved_by_the_prover_alone():
    proof = prover_alone(LEAK)
    assert proof.verdict == UNPROVED
    assert any("dirty exit: `lease`" in r for r in proof.reasons), proof.reasons


def test_without_check_clean_exit_the_leak_is_no_violation():
    proof = proved(UNCHECKED)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert "dirty_exit" not in proof.properties


def test_the_certificate_holds_the_clean_exit_query():
    entry = prove_mod.certificate_entry(proved(LEASE))
    shows = [q["shows"] for q in entry["queries"] if q["kind"] == "obligation"]
    assert any("dirty exit: `lease`" in s for s in shows), shows

"""`sigproof prove` with the counting lemma (docs/prove.md, "Counters"): the counter-based
all-to-all barrier is proved for every N; the buggy counters and the variants that break one
of the lemma's conditions (tests/checker/prove_counting/) are never proved, not even by the prover
alone (without the explicit refutation that would catch most of them first)."""

import functools
import io
import json
from pathlib import Path

import pytest
from helpers import prover_alone

from checker import cli, gcs, invariants
from checker import prove as prove_mod
from checker import prove_smt as smt
from checker.prove import FAIL, PROVED, UNPROVED, Proof, prove_file

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
FIXTURES = ROOT / "tests" / "checker" / "prove_counting"


@functools.lru_cache(maxsize=None)
def proved(path: str) -> Proof:
    return prove_file(path, ["N"])


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(["prove", *argv, "--no-timing"], out, err)
    return code, out.getvalue(), err.getvalue()


COUNTER = str(SPECS / "all_to_all_counter.sig")


def test_all_to_all_counter_is_proved_for_every_size():
    code, out, _ = run(COUNTER)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].endswith("all_to_all_counter.sig: PROVED: ok for all N >= 2")
    assert "properties: deadlock, lost_notification, overflow, error" in out
    assert ("  counting lemma, inductive: count@h == 1 * #{ranks i != h past `TNOTIFY(count @ p, 1, AtomicAdd)` "
            "at 19:13 for h} for every rank h") in lines
    assert "checked explicitly: N=2 ok, N=3 ok, N=4 ok" in out
    proof = proved(COUNTER)
    assert proof.verdict == PROVED and len(proof.lemmas) == 1
    assert proof.lemmas[0].signal == "count" and proof.lemmas[0].self_excluded and proof.lemmas[0].add == 1
    doc = json.loads(run(COUNTER, "--format", "json")[1])
    assert doc["verdict"] == "proved" and len(doc["counting"]) == 1


def test_the_folder_gate_proves_the_counter_from_its_line():
    text = (SPECS / "all_to_all_counter.sig").read_text()
    assert "\nexpect ok for all N;\n" in text


@pytest.mark.parametrize("name", ["bug_counter_set_instead_of_add.sig", "bug_wrong_count.sig"])
def test_the_buggy_counters_are_never_proved(name):
    proof = prove_file(SPECS / name)
    assert proof.verdict in (FAIL, UNPROVED), proof.claim
    assert proof.exit_code != 0


NOT_OK = ["threshold_nranks", "skips_rank_4", "set_not_add", "twice_per_peer_outer", "twice_per_peer_inner",
          "adds_two", "reset_by_set", "self_included_over", "self_included_eq", "starts_at_1", "init_negative",
          "init_positive", "host_skips_rank_0", "subtracts_one"]


@pytest.mark.parametrize("name", NOT_OK)
def test_a_counter_that_is_not_ok_for_every_size_is_never_proved(name):
    """Each fixture deadlocks, loses a notification or overflows at some N <= 2^31 - 1. The
    prover alone must not prove it (`prove` adds the explicit sizes first, which can only
    turn an UNPROVED into a FAIL)."""
    alone = prover_alone(str(FIXTURES / f"{name}.sig"))
    assert alone.verdict == UNPROVED, (alone.claim, alone.lemmas)


def test_the_prover_alone_proves_the_correct_counters():
    assert prover_alone(COUNTER).verdict == PROVED
    proof = prover_alone(str(FIXTURES / "self_included.sig"))  # no `p != rank`: the lemma without exclusion
    assert proof.verdict == PROVED, proof.claim
    assert [x.self_excluded for x in proof.lemmas] == [False]


@pytest.mark.parametrize("name, established", [
    ("threshold_nranks", True),  # the lemma holds; the threshold is above its bound
    ("adds_two", True),  # holds, with add 2; 2 (N - 1) does not fit int32
    ("init_negative", True),  # holds, from -3
    ("skips_rank_4", False),  # a peer passed over without a TNOTIFY: the step check fails
    ("starts_at_1", False),  # rank 0 passed over at the start: the launch step fails
    ("host_skips_rank_0", False),  # rank 0 never launches, so it counts as passed from the start: initiation fails
    ("twice_per_peer_outer", False),  # the second round passes the same peers again
    ("twice_per_peer_inner", False),  # two writers of the counter: no candidate
    ("set_not_add", False),  # not an AtomicAdd: no candidate
    ("reset_by_set", False),  # a second writer (Set): no candidate
])
def test_which_lemmas_are_established(name, established):
    proof = prover_alone(str(FIXTURES / f"{name}.sig"))
    assert bool(proof.lemmas) == established, proof.lemmas


def test_the_value_check_refuses_a_set_even_when_offered_as_a_candidate():
    """The queries, not the candidate filter, carry the lemma: a Set writer offered as if it
    were an AtomicAdd fails the 'adds exactly `add`' part of its step."""
    proof = prover_alone(str(FIXTURES / "set_not_add.sig"))
    gc, a1, a2 = proof.raw
    k = gc.kernel
    pc = next(pc for pc, x in enumerate(k.instrs) if isinstance(x, gcs.ir.Notify))
    lp = next(lp for lp in k.loops if lp.header < pc < lp.back)
    fake = smt.Counting("count", pc, lp.header, lp.back, lp.slot, 1, 0, True)
    assert smt.Prover(gc, {"N": 2}).counting(list(a1), list(a2), [fake]) == []
    # and the same lemma shape for the AtomicAdd counter is established
    proof = prover_alone(COUNTER)
    gc, a1, a2 = proof.raw
    assert smt.Prover(gc, {"N": 2}).counting(list(a1), list(a2), list(proof.lemmas)) == list(proof.lemmas)


@pytest.mark.parametrize("path, sizes", [(COUNTER, (2, 3, 4)), (str(FIXTURES / "self_included.sig"), (2, 3, 4)),
                                         (str(FIXTURES / "init_negative.sig"), (2, 3))])
def test_the_lemma_holds_on_every_reachable_state(path, sizes):
    """count@h == init + add * #{x : passed(x, h)} on every state the guarded commands reach
    (which tests/checker/test_prove.py equates with the explicit engine's), for every h."""
    proof = prover_alone(path)
    gc = proof.raw[0]
    (lem,) = proof.lemmas
    prover = smt.Prover(gc, {"N": 2})
    for n in sizes:
        conc = gcs.Concrete(gc, {"N": n})
        for st in conc.reachable():
            view = invariants.ConcreteView(conc, st)
            for h in range(n):
                count = sum(prover.passed_in(lem, view, x, h) for x in range(n))
                assert view.cell(lem.signal, h, ()) == lem.init + lem.add * count, (n, st, h)


def test_the_certificate_holds_the_lemma_and_verifies(tmp_path):
    cert = tmp_path / "c.json"
    code, out, _ = run(COUNTER, "--certificate", str(cert))
    assert code == 0, out
    doc = json.loads(cert.read_text())
    (entry,) = doc["proofs"]
    assert entry["counting"] == [{"signal": "count", "notify": entry["counting"][0]["notify"],
                                  "header": entry["counting"][0]["header"], "back": entry["counting"][0]["back"],
                                  "slot": entry["counting"][0]["slot"], "add": 1, "init": 0,
                                  "self_excluded": True}]
    kinds = [q["kind"] for q in entry["queries"]]
    assert kinds.count("lemma") >= 3 and "deadlock" in kinds
    out = io.StringIO()
    assert prove_mod.verify_certificate(cert, out, ("z3",)) == 0, out.getvalue()
    # a lemma the spec does not give (an add of 2 where the TNOTIFY adds 1), resealed: rejected
    entry["counting"][0]["add"] = 2
    doc["seal"] = prove_mod._seal(doc)
    cert.write_text(json.dumps(doc))
    out = io.StringIO()
    assert prove_mod.verify_certificate(cert, out, ("z3",)) == 1
    assert "a counting lemma that the spec does not give" in out.getvalue()

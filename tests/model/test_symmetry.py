"""Rank-rotation symmetry (model/symmetry.py) against the plain exhaustive search.

Three layers:
- the detector never claims a symmetry the program lacks: on random symmetric specs
  (tests/oracles/strategies_symmetric.py) each claimed rotation is checked on the whole unreduced
  state graph (renaming by +1 maps every reachable state and its successors, with their
  events, onto reachable states and successors), and specs with one symmetry-breaking
  statement are refused;
- the canonical state is one per orbit (every renaming of a state has the same one);
- the search with symmetry (and with and without partial-order reduction) judges exactly as
  the networkx reference, which never reduces, and every counterexample it reports replays
  step by step on the unreduced semantics.
tests/deep/ runs many more: `pytest -m deep`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, reject, settings
from oracles.agreement import (build_reference, compile_text, replay, same_stubborn_sets, symmetric_agrees,
                               symmetry_is_real)
from oracles.strategies_symmetric import symmetric_specs

from checker.check import Options, check_program
from model import System, compile_spec, parse
from model.symmetry import Symmetry
from model.semantics import Semantics

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FAST
@given(symmetric_specs())
def test_a_claimed_rotation_maps_the_whole_graph_onto_itself(text):
    symmetry_is_real(text)


@settings(FAST, max_examples=60)
@given(symmetric_specs())
def test_a_claimed_rotation_is_real_with_atomic_tensor_waits(text):
    symmetry_is_real(text, atomic_waits=True)


@settings(FAST, max_examples=100)
@given(symmetric_specs(break_it=True))
def test_a_statement_that_breaks_the_symmetry_is_refused_with_its_location(text):
    sym, reasons = Symmetry.rotation_of(System(compile_text(text)))
    assert sym is None
    assert any(r.span is not None and r.span.line > 0 for r in reasons)


@settings(FAST, max_examples=60)
@given(symmetric_specs())
def test_the_symmetric_search_judges_like_the_reference(text):
    symmetric_agrees(text)


@settings(FAST, max_examples=25)
@given(symmetric_specs())
def test_the_symmetric_search_with_atomic_tensor_waits(text):
    symmetric_agrees(text, atomic_waits=True)


# ---------------------------------------------------------------- shipped specs and the CLI

RING = ROOT / "bench" / "specs" / "ring_pipeline_flags.sig"


def test_the_ring_is_reduced_by_rotation_and_judged_the_same():
    program = compile_text(RING.read_text())
    plain = check_program(program, "ring", Options(symmetry=False))
    sym = check_program(program, "ring", Options())
    assert sym.stats.symmetry == "rotation of the 5 ranks" and plain.stats.symmetry is None
    assert sym.violated == plain.violated == []
    assert sym.stats.states * 4 < plain.stats.states


def test_a_ring_counterexample_is_a_concrete_trace():
    text = (ROOT / "specs" / "bug_ring_eq_overrun.sig").read_text()
    program = compile_spec(parse(text, "bug_ring_eq_overrun.sig"), {"N": 3})
    ref = build_reference(program, False, None)
    r = check_program(program, "x.sig", Options(por=False))
    assert r.stats.symmetry == "rotation of the 3 ranks"
    assert set(r.violated) == ref.violated(clean_exit=program.clean_exit) != set()
    for v in r.violations:
        replay(ref, v)


def test_explain_symmetry_names_what_breaks_it(tmp_path):
    out = subprocess.run([sys.executable, "-m", "checker", "check", "--explain-symmetry", "--no-timing",
                          str(ROOT / "specs" / "all_to_all_barrier.sig"), str(RING)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    a2a = next(k for k, line in enumerate(lines) if line.startswith("symmetry of") and "all_to_all" in line)
    assert lines[a2a].endswith(": none")
    assert "all_to_all_barrier.sig:17:13: compares a rank with a number" in lines[a2a + 1]
    assert any("ring_pipeline_flags.sig" in line and "rotation of the 5 ranks" in line for line in lines)
    assert "(partial-order reduced, symmetry: rotation of the 5 ranks)" in out.stdout
    out = subprocess.run([sys.executable, "-m", "checker", "check", "--no-symmetry", "--format", "json", str(RING)],
                         capture_output=True, text=True, cwd=ROOT)
    assert json.loads(out.stdout)["results"][0]["stats"]["symmetry"] is None
    out = subprocess.run([sys.executable, "-m", "checker", "check", "--format", "json", str(RING)],
                         capture_output=True, text=True, cwd=ROOT)
    assert json.loads(out.stdout)["results"][0]["stats"]["symmetry"] == "rotation of the 5 ranks"


@settings(FAST, max_examples=150)
@given(symmetric_specs())
def test_futures_renamed_from_rank_0_pick_the_same_stubborn_sets(text):
    if same_stubborn_sets(compile_text(text)) is None:
        reject()


@settings(FAST, max_examples=40)
@given(symmetric_specs())
def test_futures_renamed_from_rank_0_with_atomic_tensor_waits(text):
    if same_stubborn_sets(compile_text(text), atomic_waits=True) is None:
        reject()


def test_futures_renamed_from_rank_0_on_the_field_protocols():
    for spec, params in (("specs/field/ring_allreduce.sig", {"N": 3}),
                         ("specs/field/vllm_allreduce.sig", {"N": 3, "B": 1}),
                         ("specs/field/vllm_allreduce.sig", {"N": 2, "B": 2}),
                         ("specs/ring_pipeline_ge.sig", {"N": 3}),
                         ("specs/field/syncall.sig", {"N": 3, "B": 2, "K": 2})):
        program = compile_spec(parse((ROOT / spec).read_text(), spec), params)
        assert same_stubborn_sets(program, limit=30_000) > 0, (spec, params)

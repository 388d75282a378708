"""The rank rotation over programs with data buffers (model/symmetry.py renames the
happens-before clocks of model/hb.py with the ranks), against the plain exhaustive search.

- the detector accepts the symmetric data rings of tests/oracles/strategies_data_symmetric.py
  and each claimed rotation is checked on the whole unreduced state graph: renaming by +1
  maps every reachable state (its clocks, release clocks and access shadows included) and
  its successors, with their events, onto reachable states and successors; every renaming
  of a state has the same representative;
- a statement that breaks the symmetry (a fixed rank, a constant rank index) is refused with
  its location;
- the stubborn sets picked with each rank's future renamed from rank 0's (buffer elements
  included) are the ones picked with every future computed on its own;
- the search with the rotation, with and without partial-order reduction, judges exactly as
  the plain search and as the brute-force happens-before reference (tests/oracles/
  reference_hb.py), and its counterexamples are concrete runs.
tests/deep/ runs many more: `pytest -m deep`.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, reject, settings
from oracles.agreement import compile_text, data_agrees, data_reduced_agrees, same_stubborn_sets, symmetry_is_real
from oracles.strategies_data_symmetric import symmetric_data_specs

from checker.check import Options, check_program
from model import System, compile_spec, parse
from model.symmetry import Symmetry

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=80, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FAST
@given(symmetric_data_specs())
def test_a_symmetric_data_ring_is_claimed_and_its_rotation_maps_the_whole_graph_onto_itself(text):
    assert symmetry_is_real(text) is not None, "a symmetric data ring was refused"


@settings(FAST, max_examples=60)
@given(symmetric_data_specs(break_it=True))
def test_a_data_statement_that_breaks_the_symmetry_is_refused_with_its_location(text):
    sym, reasons = Symmetry.rotation_of(System(compile_text(text)))
    assert sym is None
    assert any(r.span is not None and r.span.line > 0 for r in reasons)


@settings(FAST, max_examples=40)
@given(symmetric_data_specs())
def test_the_symmetric_data_search_judges_like_the_plain_search(text):
    data_reduced_agrees(text, symmetric=True)


@settings(FAST, max_examples=25)
@given(symmetric_data_specs())
def test_the_symmetric_data_search_under_sequential_consistency(text):
    data_reduced_agrees(text, memory_model="sc", symmetric=True)


@settings(FAST, max_examples=15)  # the reference enumerates every execution: slow
@given(symmetric_data_specs())
def test_the_symmetric_data_search_finds_the_races_of_the_happens_before_reference(text):
    data_agrees(text, "pto")


@settings(FAST, max_examples=80)
@given(symmetric_data_specs())
def test_futures_renamed_from_rank_0_pick_the_same_stubborn_sets_with_data(text):
    """The reduction's data mode masks buffer elements after the signal elements: renaming
    rank 0's future onto rank r must rename those too."""
    if same_stubborn_sets(compile_text(text)) is None:
        reject()


def test_futures_renamed_from_rank_0_on_the_data_rings():
    for spec, params in (("specs/data_barrier_two_level.sig", {"N": 3, "B": 2}),
                         ("bench/specs/tile_ring.sig", {"N": 3, "W": 4})):
        program = compile_spec(parse((ROOT / spec).read_text(), spec), params)
        assert same_stubborn_sets(program, limit=30_000) > 0, (spec, params)


def test_the_data_two_level_barrier_is_reduced_by_rotation_and_judged_the_same():
    path = ROOT / "specs" / "data_barrier_two_level.sig"
    program = compile_spec(parse(path.read_text(), str(path)), {"N": 3, "B": 2})
    plain = check_program(program, str(path), Options(por=False, symmetry=False))
    rotated = check_program(program, str(path), Options(por=False))
    assert rotated.stats.symmetry == "rotation of the 3 ranks"
    assert (plain.stats.states, rotated.stats.states) == (12428, 4160)
    assert plain.violated == rotated.violated == []


def test_a_race_found_under_the_rotation_names_a_concrete_run():
    path = ROOT / "specs" / "bug_data_done_before_siblings.sig"
    program = compile_spec(parse(path.read_text(), str(path)), {"N": 3})
    for por in (False, True):
        r = check_program(program, str(path), Options(por=por))
        assert r.stats.symmetry == "rotation of the 3 ranks"
        assert r.violated == ["data_race"]
        (v,) = r.violations
        assert (v.race.second.process, v.race.second.span) == (v.trace[-1].process, v.trace[-1].span)

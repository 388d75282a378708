"""`any(lo, hi)`: parsing and checking, one step per value, faults, traces, analysis, reduction."""

import json
import io

import pytest
from helpers import check_text, compile_text, system_of, violated

from checker.report import write_json
from model import SpecErrors, ir
from model.analysis import TOP, Analysis, choices
from model.system import Chosen

PEER = """
ranks 3;
signal ready[3];
kernel {
    int peer = any(0, nranks - 1);
    if (peer != rank) {
        TNOTIFY(ready[rank] @ peer, 1, AtomicAdd);
    }
}
"""


def errors(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        compile_text(text)
    return info.value.errors


@pytest.mark.parametrize("body, message, at", [
    ("int x = any(0, 1) + 1;", "any(lo, hi) can only be the whole right-hand side", "any"),
    ("if (any(0, 1) == 0) { }", "any(lo, hi) can only be the whole right-hand side", "any"),
    ("TNOTIFY(f, any(0, 1), Set);", "any(lo, hi) can only be the whole right-hand side", "any"),
    ("bool b = any(0, 1);", "any(lo, hi) gives an int, but 'b' is a bool", "any"),
    ("int x = 0; x += any(0, 1);", "any can only be assigned with '='", "any"),
    ("int x = any(2, 1);", "any(2, 1) has an empty range", "any"),
    ("int x = any(0, 5000);", "ranges over 5001 values; at most 1024", "any"),
    ("int x = any(0, TTEST(f, 1, EQ));", "the bounds of any(lo, hi) are expressions of locals", "TTEST"),
])
def test_misplaced_or_malformed_any_is_a_spec_error_with_its_location(body, message, at):
    (err,) = errors(f"ranks 1; signal f;\nkernel {{ {body} }}")
    assert message in err.message
    assert (err.span.file, err.span.line, err.span.col) == ("t.sig", 2, len("kernel { ") + 1 + body.index(at))


def test_any_is_a_keyword():
    assert "'any' is a keyword" in errors("ranks 1; kernel { int any = 1; }")[0].message


def test_one_step_per_value_named_by_its_label():
    s = system_of("ranks 1; host { int h = any(2, 4); launch; } kernel { }")
    state, _ = s.initial()
    steps = s.successors(state)
    assert [st.events[0] for st in steps] == [Chosen(0, "h", v) for v in (2, 3, 4)]
    assert [st.label for st in steps] == [0 + k * s.nprocs for k in range(3)]
    for st in steps:
        assert s.step(state, st.label) == st  # replay by label
    assert s.step(state, 3 * s.nprocs) is None


def test_every_value_is_explored_and_states_are_pinned():
    r = check_text(PEER, por=False, symmetry=False)
    assert r.violated == [] and (r.stats.states, r.stats.transitions) == (1000, 2700)  # 10 per rank, cubed
    assert check_text(PEER, symmetry=False).stats.states == 108  # the choices of different ranks commute
    assert check_text(PEER).stats.states == 92  # ... and a choice of any rank is renamed with the ranks


def test_an_assertion_reached_by_one_value_only():
    text = "ranks 2; kernel { int p = any(0, nranks - 1); assert(p == 0 || rank == 1); }"
    r = check_text(text)
    assert r.violated == ["assertion"]
    (v,) = r.violations
    texts = [e.text for s in v.trace for e in s.effects]
    assert "chose p = 1" in texts


def test_empty_and_too_wide_ranges_are_run_time_errors():
    r = check_text("ranks 2; kernel { int p = any(1, rank); }")
    assert r.violated == ["error"]
    assert "any(1, 0): the range is empty (lo > hi)" in r.violations[0].message
    r = check_text("param W = 2000; ranks 1; kernel { int w = W * (rank + 1); int p = any(1, w); }")
    assert r.violated == ["error"] and "ranges over 2000 values; at most 1024" in r.violations[0].message


def test_the_trace_shows_the_choice_in_json():
    r = check_text("ranks 1; kernel { int p = any(0, 2); assert(p < 2); }")
    out = io.StringIO()
    write_json([r], out)
    step = json.loads(out.getvalue())["results"][0]["violations"][0]["trace"][-1]
    assert step["statement"] == "int p = any(0, 2)" and step["effects"][0] == "chose p = 2"
    assert step["details"][0] == {"kind": "choose", "name": "p", "value": 2}


def test_assignment_form_and_bounds_from_locals():
    text = "ranks 2; kernel { int lo = rank; int p = 0; p = any(lo, lo + 1); assert(p <= rank + 1 && p >= rank); }"
    assert violated(text) == set()


def test_the_abstract_value_of_a_choice_is_its_range():
    assert choices(frozenset({0, 1}), frozenset({2})) == frozenset({0, 1, 2})
    assert choices(frozenset({0}), frozenset({5000})) is TOP
    assert choices(TOP, frozenset({1})) is TOP
    assert choices(frozenset({3}), frozenset({1})) == frozenset()  # every choice faults
    program = compile_text(PEER)
    an = Analysis(program)
    notify = next(pc for pc, x in enumerate(program.kernel.instrs) if isinstance(x, ir.Notify))
    fp = an.footprints("kernel", 0, 0)[notify]
    # ready[0] on ranks 1 and 2 (peer != rank): every target the choice can give
    assert fp.writes == (1 << (1 * 3 + 0)) | (1 << (2 * 3 + 0))


def test_choice_in_a_loop_and_a_ghost_reader_agree_reduced_and_unreduced():
    text = """
    ranks 2; signal f[2];
    kernel {
        for (int i = 0; i < 2; i++) {
            int t = any(0, nranks - 1);
            TNOTIFY(f[rank] @ t, i + 1, Set);
        }
        TWAIT(f[1 - rank], 1, GE);
    }
    """
    full, reduced = check_text(text, por=False, symmetry=False), check_text(text)
    assert full.violated == reduced.violated


def test_replay_follows_the_chosen_value():
    from checker.replay import replay

    text = "ranks 1; kernel { int p = any(0, 2); assert(p < 2); }"
    out = io.StringIO()
    write_json([check_text(text)], out)
    violation = json.loads(out.getvalue())["results"][0]["violations"][0]
    shown = io.StringIO()
    assert replay(compile_text(text), violation, shown) is None
    assert "chose p = 2" in shown.getvalue()

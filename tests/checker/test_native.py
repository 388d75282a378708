"""The compiled search (checker/native.py) against the Python explorer, its reference.

On every shipped spec it takes and on random protocols: the same states (lost-notification
marks included) in the same order,
the same predecessor links and labels, the same successor lists, final states, transition
counts, executed instructions and first findings, for BFS and DFS; the same at a state
limit; and a check through the command line gives the same output, byte for byte but the
time. Skipped, saying why, where the machine has no C compiler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import compile_text, sigproof
from hypothesis import HealthCheck, given, settings
from oracles.strategies import specs
from oracles.strategies_launches import rooted_specs

from checker import native
from checker.explore import explore
from checker.properties import Monitor
from model import System, compile_spec, parse
from model.semantics import Semantics

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = native._library()
pytestmark = pytest.mark.skipif(isinstance(LIBRARY, str), reason=f"no compiled engine: {LIBRARY}")
LIMIT = 30_000  # states per search in the shipped-spec comparisons


def _runs(system, order="bfs", max_states=None, fail_fast=False):
    out = []
    for engine in ("python", "auto"):
        monitor = Monitor(system, fail_fast=fail_fast)
        ex = explore(system, monitor, order=order, max_states=max_states, engine=engine)
        out.append((ex, monitor))
    return out


def same_search(system, order="bfs", max_states=None, fail_fast=False) -> None:
    (py, mpy), (nat, mnat) = _runs(system, order, max_states, fail_fast)
    assert nat.extra.get("engine") == "native"
    assert len(nat.store) == len(py.store)
    assert list(nat.each_state()) == list(py.each_state())
    for name in ("parent", "label", "succ", "order", "count", "final"):
        assert getattr(nat, name) == getattr(py, name), name
    assert nat.transitions == py.transitions
    assert nat.executed == py.executed
    assert (nat.stop and nat.stop.reason) == (py.stop and py.stop.reason)
    assert {k: (f.src, f.label) for k, f in mnat.found.items()} == {k: (f.src, f.label) for k, f in mpy.found.items()}
    assert all(nat.index(s) == k for k, s in enumerate(py.each_state()))


def _shipped():
    out = []
    for folder in ("specs", "bench/specs", "tests/checker", "tests/regressions"):
        for path in sorted((ROOT / folder).rglob("*.sig")):
            text = path.read_text()
            try:
                program = compile_spec(parse(text, str(path)))
            except Exception:  # a spec that is an error on purpose (specs/errors/...)
                continue
            system = System(program)
            if native.why_not(system) is None:
                out.append(pytest.param(system, id=str(path.relative_to(ROOT))))
    return out


SHIPPED = _shipped() if not isinstance(LIBRARY, str) else []


def test_the_shipped_specs_include_the_compiled_kinds():
    """The comparison below covers many specs, and among them launches, joins and barriers
    (resets, choices and block barriers come with the random protocols below)."""
    assert len(SHIPPED) >= 50
    kinds = set()
    for p in SHIPPED:
        system = p.values[0]
        kinds |= {type(x).__name__ for code in (system.program.host, system.program.kernel) for x in code.instrs}
    assert {"Notify", "Wait", "Test", "Launch", "Join", "HostBarrier", "Assert"} <= kinds, kinds
    marked = [p.values[0] for p in SHIPPED if p.values[0].G]
    assert len(marked) >= 40  # lost-notification marks, with several launches and several blocks
    assert any(s.B > 1 for s in marked) and any(s.analysis.launch_bound(0) > 1 for s in marked)


@pytest.mark.parametrize("system", SHIPPED)
def test_shipped_spec_same_graph(system):
    same_search(system, max_states=LIMIT)


@pytest.mark.parametrize("system", SHIPPED[::3])
def test_shipped_spec_same_graph_dfs(system):
    same_search(system, order="dfs", max_states=LIMIT)


@pytest.mark.parametrize("system", SHIPPED[1::4])
def test_shipped_spec_same_at_a_small_state_limit(system):
    same_search(system, max_states=97)


@pytest.mark.parametrize("system", SHIPPED[2::4])
def test_shipped_spec_same_fail_fast(system):
    same_search(system, fail_fast=True, max_states=LIMIT)


RANDOM = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@RANDOM
@given(specs())
def test_random_specs_same_graph(text):
    for tensor_wait in ("pass", "atomic"):
        system = System(compile_text(text), Semantics(tensor_wait=tensor_wait))
        if native.why_not(system) is None:
            same_search(system, max_states=5_000)
            same_search(system, order="dfs", max_states=5_000)


@settings(RANDOM, max_examples=150)
@given(specs(counters=True))
def test_random_counting_specs_same_graph(text):
    system = System(compile_text(text))
    if native.why_not(system) is None:
        same_search(system, max_states=5_000)


@settings(RANDOM, max_examples=150)
@given(rooted_specs())
def test_random_launching_specs_same_graph(text):
    system = System(compile_text(text))
    if native.why_not(system) is None:
        same_search(system, max_states=5_000)


def test_random_specs_reach_the_compiled_search():
    """The generators give protocols the compiled search takes (not all fall back), with
    lost-notification marks, and with marks over several launches."""
    from hypothesis import find

    def marked(text: str, launches: int = 1) -> bool:
        system = System(compile_text(text))
        return (bool(system.G) and native.why_not(system) is None
                and max(system.analysis.launch_bound(r) for r in range(system.R)) >= launches)

    find(specs(), lambda t: native.why_not(System(compile_text(t))) is None)
    find(rooted_specs(), lambda t: native.why_not(System(compile_text(t))) is None)
    find(specs(), marked)
    find(rooted_specs(), lambda t: marked(t, launches=2))


AHEAD = """
protocol ahead; ranks 2; blocks 2; signal f[2];
host { launch; launch; launch; }
kernel {
    int peer = (rank + 1) % nranks;
    TNOTIFY(f[block] @ peer, 1, AtomicAdd);
    TWAIT(f[block], launch_id + 1, GE);
    if (launch_id == 1) { TNOTIFY(f[block], 1, Set); }
}
"""


def test_marks_for_a_launch_not_yet_started():
    """A notification from a rank a launch ahead is marked for the blocks of the reader's next
    launch (bits past 1 + B), moves down when that launch starts, and a Set then loses it."""
    system = System(compile_text(AHEAD))
    assert system.G and system.B == 2 and native.why_not(system) is None
    same_search(system)
    same_search(system, order="dfs")
    (py, mpy), _ = _runs(system)
    assert any(g >> (1 + system.B) for s in py.each_state() for g in s.ghost)
    assert {"lost_notification", "deadlock"} <= mpy.found.keys()


# A host that reads a marked element and then, after its join (HOST_READ) or after a reset
# (HOST_RESET), takes the path without that read; blocks whose first entry of the second
# launch skips the read that the first pc may still make (FIRST_LAUNCH). Each drops marks that
# only a settle after that step drops.
HOST_READ = """
protocol hostread; ranks 2; signal h[1];
host {
    for (int k = 0; k < 2; k++) {
        launch;
        if (k == 0) { TWAIT(h[0], 1, EQ); }
    }
}
kernel {
    int peer = (rank + 1) % nranks;
    TNOTIFY(h[0] @ peer, 1, Set);
}
"""
HOST_RESET = HOST_READ.replace("signal h[1];", "signal h[1]; signal t[1];").replace(
    "launch;\n        if", "launch;\n        reset t;\n        if")
FIRST_LAUNCH = """
protocol firstlaunch; ranks 2; signal s[1];
host { launch; launch; }
kernel {
    int peer = (rank + 1) % nranks;
    if (launch_id == 0) {
        TNOTIFY(s[0] @ peer, 1, Set);
        TWAIT(s[0], 1, EQ);
    } else {
        TNOTIFY(s[0] @ peer, 1, Set);
    }
}
"""


@pytest.mark.parametrize("text", [HOST_READ, HOST_RESET, FIRST_LAUNCH], ids=["host-read", "host-reset", "first-launch"])
def test_marks_dropped_after_joins_resets_and_launches(text):
    system = System(compile_text(text))
    assert system.G and native.why_not(system) is None
    assert "reset t;" in text or text is not HOST_RESET
    same_search(system)
    same_search(system, order="dfs")


def test_marks_too_wide_for_the_vector_run_in_python():
    text = AHEAD.replace("blocks 2", "blocks 8").replace("signal f[2]", "signal f[8]")
    system = System(compile_text(text))
    why = native.why_not(system)
    assert why is not None and "31 bits" in why
    ex = explore(system, Monitor(system), max_states=2_000)
    assert "engine" not in ex.extra


def test_a_spinning_poller_beside_a_choice_and_a_failing_assert():
    text = """
protocol poll; ranks 2; signal flag[1];
kernel {
    if (rank == 0) {
        int k = any(0, 2);
        if (k == 1) { assert(k == 0); }
        TNOTIFY(flag[0] @ 1, 1, AtomicAdd);
    } else {
        while (!TTEST(flag[0], 1, EQ)) { }
        while (true) { }
    }
}
"""
    system = System(compile_text(text))
    assert native.why_not(system) is None
    same_search(system)
    same_search(system, order="dfs")


def test_an_overflowing_add_goes_through_python():
    text = """
protocol add; ranks 2; signal s[1] = 2147483646;
kernel { TNOTIFY(s[0] @ 0, 1, AtomicAdd); }
"""
    system = System(compile_text(text))
    same_search(system)
    (_, mpy), (_, mnat) = _runs(system)
    assert "overflow" in mnat.found and mnat.found.keys() == mpy.found.keys()


@pytest.mark.parametrize("spec", ["bug_a2a_reset_after_wait", "bug_root_multi_launch_reset_race", "bug_reset_race"])
def test_overwrites_run_compiled_once_a_loss_is_found(spec):
    """Once lost_notification is found the judge reads no Overwrite: the compiled search then
    takes the Sets and resets that make one itself (eng_quiet), the marks as ghost.py's
    notified and erase (a Set of another value replaces the mark, a reset clears it): the same
    graph, and (almost) no state left to Python."""
    system = System(compile_spec(parse((ROOT / f"specs/{spec}.sig").read_text(), f"{spec}.sig")))
    assert native.why_not(system) is None and system.G
    same_search(system)
    same_search(system, order="dfs")

    class Judging(Monitor):
        judges_overwrites = True  # as before the loss was found: every Overwrite state in Python

    quiet = explore(system, Monitor(system), engine="auto")
    judging = explore(system, Judging(system), engine="auto")
    assert len(quiet.store) == len(judging.store) and quiet.succ == judging.succ
    assert quiet.extra["python_states"] < judging.extra["python_states"]


@pytest.mark.parametrize("flags", [[], ["--dfs"], ["--fail-fast"], ["--check", "clean_exit"]])
@pytest.mark.parametrize("spec", ["specs/all_to_all_barrier.sig", "specs/bug_reuse_without_reset.sig",
                                  "specs/bug_ring_eq_overrun.sig", "specs/epoch_counter.sig",
                                  "specs/bug_overflow.sig"])
def test_the_command_line_says_the_same(spec, flags):
    """Text and JSON, but the bytes per stored state (the stores differ: docs/trust.md)."""
    outs = []
    for engine in ("python", "auto"):
        common = ("check", str(ROOT / spec), "--no-por", "--no-symmetry", "--no-timing", "--engine", engine, *flags)
        text = sigproof(*common)
        code, out, err = sigproof(*common, "--format", "json")
        data = json.loads(out)
        for r in data["results"]:
            r["stats"].pop("store_bytes_per_state")
        outs.append((text, code, data, err))
    assert outs[0] == outs[1]
    assert outs[0][2]["results"][0]["stats"]["states"] > 1


def test_without_a_compiler_the_search_runs_in_python(monkeypatch, tmp_path):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setenv("SIGPROOF_NATIVE_DIR", str(tmp_path))
    native._library.cache_clear()
    try:
        system = System(compile_text("protocol p; ranks 2; signal s[1];\nkernel { TNOTIFY(s[0] @ 0, 1, AtomicAdd); }"))
        why = native.why_not(system)
        assert why is not None and "compiler" in why
        ex = explore(system, Monitor(system))
        assert "engine" not in ex.extra and ex.complete and len(ex.store) > 1
    finally:
        native._library.cache_clear()


def test_what_runs_in_python_says_why():
    data = System(compile_spec(parse((ROOT / "specs/data_all_pairs_handoff.sig").read_text(), "d.sig")))
    assert "data" in native.why_not(data)
    plain = System(compile_text("protocol p; ranks 2; signal s[1];\nkernel { TNOTIFY(s[0] @ 0, 1, AtomicAdd); }"))
    assert native.why_not(plain) is None
    assert "reduced" in native.why_not(plain, reduce=lambda s, steps: None)
    assert "fingerprint" in native.why_not(plain, store="fingerprint")


DEEP = settings(RANDOM, max_examples=2_000)


@pytest.mark.deep
@DEEP
@given(rooted_specs())
def test_deep_random_launching_specs_same_graph(text):
    """Several launches, roots and peers: the marks' launch offsets, shifts and settles."""
    system = System(compile_text(text))
    if native.why_not(system) is None:
        same_search(system, max_states=5_000)
        same_search(system, order="dfs", max_states=5_000)


@pytest.mark.deep
@DEEP
@given(specs(counters=True))
def test_deep_random_counting_specs_same_graph(text):
    for tensor_wait in ("pass", "atomic"):
        system = System(compile_text(text), Semantics(tensor_wait=tensor_wait))
        if native.why_not(system) is None:
            same_search(system, max_states=5_000)

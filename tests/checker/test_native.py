"""The compiled search (checker/native.py) against the Python explorer, its reference.

On every shipped spec it takes and on random protocols: the same states in the same order,
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
    """The generators give protocols the compiled search takes (not all fall back)."""
    from hypothesis import find

    find(specs(), lambda t: native.why_not(System(compile_text(t))) is None)
    find(rooted_specs(), lambda t: native.why_not(System(compile_text(t))) is None)


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

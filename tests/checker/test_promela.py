"""The Promela export, and SPIN as an independent oracle for sigproof's verdicts and states.

Without `spin` (and gcc) the SPIN tests skip; the export itself is always tested.

What is compared: for `deadlock` (terminal deadlocks only: SPIN's invalid end states),
`assertion`, `overflow` and `error`, SPIN's verdict equals sigproof's; a deadlock in which
processes can only spin is compared with pan's non-progress cycles under weak fairness
(`-l -f`). States: pan (no partial-order reduction) stores exactly the distinct
(processes, signals, launch counts) of sigproof's states plus one, the state before
`init` has run the hosts' first local statements. sigproof's own count can be larger: its
states also carry the lost-notification ghost, which the export leaves out, so the test
counts sigproof's states with the ghost projected away (and the launch counts too, unless
the kernel reads `launch_id`; sigproof keeps them for the ghost).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from checker.cli import run
from checker.explore import explore
from checker.promela import exportable, promela
from checker.properties import Monitor
from model import System, compile_spec, parse
from oracles.spin_oracle import have_spin, spin_check, spin_non_progress
from oracles.strategies import specs
from model.semantics import Semantics

ROOT = Path(__file__).resolve().parents[2]
SPECS = [p for p in sorted((ROOT / "specs").glob("*.sig"))  # the export covers the base language
         if exportable(compile_spec(parse(p.read_text(), p.as_posix()), {})) is None]
COVERED = ("deadlock", "assertion", "overflow", "error")
needs_spin = pytest.mark.skipif(not have_spin(), reason="spin and gcc are not installed (apt-get install spin)")


def _program(path: Path, overrides=None):
    return compile_spec(parse(path.read_text(), path.relative_to(ROOT).as_posix()), overrides)


# ---------------------------------------------------------------- the export


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_every_spec_exports_deterministically(path):
    program = _program(path)
    for atomic in (False, True):
        text = promela(program, Semantics(tensor_wait="atomic" if atomic else "pass"))
        assert text == promela(_program(path), Semantics(tensor_wait="atomic" if atomic else "pass"))
        assert "proctype H0()" in text and "init {" in text
        assert text.count("proctype K") == program.nranks * program.nblocks


def test_cli_export_writes_the_model(tmp_path, monkeypatch):
    import io

    monkeypatch.chdir(ROOT)
    spec = ROOT / "specs" / "all_to_all_barrier.sig"
    out = tmp_path / "a2a.pml"
    err = io.StringIO()
    argv = ["export", "--promela", "specs/all_to_all_barrier.sig", "-D", "N=3", "-o", str(out)]
    assert run(argv, io.StringIO(), err) == 0
    assert out.read_text() == promela(_program(spec, {"N": 3}))
    assert "N=3" in out.read_text().splitlines()[0]
    stdout = io.StringIO()
    assert run(["export", "--promela", "specs/all_to_all_barrier.sig"], stdout, err) == 0
    assert stdout.getvalue() == promela(_program(spec))


@pytest.mark.parametrize("argv, message", [
    (["export", "--promela", "specs/all_to_all_barrier.sig", "-D", "M=3"], "M"),
    (["export", "--promela", "specs/all_to_all_barrier.sig", "-D", "N"], "NAME=VALUE"),
    (["export", "--promela", "specs/no_such.sig"], "no_such"),
    (["export", "--promela", "specs/all_to_all_barrier.sig", "-o", "/no/such/dir/x.pml"], "cannot write"),
    (["export", "specs/all_to_all_barrier.sig"], "--promela"),
])
def test_cli_export_mistakes_are_usage_errors(argv, message, monkeypatch, capsys):
    import io

    monkeypatch.chdir(ROOT)
    err = io.StringIO()
    assert run(argv, io.StringIO(), err) == 2
    said = err.getvalue() + capsys.readouterr().err  # argparse writes its usage errors to sys.stderr
    assert message in said and "Traceback" not in said


def test_bad_spec_is_reported_not_raised(tmp_path):
    import io

    bad = tmp_path / "bad.sig"
    bad.write_text("ranks 2;\nkernel { TWAIT(nope, 1, EQ); }\n")
    err = io.StringIO()
    assert run(["export", "--promela", str(bad)], io.StringIO(), err) == 2
    assert "bad.sig:2:" in err.getvalue() and "Traceback" not in err.getvalue()


# ---------------------------------------------------------------- SPIN as the oracle


def _verdict(program, atomic: bool, limit: int | None):
    from checker.check import Options, check_program

    return check_program(program, program.file, Options(semantics=Semantics(tensor_wait="atomic" if atomic else "pass"), max_states=limit))


def compare(program, workdir: Path, atomic: bool = False, limit: int | None = None):
    """Assert that SPIN and sigproof agree on `program`; returns (sigproof states, SPIN
    states), or None when sigproof stopped at `limit` or at its local-step limit."""
    result = _verdict(program, atomic, limit)
    if result.stop is not None:
        return None
    system = System(program, Semantics(tensor_wait="atomic" if atomic else "pass"))
    ex = explore(system, Monitor(system, expected=(), clean_exit=False, fail_fast=False))
    terminal = any(not system.successors(s) and not system.is_final(s) for s in ex.states)
    projected = len({(s.procs, s.signals, s.launches if program.uses_launch_id else ()) for s in ex.states})
    found = set(result.violated) & set(COVERED)
    spin = spin_check(promela(program, Semantics(tensor_wait="atomic" if atomic else "pass")), workdir)
    assert spin.complete, spin.output
    expected = (found - {"deadlock"}) | ({"deadlock"} if terminal else set())
    assert set(spin.violated) == expected, (program.source, spin.output)
    if "deadlock" in found and not terminal:  # processes that can only spin forever
        nprocs = program.nranks * (1 + program.nblocks)
        assert spin_non_progress(promela(program, Semantics(tensor_wait="atomic" if atomic else "pass")), workdir / "np", nprocs), program.source
    assert spin.states == projected + 1, (program.source, spin.states, projected)
    return len(ex.states), spin.states


@needs_spin
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_spin_agrees_on_every_spec(path, tmp_path):
    assert compare(_program(path), tmp_path) is not None


@needs_spin
@pytest.mark.parametrize("name", ["all_to_all_barrier", "two_level_barrier", "doc_signal_matrix", "ttest_polling"])
def test_spin_agrees_with_atomic_tensor_waits(name, tmp_path):
    compare(_program(ROOT / "specs" / f"{name}.sig"), tmp_path, atomic=True)


@needs_spin
def test_state_counts_side_by_side(tmp_path):
    """sigproof's states, and pan's stored states, at small sizes: pan = sigproof + 1 when
    the spec carries no lost-notification ghost (no element can be overwritten unread)."""
    rows = []
    for name, params in [("all_to_all_barrier", {"N": 2}), ("all_to_all_barrier", {"N": 3}),
                         ("all_to_all_counter", None), ("zero_sum_barrier", None), ("credit_epilogue", None)]:
        program = _program(ROOT / "specs" / f"{name}.sig", params)
        ours, theirs = compare(program, tmp_path / f"{name}{params}")
        rows.append((name, params, ours, theirs))
        assert theirs == ours + 1, rows


@needs_spin
@settings(max_examples=30, derandomize=True, deadline=None, database=None, phases=(Phase.generate,),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=specs())
def test_spin_agrees_on_random_specs(text, tmp_path_factory):
    program = compile_spec(parse(text, "random.sig"))
    # a few random specs grow past the limit or spin past the local-step limit: not judged
    assume(compare(program, tmp_path_factory.mktemp("random"), limit=5_000) is not None)


def test_a_data_spec_is_refused_with_its_location(tmp_path):
    import io

    out, err = io.StringIO(), io.StringIO()
    code = run(["export", "--promela", str(ROOT / "specs" / "bug_tput_notify_no_fence.sig")], out, err)
    assert code == 2 and "bug_tput_notify_no_fence.sig:15:9: the Promela export covers the base language only" \
        in err.getvalue() and out.getvalue() == ""

"""Coverage of every check (checker/coverage.py) and vacuity (status `vacuous`).

The statements no step reaches are reported in every format; a check in which none is
reached is `vacuous` (exit 1) whatever its `expect` lines; `--require-coverage` fails a
check with an unreached statement. Unreached statements are the same with the reductions
and without them: on every shipped and regression spec, on random protocols, and under a
deliberately lossy reduction that only the confirmation search makes sound.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from oracles.strategies import specs
from oracles.strategies_data import data_specs
from oracles.strategies_symmetric import symmetric_specs
from oracles.agreement import compile_text

import checker.check
from checker import coverage
from checker.check import Options, check_file, check_program
from checker.cli import run
from checker.explore import explore
from checker.kernels import check_inputs
from model import System

ROOT = Path(__file__).resolve().parents[2]

# The case: the only TWAIT sits behind a branch no rank takes.
BEHIND_A_BRANCH = """ranks 2;
signal f;

kernel {
    if (rank == 5) {
        TWAIT(f, 1, EQ);
    }
    TNOTIFY(f @ 0, 1, AtomicAdd);
}
"""
NOTHING_RUNS = """ranks 2;
signal f;
expect ok;

kernel {
    if (rank == 5) {
        TNOTIFY(f @ 0, 1, AtomicAdd);
        TWAIT(f, 1, GE);
    }
}
"""
NO_SIGNAL_OPERATION = """ranks 2;
expect assertion;
kernel {
    int x = rank + 1;
    assert(x == 1);
}
"""
# A wait that blocks forever is reached (the deadlock is about it): not vacuous.
STUCK = "ranks 2;\nsignal f;\nexpect deadlock;\nkernel {\n  TWAIT(f, 1, EQ);\n}\n"


def sigproof(*argv, at: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    import os

    old = os.getcwd()
    os.chdir(at)
    try:
        code = run(["check", *map(str, argv), "--no-timing", "-j", "1"], out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue()


@pytest.fixture
def work(tmp_path):
    for name, text in (("branch.sig", BEHIND_A_BRANCH), ("none.sig", NOTHING_RUNS),
                       ("empty.sig", NO_SIGNAL_OPERATION), ("stuck.sig", STUCK)):
        (tmp_path / name).write_text(text)
    return tmp_path


# ---------------------------------------------------------------- (a) the case, every format


def test_the_twait_behind_a_never_taken_branch_is_reported_in_every_format(work):
    code, text = sigproof("branch.sig", at=work)
    assert code == 0
    assert text.splitlines()[:3] == ["branch.sig: PASS: ok", "  1 signal operation never executed:",
                                     "    branch.sig:6:9 TWAIT(f, 1, EQ)"]
    code, out = sigproof("branch.sig", "--format", "json", at=work)
    (result,) = json.loads(out)["results"]
    assert code == 0 and result["status"] == "pass" and "reason" not in result
    assert result["unreached"] == [{"file": "branch.sig", "line": 6, "column": 9, "text": "TWAIT(f, 1, EQ)"}]
    _, out = sigproof("branch.sig", "--format", "sarif", at=work)
    (note,) = json.loads(out)["runs"][0]["results"]
    assert (note["ruleId"], note["level"], note["message"]["text"]) == ("unreached", "note",
                                                                         "never executed: TWAIT(f, 1, EQ)")
    assert note["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 9}
    _, out = sigproof("branch.sig", "--format", "junit", at=work)
    (case,) = ET.fromstring(out).iter("testcase")
    assert [x.tag for x in case] == ["system-out"]
    assert "branch.sig:6:9 TWAIT(f, 1, EQ)" in case.find("system-out").text
    _, out = sigproof("branch.sig", "--format", "github", at=work)
    assert out.splitlines()[0] == ("::notice file=branch.sig,line=6,col=9,title=sigproof unreached::"
                                   "never executed: TWAIT(f, 1, EQ)")


def test_require_coverage_fails_the_check_with_the_reason(work):
    code, text = sigproof("branch.sig", "--require-coverage", at=work)
    assert code == 1
    assert text.splitlines()[0] == ("branch.sig: FAIL: ok, but 1 signal operation never executed "
                                    "(--require-coverage)")
    code, out = sigproof("branch.sig", "--require-coverage", "--format", "json", at=work)
    (result,) = json.loads(out)["results"]
    assert code == 1 and result["status"] == "fail" and "--require-coverage" in result["reason"]
    _, out = sigproof("branch.sig", "--require-coverage", "--format", "sarif", at=work)
    assert [r["level"] for r in json.loads(out)["runs"][0]["results"]] == ["error"]
    _, out = sigproof("branch.sig", "--require-coverage", "--format", "junit", at=work)
    assert ET.fromstring(out).find("testsuite").find("testcase").find("failure").get("type") == "unreached"
    _, out = sigproof("branch.sig", "--require-coverage", "--format", "github", at=work)
    assert out.startswith("::error file=branch.sig,line=6,col=9,title=sigproof unreached::")
    # a fully covered spec passes with the flag
    assert sigproof(ROOT / "specs" / "all_to_all_barrier.sig", "--require-coverage", at=work)[0] == 0


def test_require_coverage_is_in_the_cache_key():
    from checker.cache import key_options

    assert key_options(Options(require_coverage=True)) != key_options(Options())


# ---------------------------------------------------------------- (b) vacuity


def test_no_signal_operation_executed_is_vacuous_even_with_expect_ok(work):
    code, text = sigproof("none.sig", at=work)
    assert code == 1
    assert text.splitlines()[0] == (
        "none.sig: FAIL: vacuous: no signal operation is ever executed (2 signal operations, none reached; "
        "the first is TNOTIFY(f @ 0, 1, AtomicAdd) at none.sig:7:9)")
    code, out = sigproof("none.sig", "--format", "json", at=work)
    (result,) = json.loads(out)["results"]
    assert result["status"] == "vacuous" and len(result["unreached"]) == 2
    _, out = sigproof("none.sig", "--format", "sarif", at=work)
    levels = [(r["ruleId"], r["level"]) for r in json.loads(out)["runs"][0]["results"]]
    assert levels == [("vacuous", "error"), ("unreached", "note"), ("unreached", "note")]
    _, out = sigproof("none.sig", "--format", "junit", at=work)
    assert ET.fromstring(out).find("testsuite").get("failures") == "1"
    _, out = sigproof("none.sig", "--format", "github", at=work)
    assert out.startswith("::error file=none.sig,line=7,col=9,title=sigproof vacuous::FAIL: vacuous")


def test_a_spec_without_signal_statements_is_vacuous_though_its_expected_assertion_fails(work):
    code, text = sigproof("empty.sig", at=work)
    assert code == 1
    assert text.splitlines()[0] == ("empty.sig: FAIL: vacuous: no signal operation is ever executed "
                                    "(the spec has no signal operation)")
    (r,) = check_file(work / "empty.sig")
    assert r.status == "vacuous" and r.violated == ["assertion"] and r.operations == 0 and r.unreached == ()


def test_an_unexpected_violation_stays_a_fail_and_a_limit_leaves_coverage_unknown(work):
    (work / "bad.sig").write_text(NOTHING_RUNS.replace("expect ok;", "expect deadlock;"))
    (r,) = check_file(work / "bad.sig")
    assert r.status == "fail" and r.unreached is not None and len(r.unreached) == 2  # fail: the verdict says more
    (r,) = check_file(ROOT / "specs" / "all_to_all_barrier.sig", options=Options(max_states=5))
    assert r.status == "inconclusive" and r.unreached is None


def test_a_wait_that_blocks_forever_is_reached(work):
    code, text = sigproof("stuck.sig", at=work)
    assert code == 0 and "never executed" not in text
    (r,) = check_file(work / "stuck.sig")
    assert r.status == "pass" and r.unreached == ()


def test_a_kernel_is_vacuous_at_its_skeleton_and_cited_at_its_cpp_lines(tmp_path):
    (tmp_path / "sigproof.toml").write_text('rank = "rank"\nranks = 2\n')
    head = "#include <pto/comm/pto_comm_inst.hpp>\n\n__global__ AICORE void {}(__gm__ int32_t *flag, int32_t rank)\n{{\n"
    (tmp_path / "empty.cpp").write_text(head.format("empty") + "    int32_t x = rank + 1;\n}\n")
    (tmp_path / "branch.cpp").write_text(head.format("branch") + (
        "    if (rank == 7) {\n"
        "        pto::comm::Signal sig(flag);\n"
        "        pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);\n"
        "    }\n}\n"))
    empty, branch = check_inputs([str(tmp_path / "empty.cpp"), str(tmp_path / "branch.cpp")])
    assert empty.error is None and branch.error is None
    assert empty.status == "vacuous" and empty.reason == "the skeleton has no signal operation"
    assert branch.status == "vacuous"
    (u,) = branch.unreached
    assert (u.span.file, u.span.line, u.span.col, u.statement) == (str(tmp_path / "branch.cpp"), 7, 9,
                                                                    "TWAIT(flag, 1, GE)")
    assert branch.reason == f"TWAIT(flag, 1, GE) at {tmp_path / 'branch.cpp'}:7:9 is never reached"



def test_a_vacuous_kernel_names_its_early_return_and_the_zero_param_it_guards_on(tmp_path):
    (tmp_path / "sigproof.toml").write_text('rank = "rank"\nranks = 2\n')
    (tmp_path / "early.cpp").write_text(
        "#include <pto/comm/pto_comm_inst.hpp>\n\n"
        "__global__ AICORE void early(__gm__ int32_t *flag, int32_t rank, int32_t numel)\n{\n"
        "    if (numel <= 0) {\n"
        "        return;\n"
        "    }\n"
        "    pto::comm::Signal sig(flag);\n"
        "    pto::comm::TNOTIFY(sig, 1, pto::comm::NotifyOp::Set);\n"
        "    pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);\n}\n")
    path = str(tmp_path / "early.cpp")
    (r,) = check_inputs([path], params={"NUMEL": 0})
    assert r.status == "vacuous" and r.params["NUMEL"] == 0
    assert [str(s) for s in r.returns_before] == [f"{path}:6:9"]
    assert r.reason.split("; ")[-2:] == [
        f"the code returns at {path}:6:9 before its first signal operation",
        f"NUMEL = 0 (a param of the extraction at {path}:3:66, set with -D NUMEL=...)"]
    (given,) = check_inputs([path], params={"NUMEL": 4})
    assert given.status == "pass" and given.reason == ""


def test_a_runtime_value_that_makes_a_kernel_do_nothing_at_zero_is_chosen_so_that_it_acts(tmp_path):
    """Issue 20, item 3: with `numel` of no known value the kernel is checked at the first of
    RUNTIME_VALUES at which it executes a signal operation, and says so; a value given with
    -D stays (above); a guard no tried value passes leaves the result vacuous."""
    from checker.kernels import RUNTIME_VALUES

    (tmp_path / "sigproof.toml").write_text('rank = "rank"\nranks = 2\n')
    body = ("#include <pto/comm/pto_comm_inst.hpp>\n\n"
            "__global__ AICORE void early(__gm__ int32_t *flag, int32_t rank, int32_t numel)\n{\n"
            "    if (GUARD) {\n"
            "        return;\n"
            "    }\n"
            "    pto::comm::Signal sig(flag);\n"
            "    pto::comm::TNOTIFY(sig, 1, pto::comm::NotifyOp::Set);\n"
            "    pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);\n}\n")
    for guard, value in (("numel <= 0", 1), ("numel < 3", 4), ("numel < 9", 16), ("numel != 7", None)):
        (tmp_path / "early.cpp").write_text(body.replace("GUARD", guard))
        (r,) = check_inputs([str(tmp_path / "early.cpp")])
        notes = [a for a in r.assumptions if "a runtime value, the first of" in a.message]
        if value is None:
            assert r.status == "vacuous" and r.params["NUMEL"] == 0 and not notes
            continue
        assert value in RUNTIME_VALUES
        assert (r.status, r.params["NUMEL"]) == ("pass", value), (guard, r.status, r.params)
        (note,) = notes
        assert note.message.startswith(f"NUMEL = {value}: ") and (note.span.line, note.span.col) == (3, 66)


def test_a_runtime_position_is_kept_at_zero_while_the_counts_are_tried(tmp_path):
    """pypto's allreduce returns when `block_idx >= block_num`: with every runtime value at one
    v it never acts (before, it acted only at 256, where `numel *= shape` over 256 dimensions
    left 2^64: a false error). Positions (IDX, INDEX, OFFSET, START, BEGIN) are also tried at
    0 with the rest at v, and said so (`tile_idx >= tile_count` here)."""
    (tmp_path / "sigproof.toml").write_text('rank = "rank"\nranks = 2\n')
    (tmp_path / "pos.cpp").write_text(
        "#include <pto/comm/pto_comm_inst.hpp>\n\n"
        "__global__ AICORE void pos(__gm__ int32_t *flag, int32_t rank, int32_t block_idx, int32_t block_num,"
        " int32_t numel)\n{\n"
        "    if (numel <= 0 || tile_idx >= tile_count) {\n"
        "        return;\n"
        "    }\n"
        "    pto::comm::Signal sig(flag);\n"
        "    pto::comm::TNOTIFY(sig, 1, pto::comm::NotifyOp::Set);\n"
        "    pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);\n}\n")
    (r,) = check_inputs([str(tmp_path / "pos.cpp")])
    assert r.status == "pass", (r.status, r.params)
    assert (r.params["TILE_IDX"], r.params["TILE_COUNT"], r.params["NUMEL"]) == (0, 1, 1), r.params
    notes = {a.message.split(":")[0]: a.message for a in r.assumptions if "runtime" in a.message and " = " in a.message}
    assert notes["TILE_IDX = 0"].startswith("TILE_IDX = 0: a runtime position (an index or offset)")
    assert "the first of 1, 2, 4, 16, 256" in notes["TILE_COUNT = 1"]


def test_a_vacuous_spec_names_the_return_before_its_first_signal_operation(work):
    (work / "guard.sig").write_text(
        "ranks 2;\nsignal f;\n\nkernel {\n    if (rank < 5) {\n        return;\n    }\n"
        "    TNOTIFY(f @ 0, 1, AtomicAdd);\n}\n")
    (r,) = check_file(work / "guard.sig")
    assert r.status == "vacuous", r.verdict
    assert r.reason.endswith(f"; the code returns at {(work / 'guard.sig').as_posix()}:6:9 before its first signal operation")


# ---------------------------------------------------------------- (c) shipped specs and corpus kernels

SHIPPED = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "specs").rglob("*.sig"))
KERNELS = sorted(p.relative_to(ROOT).as_posix() for pattern in ("corpus/*/*.cpp", "mlir_corpus/*/*.pto")
                 for p in (ROOT / "tests" / "frontends").glob(pattern) if p.stem == p.parent.name)


def test_there_are_specs_and_kernels_to_look_at():
    assert len(SHIPPED) >= 40 and len(KERNELS) >= 30


@pytest.mark.parametrize("path", SHIPPED + KERNELS)
def test_no_shipped_spec_or_corpus_kernel_is_vacuous(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    results = check_inputs([path], options=Options(max_states=20_000))
    assert results
    for r in results:
        assert r.error is None, r.error
        assert r.status != "vacuous", r.verdict
        assert r.operations, f"{path}: no signal operation"
        for u in r.unreached or ():  # cited in the file checked (a kernel: at its C++ lines)
            assert u.span.file.endswith(Path(path).name), u


def test_shipped_specs_reach_every_statement_but_after_two_expected_deadlocks(monkeypatch):
    """Information, pinned: only these statements of the shipped specs are never reached (both
    after the deadlock the spec expects)."""
    monkeypatch.chdir(ROOT)
    found = [(r.spec, u.text) for r in check_inputs(["specs"], jobs=1) for u in r.unreached or ()]
    assert found == [
        ("specs/bug_credit_never_returned.sig", "specs/bug_credit_never_returned.sig:29:9 TNOTIFY(credit, -K, AtomicAdd)"),
        ("specs/bug_wrong_count.sig", "specs/bug_wrong_count.sig:25:9 TNOTIFY(release, 1, Set)")]


# ---------------------------------------------------------------- (d) the same with and without reductions

BOUNDED = Options(max_states=30_000, timeout=60)
PLAIN = Options(max_states=30_000, timeout=60, por=False, symmetry=False)
SPECS_AND_REGRESSIONS = sorted(p.relative_to(ROOT).as_posix() for d in ("specs", "tests/regressions")
                               for p in (ROOT / d).rglob("*.sig"))


def same_coverage(reduced, plain) -> None:
    if reduced.unreached is None or plain.unreached is None:  # a limit: nothing to compare
        return
    assert reduced.unreached == plain.unreached
    assert reduced.status == plain.status


@pytest.mark.parametrize("path", SPECS_AND_REGRESSIONS)
def test_unreached_statements_are_the_same_without_reductions(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for reduced, plain in zip(check_file(path, options=BOUNDED), check_file(path, options=PLAIN), strict=True):
        same_coverage(reduced, plain)


RANDOM = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def random_agrees(text: str) -> None:
    program = compile_text(text)
    same_coverage(check_program(program, "x.sig", Options(max_states=4000)),
                  check_program(program, "x.sig", Options(max_states=4000, por=False, symmetry=False)))


@RANDOM
@given(specs())
def test_random_protocols_have_the_same_unreached_statements_reduced(text):
    random_agrees(text)


@settings(RANDOM, max_examples=60)
@given(symmetric_specs())
def test_random_symmetric_protocols_have_the_same_unreached_statements(text):
    random_agrees(text)


@settings(RANDOM, max_examples=60)
@given(data_specs())
def test_random_data_protocols_have_the_same_unreached_statements(text):
    random_agrees(text)


# ---------------------------------------------------------------- (e) the confirmation search is what makes it sound

# rank 0 chooses 0 or 1; only the choice 1 reaches the TNOTIFY
CHOICE = """ranks 2;
signal f;
kernel {
    if (rank == 0) {
        int x = any(0, 1);
        if (x == 1) {
            TNOTIFY(f @ 1, 1, AtomicAdd);
        }
    }
    TNOTIFY(f @ 0, 1, AtomicAdd);
}
"""


class Lossy:
    """A reduction that follows only the first enabled step: unsound, as a stand-in for a
    partial-order reduction that drops the only interleaving reaching a statement."""

    enabled = True

    def __init__(self, system, **kwargs):
        pass

    def ample(self, state, steps):
        return steps[:1] if len(steps) > 1 else None

    def cycles(self):
        return lambda state, step: True  # every step may close a cycle: the explorer keeps its proviso


def test_a_statement_the_reduction_drops_is_confirmed_reached_by_the_plain_search(monkeypatch):
    program = compile_text(CHOICE)
    system = System(program)
    judge = checker.check._Blind()
    lossy = explore(system, judge, reduce=Lossy(system).ample)
    assert [u.statement for u in coverage.unreached(program, [lossy])] == ["TNOTIFY(f @ 1, 1, AtomicAdd)"]
    assert coverage.unreached(program, [explore(system, judge)]) == ()
    monkeypatch.setattr(checker.check, "Reduction", Lossy)
    result = check_program(program, "x.sig", Options())
    assert result.stats.reduction == "partial-order"  # the lossy reduction was used ...
    assert result.unreached == ()  # ... and the confirmation found the statement reached
    result = check_program(program, "x.sig", Options(max_states=20))  # the reduced search has 8, the plain 36
    assert result.stop is None and result.status == "pass"
    assert result.unreached is None  # the confirmation hit the limit: unknown, never claimed unreached


# ---------------------------------------------------------------- the other views of a result


def test_every_view_of_a_result_carries_its_coverage(work, tmp_path):
    from checker import html, lsp, terminal
    from checker.cache import Cache
    from checker.certificate import entry
    from checker.records import result_from_data, result_to_data

    (branch,) = check_file(work / "branch.sig")
    (empty,) = check_file(work / "none.sig")
    stored = result_from_data(json.loads(json.dumps(result_to_data(branch))))
    assert stored.unreached == branch.unreached and stored.operations == branch.operations == 2
    cache = Cache(tmp_path / "cache")
    program = compile_text(BEHIND_A_BRANCH)
    cache.store(program, "b.sig", BEHIND_A_BRANCH, Options(), branch)
    assert cache.load(program, "b.sig", BEHIND_A_BRANCH, Options()).unreached == branch.unreached
    assert cache.load(program, "b.sig", BEHIND_A_BRANCH, Options(require_coverage=True)) is None  # keyed
    assert entry(branch, None)["unreached"] == [f"{work / 'branch.sig'}:6:9 TWAIT(f, 1, EQ)"]
    page = html.page([branch, empty], timing=False)
    assert "1 signal operation never executed" in page and "TWAIT(f, 1, EQ)" in page
    assert '<span class="vacuous">FAIL</span>: vacuous: no signal operation is ever executed' in page
    out = io.StringIO()
    terminal.text([branch, empty], out, timing=False)
    assert "branch.sig:6:9 TWAIT(f, 1, EQ)" in out.getvalue() and "FAIL" in out.getvalue()
    uri = (work / "branch.sig").as_uri()
    found = lsp.diagnostics(BEHIND_A_BRANCH, uri, check=True)
    (note,) = [d for d in found if d.code == "unreached"]
    assert (note.range.start.line, note.range.start.character, note.message) == (5, 8, "never executed: TWAIT(f, 1, EQ)")
    (summary,) = [d for d in lsp.diagnostics(NOTHING_RUNS, uri, check=True) if d.code == "verdict"]
    assert summary.message.startswith("FAIL: vacuous: no signal operation is ever executed")
    assert summary.severity == lsp.T.DiagnosticSeverity.Error


@pytest.mark.parametrize("symmetric", [False, True])
def test_each_state_of_a_fingerprint_store_is_the_state_its_trace_rebuilds(symmetric):
    from model.symmetry import Symmetry

    program = compile_text((ROOT / "bench" / "specs" / "ring_pipeline_flags.sig").read_text())
    system = System(program)
    symmetry = Symmetry.of(system)[0] if symmetric else None
    assert (symmetry is not None) == symmetric
    ex = explore(system, checker.check._Blind(), store="fingerprint", symmetry=symmetry)
    exact = explore(system, checker.check._Blind(), symmetry=symmetry)
    assert len(ex.store) == len(exact.store) > 100
    walked = list(ex.each_state())
    assert walked == [ex.state(i) for i in range(len(ex.store))]
    assert sorted(map(repr, walked)) == sorted(map(repr, exact.each_state()))


@pytest.mark.parametrize("spec", ["specs/bug_credit_never_returned.sig", "specs/bug_wrong_count.sig",
                                  "specs/bug_counter_set_instead_of_add.sig", "specs/ring_pipeline_ge.sig"])
def test_the_fingerprint_store_finds_the_same_unreached_statements(spec, monkeypatch):
    monkeypatch.chdir(ROOT)
    (exact,) = check_file(spec)
    (fingerprint,) = check_file(spec, options=Options(store="fingerprint"))
    assert exact.unreached is not None and fingerprint.unreached == exact.unreached

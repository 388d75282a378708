"""The pytest plugin (`checker.pytest_plugin`, entry point `sigproof`), run with pytester."""

import shutil

import pytest

# Imported here once: pytester's inline runs drop the modules they import, and numpy's C
# extension (loaded lazily by checker.properties for a deadlock's graph search) refuses a
# second load in one process.
import checker.cli  # noqa: F401
import numpy  # noqa: F401
import scipy.sparse.csgraph  # noqa: F401
from conftest import SPECS

pytest_plugins = ["pytester"]

SHIPPED = ("all_to_all_barrier.sig", "bug_ring_eq_overrun.sig", "ttest_polling.sig")
DEAD = "ranks 2;\nsignal f;\nkernel {\n  TWAIT(f, 1, EQ);\n}\n"


def run(pytester, *args):
    # Hypothesis' plugin imports hypothesis afresh in every inline run (1.5 s each): not needed here.
    return pytester.runpytest("-p", "no:hypothesispytest", *args)


@pytest.fixture
def specs(pytester):
    folder = pytester.mkdir("specs")
    for name in SHIPPED:
        shutil.copy(SPECS / name, folder / name)
    return folder


def test_the_plugin_is_installed_as_an_entry_point(pytester):
    result = run(pytester, "--trace-config", "--co", "-q")
    result.stdout.fnmatch_lines(["*checker/pytest_plugin.py*"])


def test_shipped_specs_pass(pytester, specs):
    result = run(pytester, "specs", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["specs/bug_ring_eq_overrun.sig::bug_ring_eq_overrun PASSED*"])


def test_a_broken_spec_fails_with_its_counterexample(pytester, specs):
    (specs / "dead.sig").write_text(DEAD)
    result = run(pytester, "specs")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "specs/dead.sig: FAIL: deadlock (expected ok)",
        "deadlock: no process can take a step, but the run has not finished",
        "  1. host 0  specs/dead.sig:3:1  launch (default host)",
        "  stuck:",
        "    rank 0 block 0 at specs/dead.sig:4:3: TWAIT(f, 1, EQ) waits for == 1; now f@0 = 0",
        "*FAILED specs/dead.sig::dead - specs/dead.sig: FAIL: deadlock (expected ok)*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_an_expected_violation_that_is_gone_fails(pytester, specs):
    text = (specs / "all_to_all_barrier.sig").read_text()
    assert text.count("expect ok for all N;") == 1
    text = text.replace("expect ok for all N;", "expect deadlock;")
    (specs / "all_to_all_barrier.sig").write_text(text)
    result = run(pytester, "specs/all_to_all_barrier.sig")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["specs/all_to_all_barrier.sig [[]N=4]: FAIL: ok (expected deadlock)",
                                 "deadlock: expected (`expect deadlock;`), but not found in the whole state space"])


def test_a_spec_error_fails_with_the_error(pytester, specs):
    (specs / "bad.sig").write_text("ranks 2;\nkernel { TWAIT(s, 1, EQ); }\n")
    result = run(pytester, "specs/bad.sig")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["specs/bad.sig:2:16: error: undeclared signal 's'"])
    assert "Traceback" not in result.stdout.str()


def test_a_sweep_makes_an_item_per_value(pytester, specs):
    result = run(pytester, "specs/all_to_all_barrier.sig", "--sigproof-sweep", "N=2..4", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*all_to_all_barrier[[]N=2] PASSED*", "*all_to_all_barrier[[]N=3] PASSED*",
                                 "*all_to_all_barrier[[]N=4] PASSED*"])


def test_two_sweeps_make_every_combination(pytester, specs):
    result = run(pytester, "specs/bug_ring_eq_overrun.sig", "--sigproof-sweep", "N=2..3",
                                "--sigproof-sweep", "S=1..2", "--co", "-q")
    result.stdout.fnmatch_lines(["*bug_ring_eq_overrun[[]N=2 S=1]", "*bug_ring_eq_overrun[[]N=2 S=2]",
                                 "*bug_ring_eq_overrun[[]N=3 S=1]", "*bug_ring_eq_overrun[[]N=3 S=2]"])


def test_a_bad_sweep_is_a_usage_error(pytester, specs):
    result = run(pytester, "specs", "--sigproof-sweep", "N=4..2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --sigproof-sweep N=4..2: expected NAME=LO..HI with integers LO <= HI"])


def test_defines_reach_the_checker(pytester, specs):
    result = run(pytester, "specs/all_to_all_barrier.sig", "--sigproof-define", "N=3", "-v")
    result.assert_outcomes(passed=1)
    result = run(pytester, "specs/all_to_all_barrier.sig", "--sigproof-define", "N=65")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ranks*"])  # 65 ranks is over the limit: the -D was applied


def test_inconclusive_fails_unless_allowed(pytester, specs):
    result = run(pytester, "specs/all_to_all_barrier.sig", "--sigproof-max-states", "5")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*INCONCLUSIVE: ok so far (expected ok)", "stopped early: state limit of 5 reached"])
    result = run(pytester, "specs/all_to_all_barrier.sig", "--sigproof-max-states", "5",
                                "--sigproof-allow-inconclusive", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*stopped early: state limit of 5 reached*"])


def test_jobs_is_accepted(pytester, specs):
    result = run(pytester, "specs/ttest_polling.sig", "--sigproof-jobs", "2")
    result.assert_outcomes(passed=1)


def test_specs_under_testpaths_are_not_collected_by_default(pytester, specs):
    """A project whose tests keep .sig files as data: its own pytest run is unchanged."""
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    tests = pytester.mkdir("tests")
    (tests / "data.sig").write_text(DEAD)
    (tests / "test_one.py").write_text("def test_one():\n    pass\n")
    run(pytester, ).assert_outcomes(passed=1)  # from testpaths
    run(pytester, "tests").assert_outcomes(passed=1)  # named, but it is a testpaths folder
    run(pytester, "tests/data.sig").assert_outcomes(failed=1)  # the file itself is named
    run(pytester, "--sigproof").assert_outcomes(passed=1, failed=1)
    run(pytester, "specs").assert_outcomes(passed=3)  # outside testpaths: collected


def test_the_ini_option_turns_collection_on_or_off(pytester, specs):
    pytester.makeini("[pytest]\nsigproof_collect = false\n")
    assert run(pytester, "specs").ret == pytest.ExitCode.NO_TESTS_COLLECTED
    run(pytester, "specs", "--sigproof").assert_outcomes(passed=3)
    pytester.makeini("[pytest]\ntestpaths = tests specs\nsigproof_collect = true\n")
    run(pytester, ).assert_outcomes(passed=3)


BRANCH = "ranks 2;\nsignal f;\nkernel {\n  if (rank == 5) {\n    TWAIT(f, 1, EQ);\n  }\n  TNOTIFY(f @ 0, 1, AtomicAdd);\n}\n"


def test_a_vacuous_spec_fails_and_coverage_can_be_required(pytester, specs):
    (specs / "none.sig").write_text(BRANCH.replace("  TNOTIFY(f @ 0, 1, AtomicAdd);\n", ""))
    (specs / "branch.sig").write_text(BRANCH)
    result = run(pytester, "specs")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["specs/none.sig: FAIL: vacuous: no signal operation is ever executed "
                                 "(TWAIT(f, 1, EQ) at specs/none.sig:5:5 is never reached)"])
    result = run(pytester, "specs/branch.sig", "--sigproof-require-coverage")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["specs/branch.sig: FAIL: ok, but 1 signal operation never executed "
                                 "(--require-coverage)", "1 signal operation never executed:",
                                 "  specs/branch.sig:5:5 TWAIT(f, 1, EQ)"])


def test_kernels_are_collected_and_checked_with_their_config(pytester):
    """A C++ kernel (with the sigproof.toml beside it) and an MLIR kernel are items like specs;
    a C++ helper source without a device entry point is not collected."""
    from conftest import ROOT

    folder = pytester.mkdir("kernels")
    for src in (ROOT / "tests" / "frontends" / "corpus" / "bug_counter_set").iterdir():
        shutil.copy(src, folder / src.name)
    shutil.copy(ROOT / "tests" / "frontends" / "mlir_corpus" / "a2a_barrier" / "a2a_barrier.pto", folder)
    (folder / "helper.cpp").write_text("int helper(int x) { return x + 1; }\n")
    result = run(pytester, "kernels", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["kernels/a2a_barrier.pto::a2a_barrier PASSED*",
                                 "kernels/bug_counter_set.cpp::bug_counter_set FAILED*"])
    result.stdout.fnmatch_lines(["kernels/bug_counter_set.cpp*: FAIL: deadlock (expected ok)*"])
    assert "helper" not in result.stdout.str()

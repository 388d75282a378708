"""Golden outputs for every shipped spec and regression spec, with pinned state counts.

Every spec must give its expected verdict. To accept a deliberate change of the output:
    SIGPROOF_UPDATE_GOLDEN=1 python -m pytest tests/test_specs.py
and review the diff of tests/golden/.
"""

import io
import os
from pathlib import Path

import pytest

from checker.cli import run

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SPECS = sorted(p.relative_to(ROOT).as_posix() for d in ("specs", "specs/field", "tests/regressions")
               for p in (ROOT / d).glob("*.sig"))


def output(spec: str, fmt: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["check", spec, "--no-timing", "--format", fmt], out, err)
    assert err.getvalue() == ""
    return code, out.getvalue()


def test_there_are_enough_specs():
    assert len([s for s in SPECS if s.startswith("specs/")]) >= 15


@pytest.mark.parametrize("spec", SPECS)
def test_spec_matches_golden_output(spec, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, text = output(spec, "text")
    assert code == 0, text  # the spec gives its expected verdict
    golden = GOLDEN / (Path(spec).stem + ".txt")
    if os.environ.get("SIGPROOF_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def test_lost_notification_names_the_unread_write(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, text = output("tests/regressions/lost_message_stale_writer.sig", "text")
    assert "written by TNOTIFY at tests/regressions/lost_message_stale_writer.sig:16:13 (rank 0 block 1)" in text
    assert "flag@1: 1 -> 1 (same value)" in text


def test_readme_getting_started_output_is_real(monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text()
    shown = readme.split("sigproof check specs/all_to_all_barrier.sig\n```\n\n```\n", 1)[1].split("```", 1)[0]
    code, text = output("specs/all_to_all_barrier.sig", "text")
    assert code == 0 and shown.replace(", 0.03 s\n", "\n") == text


def test_readme_counterexample_is_real_output():
    readme = (ROOT / "README.md").read_text()
    shown = readme.split("$ sigproof check specs/bug_ring_eq_overrun.sig\n", 1)[1].split("```", 1)[0]
    golden = (GOLDEN / "bug_ring_eq_overrun.txt").read_text()
    assert shown.replace(", 0.00 s\n", "\n") == golden

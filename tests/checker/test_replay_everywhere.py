"""Every counterexample the checker prints replays: each spec in specs/ and each corpus kernel
(C++ and MLIR), checked under each semantics its verdict can depend on, has every violation of
its JSON result replayed by `sigproof replay` taking the semantics from that JSON alone."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from checker.cli import run
from conftest import SPECS

ROOT = Path(__file__).resolve().parents[2]
CORPORA = (ROOT / "tests" / "frontends" / "corpus", ROOT / "tests" / "frontends" / "mlir_corpus")
LIMIT = "20000"  # a run this limit stops is inconclusive; its violations so far replay all the same


def _kernels() -> list[Path]:
    out = []
    for corpus in CORPORA:
        for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
            out += sorted(q for q in folder.iterdir() if q.suffix in (".cpp", ".pto") and q.stem == folder.name)
    return out


def _variants(text: str) -> list[list[str]]:
    """The semantic flags under which this input's verdict may differ from the defaults."""
    out = [[]]
    if "TWAIT" in text or "TTEST" in text:
        out.append(["--tensor-wait", "atomic"])
    if any(w in text for w in ("buffer", "TPUT", "TGET", "Tput", "Tget", "tput", "tget", "fence", "TSTORE")):
        out.append(["--memory-model", "sc"])
    if "Set" in text:
        out.append(["--set-granularity", "line"])
    return out


INPUTS = sorted(SPECS.rglob("*.sig")) + _kernels()
CASES = [(p, flags) for p in INPUTS for flags in _variants(p.read_text(encoding="utf-8"))]


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("path,flags", CASES,
                         ids=[f"{p.relative_to(ROOT)}{''.join(' ' + f for f in fl)}" for p, fl in CASES])
def test_every_printed_trace_replays(path, flags, tmp_path):
    rel = path.relative_to(ROOT).as_posix()
    code, out, err = _cli("check", rel, *flags, "--format", "json", "--no-timing", "-j", "1",
                          "--max-states", LIMIT)
    assert code in (0, 1, 3), err
    doc = json.loads(out)
    (result,) = doc["results"]
    given = dict(zip(flags[::2], flags[1::2]))
    for flag, value in given.items():  # the JSON says what the run meant
        assert result["semantics"][flag[2:].replace("-", "_")] == value
    trace = tmp_path / "t.json"
    trace.write_text(out)
    for prop in dict.fromkeys(v["property"] for v in result["violations"]):
        code, shown, err = _cli("replay", rel, trace, "--property", prop)
        assert code == 0, f"{rel} {flags} {prop}: {err}"
        assert "replayed all" in shown


def test_the_issue_reproduction_replays(tmp_path):
    """`--set-granularity line` found a lost notification that the default semantics cannot replay."""
    code, out, _ = _cli("check", "specs/packed_set_slots.sig", "--set-granularity", "line", "--format", "json",
                        "--no-timing", "-j", "1")
    assert code == 1
    trace = tmp_path / "t.json"
    trace.write_text(out)
    code, shown, err = _cli("replay", "specs/packed_set_slots.sig", trace, "--property", "lost_notification")
    assert code == 0 and "replayed all" in shown, err
    # the flag still overrides what the JSON says: under word granularity the trace cannot be taken
    code, _, err = _cli("replay", "specs/packed_set_slots.sig", trace, "--property", "lost_notification",
                        "--set-granularity", "word")
    assert code == 1 and "does not replay" in err


def test_a_kernel_trace_replays_at_its_cpp_lines(tmp_path):
    kernel = "tests/frontends/corpus/bug_counter_set/bug_counter_set.cpp"
    code, out, _ = _cli("check", kernel, "--format", "json", "--no-timing", "-j", "1")
    assert code == 1
    doc = json.loads(out)
    steps = doc["results"][0]["violations"][0]["trace"]
    assert steps and all(s["location"].startswith(kernel + ":") for s in steps)
    trace = tmp_path / "t.json"
    trace.write_text(out)
    code, shown, err = _cli("replay", kernel, trace)
    assert code == 0 and "replayed all" in shown, err
    assert f"{kernel}:" in shown and ".cpp.sig" not in shown
    # an edited location is caught
    steps[0]["location"] = kernel + ":1:1"
    trace.write_text(json.dumps(doc))
    code, _, err = _cli("replay", kernel, trace)
    assert code == 1 and "step 1" in err

"""The result cache (--cache), stored results, and certificates (--certificate, verify-certificate)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from model.semantics import Semantics

from checker import cache as cache_mod
from checker import check as check_mod
from checker.check import Options, check_file
from checker.cli import run
from checker.records import result_from_data, result_to_data
from checker.report import text, write_json
from conftest import ROOT, SPECS

BUG = "bug_a2a_reset_after_wait.sig"
OK = "all_to_all_barrier.sig"


def _cli(*argv, cwd=None):
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = run(list(argv), out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def spy(monkeypatch):
    """Counts the checks that really explore."""
    calls = []
    real = check_mod.check_program

    def counting(program, spec, options=Options(), progress=None):
        calls.append(spec)
        return real(program, spec, options, progress)

    monkeypatch.setattr(check_mod, "check_program", counting)
    return calls


def _forbid_exploring(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("explored although the result was cached")

    monkeypatch.setattr(check_mod, "check_program", boom)
    monkeypatch.setattr(check_mod, "explore", boom)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_second_run_comes_from_the_cache_and_renders_the_same(tmp_path, monkeypatch, fmt):
    argv = ["check", "-j", "1", "--no-timing", "--format", fmt, "--cache", str(tmp_path / "c"),
            str(SPECS / BUG), str(SPECS / OK)]
    code1, first, _ = _cli(*argv)
    _forbid_exploring(monkeypatch)
    code2, second, _ = _cli(*argv)
    assert code1 == code2 == 0
    if fmt == "text":
        assert second.count("  (from the cache)\n") == 2
        assert second.replace("  (from the cache)\n", "") == first
        lines = second.splitlines()
        assert lines[lines.index("  (from the cache)") - 1].endswith("PASS: deadlock, lost_notification")
    else:
        doc = json.loads(second)
        assert [r.get("cached") for r in doc["results"]] == [True, True]
        for r in doc["results"]:
            del r["cached"]
        assert doc == json.loads(first)
        assert "cached" not in first


def _copy_spec(tmp_path, name=OK):
    path = tmp_path / name
    path.write_text((SPECS / name).read_text())
    return path


def test_a_changed_spec_option_or_version_misses(tmp_path, monkeypatch, spy):
    spec = _copy_spec(tmp_path)
    folder = tmp_path / "c"
    base = ["check", "-j", "1", "--no-timing", "--cache", str(folder)]
    _cli(*base, str(spec))
    _cli(*base, str(spec))
    assert len(spy) == 1  # the second run was served from the cache
    spec.write_text(spec.read_text() + "\n// a comment\n")
    code, out, _ = _cli(*base, str(spec))
    assert len(spy) == 2 and "(from the cache)" not in out and code == 0
    _cli(*base, "--dfs", str(spec))
    _cli(*base, "--tensor-wait", "atomic", str(spec))
    _cli(*base, "-D", "N=3", str(spec))
    assert len(spy) == 5
    monkeypatch.setattr(cache_mod, "version", lambda: "99.0")
    _cli(*base, str(spec))
    assert len(spy) == 6
    monkeypatch.setattr(cache_mod, "code_digest", lambda: "0" * 64)
    _cli(*base, str(spec))
    assert len(spy) == 7
    code, out, _ = _cli(*base, str(spec))  # and that last one is now cached under its own key
    assert len(spy) == 7 and "(from the cache)" in out


def test_every_option_but_state_digest_is_in_the_key():
    keyed = cache_mod.key_options(Options())
    assert set(keyed) == {f for f in Options.__dataclass_fields__} - {"state_digest"}
    key = lambda o: cache_mod.cache_key("s", "x.sig", {"N": 2}, o, sigproof_version="1", code="c")  # noqa: E731
    assert key(Options()) == key(Options(state_digest=True))
    assert len({key(Options()), key(Options(order="dfs")), key(Options(max_states=10)), key(Options(fail_fast=True)),
                key(Options(clean_exit=True)), key(Options(timeout=5.0)), key(Options(semantics=Semantics(tensor_wait="atomic")))}) == 7


def test_runs_stopped_by_time_are_not_stored(tmp_path):
    from checker.result import Result, Stop

    c = cache_mod.Cache(tmp_path)
    program = type("P", (), {"params": {}})()
    c.store(program, "x.sig", "src", Options(), Result("x.sig", {}, stop=Stop("timeout", "t")))
    assert c.load(program, "x.sig", "src", Options()) is None
    c.store(program, "x.sig", "src", Options(), Result("x.sig", {}))
    assert c.load(program, "x.sig", "src", Options()).cached


@pytest.mark.parametrize("name", [BUG, "bug_credit_never_returned.sig", "bug_overflow.sig", OK])
def test_stored_results_load_back_equal(name):
    (result,) = check_file(SPECS / name, options=Options(state_digest=True))
    back = result_from_data(json.loads(json.dumps(result_to_data(result))))
    assert back == result
    for render in (lambda r, o: text([r], o), lambda r, o: write_json([r], o)):
        a, b = io.StringIO(), io.StringIO()
        render(result, a)
        render(back, b)
        assert a.getvalue() == b.getvalue()


def test_state_digest_is_stable_across_processes():
    code = ("from checker.check import *; from conftest import SPECS; "
            f"print(check_file(SPECS / {OK!r}, options=Options(state_digest=True))[0].stats.state_digest)")
    outs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "tests")}
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1 and outs.pop().startswith("33:")


@pytest.fixture(scope="module")
def certified(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certified")
    (folder / "specs").mkdir()
    for name in (BUG, OK):
        (folder / "specs" / name).write_text((SPECS / name).read_text())
    code, _, err = _cli("check", "-j", "1", "--certificate", "cert.json", "specs", cwd=folder)
    assert code == 0, err
    return folder


@pytest.fixture
def cert(certified, tmp_path):
    import shutil

    shutil.copytree(certified, tmp_path, dirs_exist_ok=True)
    return tmp_path / "cert.json"


def test_certificate_round_trips(tmp_path, cert):
    doc = json.loads(cert.read_text())
    assert [c["spec"] for c in doc["checks"]] == [f"specs/{OK}", f"specs/{BUG}"]
    ok = doc["checks"][0]
    assert (ok["status"], ok["states"], ok["transitions"], ok["params"]) == ("pass", 33, 32, {"N": 4})
    assert ok["state_digest"].startswith("33:") and len(ok["sha256"]) == 64
    assert doc["checks"][1]["violated"] == doc["checks"][1]["expected"] == ["deadlock", "lost_notification"]
    assert doc["options"]["order"] == "bfs"
    code, out, _ = _cli("verify-certificate", "cert.json", cwd=tmp_path)
    assert code == 0 and "verified: 2 check(s) reproduce exactly" in out


def _reseal(doc):
    from checker.certificate import _seal

    doc["seal"] = _seal(doc)


@pytest.mark.parametrize("tamper, says", [
    (lambda d: d["checks"][0].update(states=32), "states: the certificate says 32, the check gives 33"),
    (lambda d: d["checks"][0].update(transitions=1), "transitions"),
    (lambda d: d["checks"][1].update(status="fail"), 'status: the certificate says "fail"'),
    (lambda d: d["checks"][1].update(violated=[]), "violated"),
    (lambda d: d["checks"][0].update(state_digest="33:" + "0" * 32), "state_digest"),
    (lambda d: d["options"].update(max_states=100), "stop_reason"),
])
@pytest.mark.parametrize("resealed", [False, True])
def test_a_tampered_certificate_is_rejected(tmp_path, cert, tamper, says, resealed):
    doc = json.loads(cert.read_text())
    tamper(doc)
    if resealed:  # a careful forger: the seal matches, but the re-run does not
        _reseal(doc)
    cert.write_text(json.dumps(doc))
    code, out, _ = _cli("verify-certificate", "cert.json", cwd=tmp_path)
    assert code == 1 and "does NOT reproduce" in out and says in out
    assert ("the seal does not match" in out) is not resealed


def test_a_changed_spec_does_not_verify(tmp_path, cert):
    spec = tmp_path / "specs" / OK
    spec.write_text(spec.read_text() + "\n")
    code, out, _ = _cli("verify-certificate", str(cert), cwd=tmp_path)
    assert code == 1 and "the spec file changed" in out


def test_a_certificate_from_another_version_does_not_verify(tmp_path, cert, monkeypatch):
    monkeypatch.setattr(cache_mod, "version", lambda: "9.9")
    import checker.certificate as C

    monkeypatch.setattr(C, "version", lambda: "9.9")
    code, out, _ = _cli("verify-certificate", str(cert), cwd=tmp_path)
    assert code == 1 and "this is sigproof 9.9" in out


@pytest.mark.parametrize("content", ["not json", "{}", '{"sigproof_certificate": 1}', "[1]"])
def test_not_a_certificate_is_a_usage_error(tmp_path, content):
    path = tmp_path / "c.json"
    path.write_text(content)
    code, out, err = _cli("verify-certificate", str(path))
    assert code == 2 and err.startswith("sigproof: error: ") and "Traceback" not in err


def test_missing_certificate_is_a_usage_error(tmp_path):
    code, _, err = _cli("verify-certificate", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err


def test_a_certificate_from_cached_results_has_the_state_digest(tmp_path, spy):
    spec = _copy_spec(tmp_path)
    base = ["check", "-j", "1", "--cache", str(tmp_path / "c"), str(spec)]
    _cli(*base)
    _cli(*base, "--certificate", str(tmp_path / "a.json"))  # the stored result has no digest: checked again
    code, out, _ = _cli(*base, "--certificate", str(tmp_path / "b.json"))
    assert len(spy) == 2 and "(from the cache)" in out
    a, b = (json.loads((tmp_path / n).read_text())["checks"][0] for n in ("a.json", "b.json"))
    assert a == b and a["state_digest"].startswith("33:")


def test_a_certificate_states_and_reruns_its_semantics(tmp_path):
    """A certificate made under --set-granularity line records it and verifies under it; the
    same certificate claimed for the default semantics does not reproduce."""
    (tmp_path / "specs").mkdir()
    spec = "packed_set_slots.sig"
    (tmp_path / "specs" / spec).write_text((SPECS / spec).read_text())
    code, _, err = _cli("check", "-j", "1", "--set-granularity", "line", "--certificate", "cert.json",
                        f"specs/{spec}", cwd=tmp_path)
    assert code == 1, err  # line granularity finds the lost notification the spec does not expect
    doc = json.loads((tmp_path / "cert.json").read_text())
    assert doc["options"]["semantics"] == {"tensor_wait": "pass", "memory_model": "pto", "set_granularity": "line"}
    assert doc["checks"][0]["semantics"]["set_granularity"] == "line"
    assert "lost_notification" in doc["checks"][0]["violated"]
    code, out, _ = _cli("verify-certificate", "cert.json", cwd=tmp_path)
    assert code == 0, out
    doc["options"]["semantics"]["set_granularity"] = "word"
    _reseal(doc)
    (tmp_path / "cert.json").write_text(json.dumps(doc))
    code, out, _ = _cli("verify-certificate", "cert.json", cwd=tmp_path)
    assert code == 1 and "violated" in out and "semantics" in out


def test_a_cached_result_is_not_served_for_another_semantics(tmp_path, spy):
    spec = str(SPECS / "packed_set_slots.sig")
    base = ("check", "-j", "1", "--no-timing", "--cache", str(tmp_path), "--format", "json")
    code, word, _ = _cli(*base, spec)
    code_line, line, _ = _cli(*base, "--set-granularity", "line", spec)
    assert len(spy) == 2 and (code, code_line) == (0, 1)
    assert json.loads(line)["results"][0]["semantics"]["set_granularity"] == "line"
    _, again, _ = _cli(*base, "--set-granularity", "line", spec)
    assert len(spy) == 2 and json.loads(again)["results"][0]["violated"] == json.loads(line)["results"][0]["violated"]
    assert json.loads(again)["results"][0]["semantics"]["set_granularity"] == "line"

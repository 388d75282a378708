"""`sigproof check --format itf`: the counterexamples as Apalache ITF traces (checker/itf.py).

Each trace is checked against a hand-written validator of ADR-015's shapes and replayed
against the JSON document of the same check: its actions are the JSON steps, every read sees
and every write changes the value the ITF states hold, and the last state holds the final
values of the situation."""

import io
import json
import re
from pathlib import Path

import pytest

from checker.cli import run

ROOT = Path(__file__).resolve().parents[2]
SAFE = 2**53 - 1
DEAD = "ranks 2;\nsignal f;\nkernel {\n  TWAIT(f, 1, EQ);\n}\n"
# a local beyond the JSON-safe range (x = 2^60 after the second shift), then a deadlock
BIG = ("ranks 2;\nsignal f;\nkernel {\n  int x = 1;\n  for (int i = 0; i < 2; i++) {\n    x = x << 30;\n"
       "    if (rank == 0) TNOTIFY(f @ 1, 1, AtomicAdd);\n  }\n  TWAIT(f, 3, EQ);\n}\n")
# f is read (7, its INIT) before anything writes it; g only appears in the final situation
INIT = "ranks 2;\nsignal f = 7;\nsignal g = 3;\nkernel {\n  TWAIT(f, 7, EQ);\n  TWAIT(g, 1, EQ);\n}\n"


def sigproof(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out, err)
    return code, out.getvalue()


def both(path, *flags):
    """The exit codes and documents of `--format json` and `--format itf` for the same check."""
    code_j, out_j = sigproof("check", path, "--no-timing", "--format", "json", *flags)
    code_i, out_i = sigproof("check", path, "--no-timing", "--format", "itf", *flags)
    return code_j, json.loads(out_j), code_i, out_i


# ---- a validator of ADR-015 (https://apalache-mc.org/docs/adr/015adr-trace.html) ----------------

def check_value(v, where="value"):
    """Raise AssertionError unless v is an ITF expression."""
    if isinstance(v, (bool, str)):
        return
    if isinstance(v, int):
        assert -SAFE <= v <= SAFE, f"{where}: {v} is outside the JSON-safe range; use #bigint"
        return
    if isinstance(v, list):
        for i, x in enumerate(v):
            check_value(x, f"{where}[{i}]")
        return
    assert isinstance(v, dict), f"{where}: {v!r} is no ITF expression"
    special = [k for k in v if k.startswith("#")]
    if not special:  # a record
        for k, x in v.items():
            check_value(x, f"{where}.{k}")
        return
    assert len(v) == 1, f"{where}: {sorted(v)}: a #form has exactly one key"
    (tag,) = special
    body = v[tag]
    if tag == "#bigint":
        assert isinstance(body, str) and re.fullmatch(r"-?[0-9]+", body), f"{where}: bad #bigint {body!r}"
    elif tag in ("#tup", "#set"):
        assert isinstance(body, list), f"{where}: {tag} needs an array"
        check_value(body, where + tag)
    elif tag == "#map":
        assert isinstance(body, list), f"{where}: #map needs an array"
        for i, pair in enumerate(body):
            assert isinstance(pair, list) and len(pair) == 2, f"{where}#map[{i}]: not a [key, value] pair"
            check_value(pair, f"{where}#map[{i}]")
    elif tag == "#unserializable":
        assert isinstance(body, str)
    else:
        raise AssertionError(f"{where}: unknown form {tag}")


def check_trace(t):
    """Raise AssertionError unless t is an ITF trace object."""
    assert isinstance(t, dict) and set(t) <= {"#meta", "params", "vars", "states", "loop"}, sorted(t)
    assert isinstance(t.get("#meta", {}), dict)
    names = t["vars"] + t.get("params", [])
    assert all(isinstance(n, str) and not n.startswith("#") for n in names) and len(set(names)) == len(names)
    assert isinstance(t["states"], list) and t["states"]
    for i, s in enumerate(t["states"]):
        assert isinstance(s, dict) and isinstance(s.get("#meta", {}), dict)
        assert set(s) - {"#meta"} == set(t["vars"]) | (set(t.get("params", [])) if i == 0 else set()), sorted(s)
        assert s["#meta"]["index"] == i
        for k, v in s.items():
            if k != "#meta":
                check_value(v, f"states[{i}].{k}")
    if "loop" in t:
        assert isinstance(t["loop"], int) and 0 <= t["loop"] < len(t["states"])


def as_dict(m):
    assert set(m) == {"#map"}
    return {k: v for k, v in m["#map"]}


def number(v):
    return int(v["#bigint"]) if isinstance(v, dict) else v


# ---- replay against the JSON document ------------------------------------------------------------

def replay(trace, violation):
    """The ITF trace tells the JSON counterexample's story, state by state."""
    steps = violation["trace"]
    states = trace["states"]
    assert len(states) == len(steps) + 1
    assert states[0]["action"] == "init"
    assert [s["action"] for s in states[1:]] == [f"{s['process']}: {s['statement']}" for s in steps]
    assert [s["process"] for s in states[1:]] == [s["process"] for s in steps]
    assert [s["effects"] for s in states[1:]] == [s["effects"] for s in steps]
    signals = [{k: number(v) for k, v in as_dict(s["signals"]).items()} for s in states]
    assert len({tuple(s) for s in signals}) == 1  # the same elements in every state
    for i, step in enumerate(steps, 1):
        before, after = signals[i - 1], signals[i]
        written = {}
        for d in step["details"]:
            if d["kind"] == "read":
                assert before[d["element"]] == d["value"], (i, d)
            elif d["kind"] == "write":
                assert before[d["element"]] == d["old"], (i, d)
                written[d["element"]] = d["new"]
        assert after == {**before, **written}, i
        last = as_dict(states[i]["last"])
        assert last[step["process"]] == f"{step['location']} {step['statement']}"
        locals_ = {p: {k: number(v) for k, v in as_dict(ls).items()} for p, ls in as_dict(states[i]["locals"]).items()}
        for k, v in step["locals"].items():
            assert locals_[step["process"]][k] == v, (i, k)
    final = signals[-1]
    for x in violation["situation_details"]:
        for e in x.get("elements", []):
            assert final[e["element"]] == e["value"], e
        if x["kind"] == "dirty":
            assert final[x["element"]] == x["value"] and signals[0][x["element"]] == x["initial"], x


CASES = {  # shipped bugs: spec -> the property whose counterexample must replay
    "bug_wrong_count": "deadlock",
    "bug_async_put_no_wait": "data_race",
    "bug_reset_race": "lost_notification",
    "bug_twait_phases_no_barrier": "lost_notification",
    "bug_reuse_without_reset": "assertion",
    "bug_overflow": "overflow",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shipped_bug_traces_are_itf_and_replay_the_json_trace(name):
    path = Path("specs") / f"{name}.sig"
    code_j, doc, code_i, out = both(ROOT / path)
    assert code_i == code_j
    traces = json.loads(out)
    violations = [(r, v) for r in doc["results"] for v in r["violations"]]
    assert len(traces) == len(violations) >= 1
    assert CASES[name] in [v["property"] for _, v in violations]
    for t, (r, v) in zip(traces, violations):
        check_trace(t)
        assert "loop" not in t
        meta = t["#meta"]
        assert meta["format"] == "ITF" and meta["source"] == r["spec"]
        assert (meta["spec"], meta["params"], meta["property"], meta["message"]) == \
            (r["spec"], r["params"], v["property"], v["message"])
        assert meta["semantics"] == r["semantics"] and meta["expected"] == (v["property"] in r["expected"])
        assert meta["verdict"] == "PASS: " + ", ".join(r["violated"])
        assert set(meta["varTypes"]) == set(t["vars"])
        replay(t, v)


def test_a_passing_spec_gives_an_empty_list():
    code_j, doc, code_i, out = both(ROOT / "specs" / "doc_single_signal.sig")
    assert code_j == code_i == 0 and doc["results"][0]["violations"] == []
    assert out == "[]\n"


def test_exit_codes_are_those_of_json(tmp_path):
    dead = tmp_path / "dead.sig"
    dead.write_text(DEAD)
    expected = tmp_path / "expected.sig"
    expected.write_text("expect deadlock;\n" + DEAD)
    broken = tmp_path / "broken.sig"
    broken.write_text("ranks 2;\nkernel {\n  TWAIT(f, 1, ==);\n}\n")
    cases = [(dead, (), 1), (expected, (), 0), (broken, (), 2),
             (ROOT / "specs" / "doc_single_signal.sig", ("--max-states", "2"), 3)]
    for path, flags, want in cases:
        code_j, doc, code_i, out = both(path, *flags)
        assert code_j == code_i == want, path
        traces = json.loads(out)
        assert len(traces) == sum(len(r["violations"]) for r in doc["results"])
        for t in traces:
            check_trace(t)
    (t,) = json.loads(both(dead)[3])
    assert t["#meta"]["verdict"] == "FAIL: deadlock (expected ok)" and t["#meta"]["expected"] is False


def test_big_locals_are_bigints_and_the_output_has_no_timing(tmp_path):
    p = tmp_path / "big.sig"
    p.write_text(BIG)
    code_j, doc, code_i, out = both(p)
    (t,) = json.loads(out)
    check_trace(t)
    replay(t, doc["results"][0]["violations"][0])
    last = as_dict(as_dict(t["states"][-1]["locals"])["rank 0 block 0"])
    assert last["x"] == {"#bigint": str(2**60)}
    assert sigproof("check", p, "--format", "itf")[1] == out  # with timing on: the same bytes


def test_values_before_the_first_write_come_from_reads_and_the_situation(tmp_path):
    p = tmp_path / "init.sig"
    p.write_text(INIT)
    code_j, doc, code_i, out = both(p)
    assert code_j == code_i == 1
    (t,) = json.loads(out)
    check_trace(t)
    replay(t, doc["results"][0]["violations"][0])
    assert as_dict(t["states"][0]["signals"]) == {"f@0": 7, "f@1": 7, "g@0": 3, "g@1": 3}


def test_the_validator_has_teeth():
    for bad in ({"#bigint": "1e3"}, 2**53, {"#map": [[1]]}, {"#set": 1}, {"#tup": [], "x": 1}, 1.5, None,
                {"#map": [["a", 2**60]]}):
        with pytest.raises(AssertionError):
            check_value(bad)
    for good in ({"#bigint": "-12"}, {"#map": [[{"#tup": [1, "a"]}, {"#set": []}]]}, {"a": [True, "x"]}):
        check_value(good)

"""`sigproof extract KERNEL.cpp` and `sigproof check KERNEL.cpp`: C++ kernels checked directly,
with verdicts, traces and assumptions that cite the kernel's C++ lines."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from frontends.cpp import extract
from helpers import sigproof

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "frontends" / "corpus"
KERNELS = sorted(p.name for p in CORPUS.iterdir() if (p / f"{p.name}.cpp").is_file())
BAD = "__global__ AICORE void k(__gm__ int32_t *f) {\n  TNOTIFY(Signal(f), 1, NotifyOp::Set)\n  int x = ;\n}\n"
OK_SIG = "ranks 2;\nsignal f;\nkernel {\n  if (rank == 0) TNOTIFY(f @ 1, 1, Set);\n  else TWAIT(f, 1, EQ);\n}\n"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def kernel(name: str) -> str:
    return f"tests/frontends/corpus/{name}/{name}.cpp"


def check_json(*argv):
    code, out, err = sigproof("check", *argv, "--format", "json", "--no-timing", "-j", "1")
    assert code in (0, 1), err
    return code, json.loads(out)


def cpp_line(file: str, line: int) -> str:
    lines = Path(file).read_text().splitlines()
    assert 1 <= line <= len(lines), (file, line)
    return lines[line - 1]


def spans(doc):
    """Every span ({"file", "line", ...}) anywhere in a JSON document."""
    if isinstance(doc, dict):
        if {"file", "line"} <= doc.keys():
            yield doc
        for v in doc.values():
            yield from spans(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from spans(v)


# ---------------------------------------------------------------- check KERNEL.cpp

def test_a_correct_kernel_is_ok():
    code, out, err = sigproof("check", kernel("a2a_barrier"), "--no-timing")
    assert code == 0, err
    assert out.splitlines()[0] == f"{kernel('a2a_barrier')} [NRANKS=3 NBLOCKS=1]: PASS: ok"


def test_a_buggy_kernel_gives_its_violation_with_a_trace_on_cpp_lines():
    code, doc = check_json(kernel("bug_counter_set"))
    assert code == 1
    (r,) = doc["results"]
    assert r["spec"] == kernel("bug_counter_set") and r["violated"] == ["deadlock"]
    (v,) = r["violations"]
    notifies = [s for s in v["trace"] if s["statement"].startswith("TNOTIFY")]
    assert len(notifies) == 6
    for s in notifies:  # the C++ line of each step holds the TNOTIFY call it models
        assert s["location"] == f"{kernel('bug_counter_set')}:20:13"
        assert "comm::TNOTIFY(c, 1, comm::NotifyOp::Set);" in cpp_line(s["span"]["file"], s["span"]["line"])
    for s in v["trace"]:
        if s["statement"] == "launch":  # host code is not extracted: cited at the kernel
            assert "void bug_counter_set(" in cpp_line(s["span"]["file"], s["span"]["line"])
    stuck = [x for x in v["situation_details"] if x["statement"].startswith("TWAIT")]
    assert len(stuck) == 3
    for x in stuck:
        assert "comm::TWAIT(mine, nranks - 1" in cpp_line(x["span"]["file"], x["span"]["line"])
    assert f"{kernel('bug_counter_set')}:24:5: TWAIT(count, nranks - 1, GE) waits for >= 2" in v["situation"][-1]


BUGGY = {"bug_counter_set": ["deadlock"], "bug_done_epilogue": ["dirty_exit"],
         "bug_ring_poll_eq": ["deadlock", "lost_notification"], "bug_slot_overrun": ["error"],
         "bug_runtime_peer_any": ["deadlock"], "bug_put_notify_no_fence": ["data_race"]}


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_every_cited_line_holds_the_call_it_models(name):
    _, doc = check_json(kernel(name))
    (r,) = doc["results"]
    assert r["violated"] == BUGGY[name]
    calls = 0
    for v in r["violations"]:
        cited = [(s["statement"], s["span"]) for s in v["trace"]]
        cited += [(x["statement"], x["span"]) for x in v["situation_details"] if "statement" in x]
        for statement, span in cited:
            op = statement.split("(")[0]
            line = cpp_line(span["file"], span["line"])
            if op in ("TNOTIFY", "TWAIT", "TTEST", "TPUT", "TGET"):
                assert op in line[span["column"] - 1:], (statement, line)
                calls += 1
            elif op in ("READ", "WRITE"):
                assert ("TLOAD" if op == "READ" else "TSTORE") in line[span["column"] - 1:], (statement, line)
            elif statement == "launch":
                assert f"void {name}(" in line
    assert calls > 0


def test_a_fault_cites_the_cpp_call_in_its_message():
    # --no-por: the shortest path to an out-of-bounds index is rank 1's TNOTIFY (the reduced
    # search may report rank 0's TWAIT loop over the same table first, also a real fault)
    _, doc = check_json(kernel("bug_slot_overrun"), "--no-por")
    (v,) = doc["results"][0]["violations"]
    where = f"{kernel('bug_slot_overrun')}:20:5"
    assert v["message"].endswith(f"index 2 is out of bounds for dimension 0 of 'arrive' (size 2) at {where}")
    assert "comm::TNOTIFY(comm::Signal(root)" in cpp_line(kernel("bug_slot_overrun"), 20)
    (fault,) = [d for s in v["trace"] for d in s["details"] if d["kind"] == "fault"]
    assert fault["span"]["file"] == kernel("bug_slot_overrun") and fault["span"]["line"] == 20


def test_the_text_report_cites_cpp_and_lists_the_assumptions_after_the_verdict():
    code, out, _ = sigproof("check", kernel("bug_ring_poll_eq"), "--no-timing")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{kernel('bug_ring_poll_eq')} [NRANKS=2 NBLOCKS=1]: FAIL: deadlock, lost_notification (expected ok)"
    assert lines[1].startswith("  assumptions of the extraction (")
    assumed = [ln.strip() for ln in lines if ": assumed: " in ln]
    assert assumed == [str(a) for a in extract([kernel("bug_ring_poll_eq")]).assumptions]
    # the overwrite happens at the TNOTIFY inside the helper Post, the lost value is polled at line 30
    assert re.search(rf"{re.escape(kernel('bug_ring_poll_eq'))}:21:5 +TNOTIFY\(flag @ next, step \+ 1, Set\)", out)
    assert f"{kernel('bug_ring_poll_eq')}:30:16: TTEST(flag, step + 1, EQ)" in out
    assert ".sig" not in out
    _, quiet, _ = sigproof("check", kernel("bug_ring_poll_eq"), "--no-timing", "-q")
    assert "assumed" not in quiet


def test_json_keys_and_every_span_names_the_kernel():
    _, doc = check_json(kernel("bug_ring_poll_eq"))
    (r,) = doc["results"]
    for key in ("spec", "params", "status", "violated", "expected", "stats", "violations", "assumptions"):
        assert key in r
    assert r["violated"] == ["deadlock", "lost_notification"]
    assert r["assumptions"] and all(set(a) == {"file", "line", "column", "message"} for a in r["assumptions"])
    assert {"file": kernel("bug_ring_poll_eq"), "line": 24, "column": 24,
            "message": "the host sequence is not configured; modelled as one launch per rank "
                       "(set host = [\"launch\", ...])"} in r["assumptions"]
    found = list(spans(r["violations"]))
    assert len(found) > 10
    for s in found:
        assert s["file"] == kernel("bug_ring_poll_eq")
        assert cpp_line(s["file"], s["line"]).strip()
    for v in r["violations"]:
        assert v["span"]["file"] == kernel("bug_ring_poll_eq")
        for step in v["trace"]:
            assert step["location"].startswith(kernel("bug_ring_poll_eq") + ":")
    assert ".sig" not in json.dumps(doc)


def test_a_sig_spec_has_no_assumptions_key(tmp_path):
    spec = tmp_path / "s.sig"
    spec.write_text(OK_SIG)
    _, doc = check_json(spec)
    assert "assumptions" not in doc["results"][0]


@pytest.mark.parametrize("name", KERNELS)
def test_extract_output_gives_the_same_verdict_as_checking_the_kernel(tmp_path, name):
    out_sig = tmp_path / f"{name}.sig"
    code, out, err = sigproof("extract", kernel(name), "-o", out_sig)
    assert code == 0 and out == "", err
    assert out_sig.read_text() == extract([kernel(name)]).sig_text
    code_sig, via_sig = check_json(out_sig)
    code_cpp, via_cpp = check_json(kernel(name))
    assert code_sig == code_cpp
    (a,), (b,) = via_sig["results"], via_cpp["results"]
    for key in ("params", "status", "violated", "stats"):
        assert a[key] == b[key], key
    # the same trace, step for step, only cited at the C++ lines
    def steps(result):
        return [[(s["process"], s["statement"], [re.sub(r"\S+:\d+:\d+", "LOC", e) for e in s["effects"]])
                 for s in v["trace"]] for v in result["violations"]]

    assert steps(a) == steps(b)


def test_sweep_and_defines_work_on_the_params_of_the_skeleton():
    code, doc = check_json(kernel("bug_counter_set"), "--sweep", "NRANKS=2..3")
    assert code == 1
    assert [(r["params"]["NRANKS"], r["status"]) for r in doc["results"]] == [(2, "pass"), (3, "fail")]
    code, doc = check_json(kernel("bug_counter_set"), "-D", "NRANKS=2")
    assert code == 0 and doc["results"][0]["status"] == "pass"
    code, out, err = sigproof("check", kernel("bug_counter_set"), "-D", "NOPE=1")
    assert code == 2 and err.startswith(f"{kernel('bug_counter_set')}: error: ") and "NOPE" in err
    code, out, err = sigproof("check", kernel("bug_counter_set"), "-D", "NRANKS=0")
    assert code == 2 and ".sig" not in err and "Traceback" not in err
    head, source, caret = err.splitlines()[:3]
    assert head == f"{kernel('bug_counter_set')}:14:24: error: ranks must be at least 1, not 0"
    assert "void bug_counter_set(" in source and caret.strip() == "^"


def test_a_list_mixing_specs_and_kernels_and_a_folder(tmp_path):
    spec = tmp_path / "ok.sig"
    spec.write_text(OK_SIG)
    code, doc = check_json(spec, kernel("bug_counter_set"), kernel("plain_flag"))
    assert code == 1
    assert [(r["spec"], r["status"]) for r in doc["results"]] == [
        (spec.as_posix(), "pass"), (kernel("bug_counter_set"), "fail"), (kernel("plain_flag"), "pass")]
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "a.sig").write_text(OK_SIG)
    (folder / "b.cpp").write_text((CORPUS / "plain_flag" / "plain_flag.cpp").read_text())
    (folder / "sigproof.toml").write_text((CORPUS / "plain_flag" / "sigproof.toml").read_text())
    (folder / "notes.txt").write_text("not a spec")
    code, doc = check_json(folder)
    assert code == 0
    assert [Path(r["spec"]).name for r in doc["results"]] == ["a.sig", "b.cpp"]
    code, doc = check_json("tests/frontends/corpus")
    assert [r["spec"] for r in doc["results"]] == [kernel(n) for n in KERNELS]


def test_the_config_option_replaces_the_toml_beside_the_kernel(tmp_path):
    cfg = tmp_path / "four.toml"
    cfg.write_text("ranks = 4\n")
    _, doc = check_json(kernel("bug_counter_set"), "--config", cfg)
    assert doc["results"][0]["params"]["NRANKS"] == 4
    code, out, err = sigproof("extract", kernel("bug_counter_set"), "--config", cfg)
    assert code == 0 and "param NRANKS = 4;" in out


# ---------------------------------------------------------------- extract

def test_extract_prints_the_skeleton_and_the_assumptions_on_stderr():
    code, out, err = sigproof("extract", kernel("runtime_peer"))
    ex = extract([kernel("runtime_peer")])
    assert code == 0 and out == ex.sig_text
    assert err.splitlines() == [str(a) for a in ex.assumptions]
    assert all(re.match(rf"{re.escape(kernel('runtime_peer'))}:\d+:\d+: assumed: ", ln) for ln in err.splitlines())


def test_extract_takes_helper_files(tmp_path):
    (tmp_path / "helpers.cpp").write_text(
        "AICORE void Arrive(__gm__ int32_t *c) { TNOTIFY(Signal(c), 1, NotifyOp::AtomicAdd); }\n")
    (tmp_path / "k.cpp").write_text(
        "AICORE void Arrive(__gm__ int32_t *c);\n"
        "__global__ AICORE void k(__gm__ int32_t *c) { Arrive(c); TWAIT(Signal(c), get_block_num(), WaitCmp::GE); }\n")
    code, out, _ = sigproof("extract", tmp_path / "k.cpp", tmp_path / "helpers.cpp")
    assert code == 0 and "TNOTIFY(c, 1, AtomicAdd);" in out


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("command", ["extract", "check", "graph", "export --promela"])
def test_a_bad_kernel_is_a_clean_error_exit_2(tmp_path, command):
    path = tmp_path / "bad.cpp"
    path.write_text(BAD)
    code, out, err = sigproof(*command.split(), path)
    assert code == 2
    assert err.startswith(f"{path.as_posix()}:2:39: error: ") and "syntax error" in err, err
    assert "Traceback" not in err and out in ("", '{\n  "results": []\n}\n')


@pytest.mark.parametrize("argv, words", [
    (["extract", "none.cpp"], "cannot read"),
    (["extract", kernel("a2a_barrier"), "--config", "none.toml"], "cannot read none.toml"),
    (["check", "none.cpp"], "no such file"),
    (["check", kernel("a2a_barrier"), "--config", "none.toml"], "cannot read none.toml"),
])
def test_bad_paths_and_configs_exit_2(argv, words):
    code, out, err = sigproof(*argv)
    assert code == 2 and words in err and "Traceback" not in err, err


def test_a_bad_toml_config_cites_its_file(tmp_path):
    bad = tmp_path / "sigproof.toml"
    bad.write_text("ranks = [\n")
    code, _, err = sigproof("check", kernel("a2a_barrier"), "--config", bad)
    assert code == 2 and err.startswith(f"{bad.as_posix()}:1:1: error: bad TOML")


@pytest.mark.parametrize("argv", [["graph"], ["graph", "--format", "graphml"], ["export", "--promela"]])
def test_graph_and_export_take_a_kernel_as_its_skeleton(tmp_path, argv):
    skeleton = tmp_path / "k.sig"
    assert sigproof("extract", kernel("a2a_barrier"), "-o", skeleton)[0] == 0
    code, out, err = sigproof(*argv, kernel("a2a_barrier"))
    assert code == 0, err
    code2, out2, _ = sigproof(*argv, skeleton)
    assert code2 == 0
    # the same model; only the name of the file it came from differs
    assert out.replace(kernel("a2a_barrier") + ".sig", "K") == out2.replace(skeleton.as_posix(), "K")


def test_a_certificate_covers_kernels_with_their_skeleton_and_assumptions(tmp_path, monkeypatch):
    import shutil

    for name in ("a2a_barrier", "bug_counter_set"):
        shutil.copytree(CORPUS / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    paths = ["a2a_barrier/a2a_barrier.cpp", "bug_counter_set/bug_counter_set.cpp"]
    code, _, err = sigproof("check", *paths, "-j", "1", "--certificate", "c.json")
    assert code == 1, err  # bug_counter_set deadlocks
    doc = json.loads(Path("c.json").read_text())
    ok, bug = doc["checks"]
    assert (ok["spec"], ok["status"], bug["violated"]) == (paths[0], "pass", ["deadlock"])
    assert len(ok["skeleton_sha256"]) == 64 and ok["assumptions"] and ok["state_digest"]
    assert all(a.startswith(paths[0] + ":") for a in ok["assumptions"])
    code, out, _ = sigproof("verify-certificate", "c.json")
    assert code == 0 and "verified: 2 check(s)" in out, out
    # a kernel edited so that its skeleton changes does not verify
    src = Path(paths[0])
    src.write_text(src.read_text() + "\n")
    code, out, _ = sigproof("verify-certificate", "c.json")
    assert code == 1 and "the spec file changed" in out and "skeleton_sha256" not in out  # same skeleton
    Path("x.toml").write_text("")
    code, _, err = sigproof("check", *paths, "--config", "x.toml", "--certificate", "d.json")
    assert code == 2 and "--config" in err


# ---------------------------------------------------------------- determinism

def test_same_input_same_output_byte_for_byte():
    argv = ["check", kernel("bug_ring_poll_eq"), kernel("two_level_barrier"), "--no-timing", "-j", "1"]
    text = [sigproof(*argv)[1] for _ in range(2)]
    js = [sigproof(*argv, "--format", "json")[1] for _ in range(2)]
    assert text[0] == text[1] and js[0] == js[1]
    for seed in ("1", "7"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        for fmt, want in (("text", text[0]), ("json", js[0])):
            proc = subprocess.run([sys.executable, "-m", "checker", *argv, "--format", fmt], cwd=ROOT, env=env,
                                  capture_output=True, text=True)
            assert proc.returncode == 1 and proc.stdout == want
        proc = subprocess.run([sys.executable, "-m", "checker", "extract", kernel("runtime_peer")], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stdout == extract([kernel("runtime_peer")]).sig_text


def test_readme_kernel_example_is_real_output(monkeypatch):
    readme = (ROOT / "README.md").read_text()
    command = "$ cd tests/frontends/corpus/bug_counter_set && sigproof check bug_counter_set.cpp\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0]
    monkeypatch.chdir(CORPUS / "bug_counter_set")
    code, out, _ = sigproof("check", "bug_counter_set.cpp", "--no-timing", "-j", "1")
    assert code == 1
    assert re.sub(r", \d+\.\d\d s\n", "\n", shown) == out


def test_ci_formats_annotate_the_cpp_line():
    code, out, _ = sigproof("check", kernel("bug_slot_overrun"), "--format", "sarif", "--no-timing", "-j", "1",
                            "--no-por")
    assert code == 1
    (result,) = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] != "assumption"]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == kernel("bug_slot_overrun") and where["region"]["startLine"] == 20
    _, out, _ = sigproof("check", kernel("bug_slot_overrun"), "--format", "github", "--no-timing", "-j", "1",
                         "--no-por")
    assert out.startswith(f"::error file={kernel('bug_slot_overrun')},line=20,col=5,")


def test_a_kernel_program_is_born_at_the_kernels_lines():
    """The library layer: every span of the skeleton's IR maps to C++ before the check (an
    unmapped line to the kernel's declaration); warnings and spec errors map by their spans
    (never found in rendered text); the result names the kernel and carries its assumptions."""
    import dataclasses

    from checker.check import check_program
    from checker.kernels import Origins, born_at, cited
    from checker.result import Assumed
    from model import compile_spec, parse
    from model.errors import Span, SpecError, SpecErrors, SpecWarning

    text = "ranks 2;\nsignal f;\nkernel {\n  TNOTIFY(f @ 1, 1, Set);\n  TWAIT(f, 2, EQ);\n}\n"
    program = compile_spec(parse(text, "k.cpp.sig"), {})
    call, at = Span("k.cpp", 20, 5, 20, 40), Span("k.cpp", 3, 10, 3, 10)
    origins = Origins("k.cpp.sig", "k.cpp", {4: call}, at)
    program = dataclasses.replace(program, warnings=(SpecWarning(Span("k.cpp.sig", 4, 3, 4, 4), "x"),))
    born = born_at(program, origins)
    spans = []

    def walk(x):
        if isinstance(x, Span):
            spans.append(x)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name))

    walk(born)
    assert spans and all(sp.file == "k.cpp" for sp in spans) and call in spans and at in spans
    assert [w.render() for w in born.warnings] == ["k.cpp:20:5: warning: x"]
    result = cited(check_program(born, "k.cpp.sig"), origins, (Assumed(at, "something"),))
    assert result.spec == "k.cpp" and result.violated == ["deadlock"]
    (v,) = result.violations
    assert v.span == at and all(step.span.file == "k.cpp" for step in v.trace)  # the TWAIT has no C++ origin
    assert any(step.span == call for step in v.trace) and "k.cpp.sig" not in repr(result)
    assert result.assumptions[0].text == "k.cpp:3:10: assumed: something"
    errors = SpecErrors([SpecError("bad", Span("k.cpp.sig", 4, 3, 4, 4)), SpecError("worse", None, "k.cpp.sig"),
                         SpecError("k.cpp.sig:1:1 stays as written", Span("k.cpp.sig", 9, 1, 9, 2))], text)
    assert origins.errors(errors).splitlines() == [      # in the skeleton's order
        "k.cpp: error: worse", "k.cpp:20:5: error: bad",
        "k.cpp:3:10: error: k.cpp.sig:1:1 stays as written"]   # line 9 has no C++ origin: the kernel's


# ---------------------------------------------------------------- a file of several kernels

MULTI = """#include <pto/comm/pto_comm_inst.hpp>

AICORE inline void Ping(__gm__ int32_t *sig)
{
    pto::comm::TNOTIFY(pto::comm::Signal(sig), 1, pto::comm::NotifyOp::AtomicAdd);
}

__global__ AICORE void Good(__gm__ int32_t *sig)
{
    Ping(sig);
}

__global__ AICORE void Stuck(__gm__ int32_t *sig)
{
    Ping(sig);
    pto::comm::TWAIT(pto::comm::Signal(sig + 1), 1, pto::comm::WaitCmp::GE);
}

__global__ AICORE void Copy(__gm__ float *a, __gm__ float *b)
{
    a[0] = b[0];
}
"""


def test_a_file_of_several_kernels_checks_replays_caches_and_certifies_each(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("multi.cpp").write_text(MULTI)
    code, out, err = sigproof("check", "multi.cpp", "-j", "1", "--no-timing")
    assert code == 1, err
    heads = [ln for ln in out.splitlines() if ln.startswith("multi.cpp")]
    assert [h.split(" [")[0] for h in heads] == ["multi.cpp:Good", "multi.cpp:Stuck"], out
    assert "kernel Copy has no signal or data-transfer operation and is not checked" in out
    code, doc = check_json("multi.cpp")
    assert [(r["spec"], r["status"]) for r in doc["results"]] == [("multi.cpp:Good", "pass"), ("multi.cpp:Stuck", "fail")]
    Path("r.json").write_text(json.dumps(doc))
    # the trace is the second kernel's: replay extracts that one (its launches are at Stuck's line)
    code, out, err = sigproof("replay", "multi.cpp", "r.json")
    assert code == 0 and "replayed all" in out and "multi.cpp:13:" in out, (out, err)
    code, _, err = sigproof("check", "multi.cpp", "-j", "1", "--cache", "cache", "--certificate", "c.json")
    code, out, _ = sigproof("check", "multi.cpp", "-j", "1", "--cache", "cache")
    assert out.count("(from the cache)") == 2, out
    certified = json.loads(Path("c.json").read_text())["checks"]
    assert [c["spec"] for c in certified] == ["multi.cpp:Good", "multi.cpp:Stuck"]
    assert all(len(c["sha256"]) == 64 and len(c["skeleton_sha256"]) == 64 for c in certified)
    code, out, _ = sigproof("verify-certificate", "c.json")
    assert code == 0 and "verified: 2 check(s)" in out, out
    Path("multi.cpp").write_text(MULTI.replace("WaitCmp::GE", "WaitCmp::EQ"))
    code, out, _ = sigproof("verify-certificate", "c.json")
    assert code == 1 and "multi.cpp:Stuck [" in out and "skeleton_sha256" in out, out
    assert "multi.cpp:Good [NBLOCKS=1 NRANKS=2]: skeleton_sha256" not in out       # Good's skeleton is the same


def test_the_pytest_item_of_a_file_of_several_kernels_fails_when_any_kernel_fails(tmp_path):
    # the first kernel passes, the second deadlocks: the item must not pass on the first alone
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "multi.cpp").write_text(MULTI)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                           "-q", str(folder)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 1 and "1 failed" in proc.stdout, proc.stdout + proc.stderr
    assert "multi.cpp:Stuck" in proc.stdout and "deadlock" in proc.stdout, proc.stdout

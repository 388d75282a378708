"""The command line: exit codes, text and JSON output, sweeps, limits, graph export."""

import json
import os
import subprocess
import sys

import pytest

from helpers import sigproof

OK = "param N = 2;\nranks N;\nsignal f;\nkernel {\n  if (rank == 0) TNOTIFY(f @ 1, 1, Set);\n  else if (rank == 1) TWAIT(f, 1, EQ);\n}\n"
DEAD = "ranks 2;\nsignal f;\nkernel {\n  TWAIT(f, 1, EQ);\n}\n"


@pytest.fixture
def spec(tmp_path):
    def write(text, name="s.sig"):
        p = tmp_path / name
        p.write_text(text)
        return p
    return write


def test_pass_exits_0_with_summary_line(spec):
    code, out, _ = sigproof("check", spec(OK))
    assert code == 0
    assert out.splitlines()[0].endswith("s.sig [N=2]: PASS: ok")
    assert " states, " in out and " transitions (partial-order reduced), " in out


def test_unexpected_violation_exits_1_with_trace(spec):
    code, out, _ = sigproof("check", spec(DEAD))
    assert code == 1
    assert "FAIL: deadlock (expected ok)" in out
    assert "1. host 0" in out and "stuck:" in out
    assert "TWAIT(f, 1, EQ) waits for == 1; now f@0 = 0" in out


def test_expected_violation_passes_and_missing_one_fails(spec):
    assert sigproof("check", spec("expect deadlock;\n" + DEAD))[0] == 0
    code, out, _ = sigproof("check", spec("expect deadlock;\n" + OK))
    assert code == 1 and "FAIL: ok (expected deadlock)" in out


def test_syntax_error_exits_2_with_location(spec):
    p = spec("ranks 2;\nkernel {\n  TWAIT(f, 1, ==);\n}\n")
    code, out, err = sigproof("check", p)
    assert code == 2
    assert err.startswith(f"{p.as_posix()}:3:15: error: expected a comparison")


def test_unknown_define_and_sweep_are_usage_errors(spec):
    p = spec(OK)
    assert sigproof("check", p, "-D", "M=3")[0] == 2
    assert sigproof("check", p, "--sweep", "M=1..2")[0] == 2
    assert sigproof("check", p, "-D", "N")[0] == 2
    assert sigproof("check", p, "--sweep", "N=3..1")[0] == 2
    assert sigproof("check", "/nonexistent/x.sig")[0] == 2
    assert sigproof("check", p, "--format", "yaml")[0] == 2


def test_max_states_is_inconclusive_exit_3(spec):
    code, out, _ = sigproof("check", spec(OK), "--max-states", "3")
    assert code == 3
    assert "INCONCLUSIVE" in out and "state limit of 3 reached" in out
    assert "  3 states" in out


def test_limit_is_inconclusive_even_after_a_violation_but_reports_it(spec):
    text = "ranks 2;\nsignal f;\nkernel {\n  assert(rank == 1);\n  TWAIT(f, 1, EQ);\n}\n"
    code, out, _ = sigproof("check", spec(text), "--max-states", "4", "--no-por")
    assert code == 3 and "INCONCLUSIVE: assertion so far" in out and "assert(rank == 1) failed" in out


def test_empty_statements_and_repeated_sweeps(spec):
    text = "ranks 1;\nsignal f;\nkernel {\n  ;\n  while (!TTEST(f, 0, EQ));\n  if (true) { };\n}\n"
    assert sigproof("check", spec(text))[0] == 0
    assert sigproof("check", spec(OK), "--sweep", "N=2..3", "--sweep", "N=3..4")[0] == 2


def test_timeout_is_inconclusive(spec):
    big = "param N = 6;\nranks N;\nsignal a[N];\nkernel {\n for (int p = 0; p < nranks; p++) if (p != rank) " \
          "TNOTIFY(a[rank] @ p, 1, AtomicAdd);\n for (int p = 0; p < nranks; p++) if (p != rank) TWAIT(a[p], 1, GE);\n}\n"
    code, out, _ = sigproof("check", spec(big), "--timeout", "0.5", "--no-por")
    assert code == 3 and "time limit of 0.5 s reached" in out


def test_json_has_the_contract_keys(spec):
    code, out, _ = sigproof("check", spec(DEAD), "--format", "json")
    assert code == 1
    doc = json.loads(out)
    (r,) = doc["results"]
    assert set(r) >= {"spec", "params", "status", "violated", "expected", "stats", "violations"}
    assert r["status"] == "fail" and r["violated"] == ["deadlock"] and r["expected"] == []
    assert set(r["stats"]) >= {"states", "transitions", "seconds"}
    (v,) = r["violations"]
    assert set(v) >= {"property", "message", "trace"}
    step = v["trace"][0]
    assert set(step) >= {"step", "process", "location", "statement", "effects"}
    assert step["step"] == 1 and step["process"] == "host 0"


def test_sweep_gives_one_result_per_value(spec):
    code, out, _ = sigproof("check", spec(OK), "--sweep", "N=2..4", "--format", "json")
    assert code == 0
    assert [r["params"] for r in json.loads(out)["results"]] == [{"N": 2}, {"N": 3}, {"N": 4}]
    code, out, _ = sigproof("check", spec(OK), "--sweep", "N=2..3")
    assert "[N=2]" in out and "[N=3]" in out


def test_folders_are_searched_and_worst_exit_wins(spec, tmp_path):
    spec(OK, "a.sig")
    spec(DEAD, "b.sig")
    code, out, _ = sigproof("check", tmp_path, "-q")
    assert code == 1
    assert out.index("a.sig") < out.index("b.sig")
    spec("ranks 0; kernel {}", "c.sig")
    assert sigproof("check", tmp_path, "-q")[0] == 2


def test_output_is_byte_identical_across_runs_and_hash_seeds(spec):
    p = spec("expect deadlock;\nexpect lost_notification;\nranks 2;\nsignal f;\nkernel {\n"
             "  if (rank == 0) { TNOTIFY(f @ 1, 1, Set); TNOTIFY(f @ 1, 2, Set); }\n  else TWAIT(f, 1, EQ);\n}\n")
    outs = set()
    for seed in ("0", "1", "12345"):
        for fmt in ("text", "json"):
            env = {**os.environ, "PYTHONHASHSEED": seed}
            proc = subprocess.run([sys.executable, "-m", "checker", "check", str(p), "--no-timing", "--format", fmt],
                                  capture_output=True, text=True, env=env)
            assert proc.returncode == 0, proc.stderr
            outs.add((fmt, proc.stdout))
    assert len(outs) == 2


def test_graph_export_dot_and_graphml(spec, tmp_path):
    p = spec(OK)
    code, out, _ = sigproof("graph", p)
    assert code == 0 and out.startswith("strict digraph") and "TNOTIFY(f @ 1, 1, Set)" in out
    target = tmp_path / "g.graphml"
    assert sigproof("graph", p, "--format", "graphml", "-o", target)[0] == 0
    import networkx as nx
    g = nx.read_graphml(target)
    assert g.number_of_nodes() == 12


def test_graph_refuses_large_specs(spec):
    code, _, err = sigproof("graph", spec(OK), "--max-states", "5")
    assert code == 2 and "more than 5 states" in err


def test_help_documents_exit_codes(capsys):
    code, _, _ = sigproof("check", "--help")
    assert code == 0
    out = capsys.readouterr().out
    assert "exit status:" in out and "3  inconclusive" in out


def test_whole_specs_folder_is_byte_identical_across_hash_seeds():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    outs = {}
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "checker", "check", "specs", "tests/regressions", "--no-timing",
                               "--format", "json"], capture_output=True, text=True, env=env, cwd=root)
        assert proc.returncode == 0, proc.stderr
        outs[seed] = proc.stdout
    assert outs["0"] == outs["4242"]
    assert len(json.loads(outs["0"])["results"]) >= 17


def test_a_bad_sweep_value_does_not_stop_the_others(spec):
    code, out, err = sigproof("check", spec("param N = 2;\nranks 1;\nblocks N;\nsignal f;\nkernel { TNOTIFY(f @ 0, 1, AtomicAdd); }\n"), "--sweep", "N=0..2",
                              "-q")
    assert code == 2 and "blocks must be at least 1, not 0" in err
    assert "[N=1]: PASS" in out and "[N=2]: PASS" in out


def test_broken_pipe_keeps_the_exit_status(spec):
    p = spec(DEAD)
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"{sys.executable} -m checker check {p} | head -c 1"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


def test_jobs_2_output_equals_jobs_1():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    outs = []
    for jobs in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "checker", "check", "specs", "tests/regressions", "--no-timing",
                               "--format", "json", "--jobs", jobs], capture_output=True, text=True, cwd=root)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    code, out, _ = sigproof("check", root / "specs" / "epoch_counter.sig", "--sweep", "N=2..3", "--jobs", "2", "-q",
                            "--no-timing")
    assert code == 0 and out == sigproof("check", root / "specs" / "epoch_counter.sig", "--sweep", "N=2..3",
                                         "--jobs", "1", "-q", "--no-timing")[1]


def test_json_traces_carry_structured_spans_and_effects_that_match_the_source(spec):
    text = ("ranks 2;\nsignal f;\nsignal g[2];\nkernel {\n  if (rank == 0) {\n    TNOTIFY(f @ 1, 1, Set);\n"
            "    TNOTIFY(f @ 1, 2, Set);\n  } else {\n    TWAIT(f, 1, EQ);\n  }\n}\n")
    p = spec(text)
    code, out, _ = sigproof("check", p, "--format", "json")
    assert code == 1
    lines = text.splitlines()
    (r,) = json.loads(out)["results"]
    assert {v["property"] for v in r["violations"]} == {"deadlock", "lost_notification"}
    for v in r["violations"]:
        for step in v["trace"]:
            s = step["span"]
            assert step["location"] == f"{s['file']}:{s['line']}:{s['column']}"
            assert s["file"] == p.as_posix()
            if step["statement"] != "launch (default host)":
                assert lines[s["line"] - 1][s["column"] - 1:].startswith(step["statement"])
                assert s["end_line"] == s["line"] and s["end_column"] > s["column"]
            assert len(step["details"]) == len(step["effects"])
            assert step["actor"]["kind"] in ("host", "kernel")
        if v["property"] == "lost_notification":
            last = v["trace"][-1]
            write = next(d for d in last["details"] if d["kind"] == "write")
            assert (write["signal"], write["index"], write["rank"], write["old"], write["new"]) == ("f", [], 1, 1, 2)
            over = next(d for d in last["details"] if d["kind"] == "overwrite")
            assert over["readers"] == ["rank 1 block 0 of launch 0"]
            assert lines[v["span"]["line"] - 1].strip() == "TNOTIFY(f @ 1, 2, Set);"
        if v["property"] == "deadlock":
            stuck = [d for d in v["situation_details"] if d["waits"] == "wait"]
            assert stuck and stuck[0]["elements"][0]["element"] == "f@1" and stuck[0]["cmp"] == "EQ"
            assert lines[v["span"]["line"] - 1].strip() == "TWAIT(f, 1, EQ);"  # what blocks, not the launch


def test_stop_reason_is_in_the_json(spec):
    code, out, _ = sigproof("check", spec(OK), "--max-states", "3", "--format", "json")
    (r,) = json.loads(out)["results"]
    assert code == 3 and r["stop_reason"] == "max_states" and r["stopped"] == "state limit of 3 reached"


def test_library_entry_points(spec):
    from checker import Options, check_file, exit_status

    results = check_file(spec(OK), params={"N": range(2, 4)}, options=Options(max_states=10_000))
    assert [r.params for r in results] == [{"N": 2}, {"N": 3}] and exit_status(results) == 0
    bad = check_file(spec("ranks 0; kernel {}", "bad.sig"))
    assert bad[0].status == "error" and "ranks must be at least 1" in bad[0].error and exit_status(bad) == 2
    assert exit_status(check_file(spec(DEAD, "dead.sig"))) == 1


def test_a_param_nothing_uses_is_warned_about(spec):
    code, out, err = sigproof("check", spec("param L = 2;\nranks 1;\nsignal f;\nkernel { TNOTIFY(f @ 0, 1, Set); }\n"),
                              "--format", "json")
    assert code == 0 and "s.sig:1:1: warning: param 'L' is never used" in err
    assert json.loads(out)["results"][0]["warnings"] == [err.strip()]
    assert sigproof("check", spec("param L = 2;\nranks 1;\nhost { for (int i = 0; i < L; i++) launch; }\nkernel {}\n"))[2] == ""


def test_the_step_that_ends_a_process_says_so(spec):
    code, out, _ = sigproof("check", spec(DEAD), "--no-timing")
    assert code == 1 and "host 0 returns" not in out  # nobody finishes in this deadlock
    code, out, _ = sigproof("check", spec("ranks 1;\nsignal f;\ncheck clean_exit;\nkernel {\n  TNOTIFY(f, 1, Set);\n}\n"),
                            "--no-timing")
    assert code == 1 and "rank 0 block 0 returns" in out and "host 0 returns" in out

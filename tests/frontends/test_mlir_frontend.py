"""frontends.mlir: .sig skeletons of PTO MLIR / PTO-AS kernels, and `sigproof check FILE.pto`.

The corpus kernels tests/frontends/mlir_corpus/NAME/NAME.pto have their skeletons pinned in
tests/frontends/mlir_golden/NAME.sig (and their assumptions in NAME.assumptions). To accept
a deliberate change of the output:
    SIGPROOF_UPDATE_GOLDEN=1 python -m pytest tests/frontends/test_mlir_frontend.py
and review the diff of tests/frontends/mlir_golden/.
"""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from frontends.mlir import ExtractError, extract
from frontends.mlir.__main__ import run as extract_cli
from frontends.mlir.source import parse
from helpers import sigproof

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "frontends" / "mlir_corpus"
GOLDEN = ROOT / "tests" / "frontends" / "mlir_golden"
KERNELS = sorted(p.name for p in CORPUS.iterdir() if (p / f"{p.name}.pto").is_file())
VERDICTS = {
    "a2a_barrier": [],
    "counter_barrier": [],
    "ring_pipeline": [],
    "bug_counter_set": ["deadlock"],
    "bug_wrong_count": ["deadlock"],
    "ctx_barrier": [],
    "credit_epilogue": [],
    "two_level_barrier": [],
}
HEAD = "module {\n  func.func @k(%f: !pto.ptr<i32>, %rank: i32) {\n"
TAIL = "    return\n  }\n}\n"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def kernel(name: str) -> str:
    return f"tests/frontends/mlir_corpus/{name}/{name}.pto"


def check_json(*argv):
    code, out, err = sigproof("check", *argv, "--format", "json", "--no-timing", "-j", "1")
    assert code in (0, 1), err
    return code, json.loads(out)


def write(tmp_path, body: str, name: str = "k.pto") -> str:
    p = tmp_path / name
    p.write_text(HEAD + body + TAIL)
    return p.as_posix()


def kernel_of(sig_text: str) -> str:
    return sig_text.split("kernel {\n", 1)[1].split("\n}\n", 1)[0]


# ---------------------------------------------------------------- the corpus

def test_the_corpus_is_the_one_described():
    assert KERNELS == sorted(VERDICTS)


@pytest.mark.parametrize("name", KERNELS)
def test_golden_skeleton_and_assumptions(name):
    ex = extract([kernel(name)])
    assumed = "".join(f"{a}\n" for a in ex.assumptions)
    sig, notes = GOLDEN / f"{name}.sig", GOLDEN / f"{name}.assumptions"
    if os.environ.get("SIGPROOF_UPDATE_GOLDEN"):
        sig.write_text(ex.sig_text)
        notes.write_text(assumed)
    assert ex.sig_text == sig.read_text()
    assert assumed == notes.read_text()


@pytest.mark.parametrize("name", KERNELS)
def test_check_gives_the_verdict_and_cites_pto_lines(name):
    code, doc = check_json(kernel(name))
    (r,) = doc["results"]
    assert r["spec"] == kernel(name) and r["violated"] == VERDICTS[name]
    assert code == (1 if VERDICTS[name] else 0)
    assert ".sig" not in json.dumps(doc)
    lines = Path(kernel(name)).read_text().splitlines()
    calls = 0
    for v in r["violations"]:
        cited = [(s["statement"], s["span"]) for s in v["trace"]]
        cited += [(x["statement"], x["span"]) for x in v["situation_details"] if "statement" in x]
        for statement, span in cited:
            assert span["file"] == kernel(name)
            line = lines[span["line"] - 1]
            op = statement.split("(")[0]
            if op in ("TNOTIFY", "TWAIT", "TTEST"):
                assert op.lower() in line, (statement, line)
                calls += 1
            elif statement == "launch":
                assert f"func.func @{name}(" in line
    assert calls > 0 or not VERDICTS[name]


@pytest.mark.parametrize("name", KERNELS)
def test_extract_then_check_gives_the_same_verdict(tmp_path, name):
    out_sig = tmp_path / f"{name}.sig"
    code, out, err = sigproof("extract", kernel(name), "-o", out_sig)
    assert code == 0 and out == "", err
    assert out_sig.read_text() == extract([kernel(name)]).sig_text
    code_sig, via_sig = check_json(out_sig)
    code_pto, via_pto = check_json(kernel(name))
    assert code_sig == code_pto
    (a,), (b,) = via_sig["results"], via_pto["results"]
    for key in ("params", "status", "violated", "stats"):
        assert a[key] == b[key], key

    def steps(result):
        return [[(s["process"], s["statement"]) for s in v["trace"]] for v in result["violations"]]

    assert steps(a) == steps(b)


def test_a_deadlock_trace_cites_the_notify_and_the_stuck_wait():
    code, out, _ = sigproof("check", kernel("bug_counter_set"), "--no-timing", "-j", "1")
    assert code == 1
    where = kernel("bug_counter_set")
    assert re.search(rf"{re.escape(where)}:28:7 +TNOTIFY\(count @ 0, 1, Set\)", out)
    assert f"{where}:18:7: TWAIT(count, nranks - 1, GE) waits for >= 2" in out
    assert "pto.comm.twait" in Path(where).read_text().splitlines()[17]


def test_a_folder_is_searched_for_pto_files(tmp_path):
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "a.pto").write_text((CORPUS / "a2a_barrier" / "a2a_barrier.pto").read_text())
    (folder / "b.mlir").write_text((CORPUS / "bug_wrong_count" / "bug_wrong_count.pto").read_text())
    code, doc = check_json(folder)
    assert code == 1
    assert [(Path(r["spec"]).name, r["status"]) for r in doc["results"]] == [("a.pto", "pass"), ("b.mlir", "fail")]
    code, doc = check_json("tests/frontends/mlir_corpus")
    assert [r["spec"] for r in doc["results"]] == [kernel(n) for n in KERNELS]


# ---------------------------------------------------------------- spellings and ops

SPELLINGS = [
    'pto.comm.tnotify(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {notifyOp = #pto<notify_op atomic_add>}',
    '"pto.tnotify"(%s, %v) <{notifyOp = #pto<notify_op atomic_add>}> : (!pto.partition_tensor_view<1xi32>, i32) -> ()',
    '"pto.comm.tnotify"(%s, %v) {notifyOp = #pto<notify_op atomic_add>} : (!pto.partition_tensor_view<1xi32>, i32) -> ()',
    'pto.tnotify %s, %v {op = #pto.notify_op<AtomicAdd>} : (!pto.memref<i32>, i32)',
    'tnotify %s, %v {op = #pto.notify_op<AtomicAdd>} : (!pto.memref<i32>, i32)',
]
VIEW = ("    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %v = arith.constant 1 : i32\n"
        "    %tv = pto.make_tensor_view %f, shape = [%c1], strides = [%c1] : !pto.tensor_view<1xi32>\n"
        "    %s = pto.partition_view %tv, offsets = [%c0], sizes = [%c1] : !pto.tensor_view<1xi32> -> "
        "!pto.partition_tensor_view<1xi32>\n")


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_public_spelling_of_tnotify(tmp_path, spelling):
    ex = extract([write(tmp_path, VIEW + "    " + spelling + "\n")])
    assert kernel_of(ex.sig_text).strip() == "TNOTIFY(f, 1, AtomicAdd);"
    (site,) = ex.call_sites
    assert (site.kind, site.line, site.col, site.resolution) == ("TNOTIFY", 8, 5, "full")


@pytest.mark.parametrize("spelling, cmp", [
    ('pto.comm.twait(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp ge>}', "GE"),
    ('"pto.twait"(%s, %v) <{cmp = #pto<wait_cmp eq>}> : (!pto.partition_tensor_view<1xi32>, i32) -> ()', "EQ"),
    ('pto.twait %s, %v {cmp = #pto.cmp<NE>} : (!pto.memref<i32>, i32)', "NE"),
    ('twait %s, %v {cmp = #pto.cmp<LE>} : (!pto.memref<i32>, i32)', "LE"),
])
def test_every_public_spelling_of_twait(tmp_path, spelling, cmp):
    ex = extract([write(tmp_path, VIEW + "    " + spelling + "\n")])
    assert kernel_of(ex.sig_text).strip() == f"TWAIT(f, 1, {cmp});"


@pytest.mark.parametrize("spelling", [
    '%t = pto.comm.ttest(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp gt>} -> i1',
    '%t = "pto.ttest"(%s, %v) <{cmp = #pto<wait_cmp gt>}> : (!pto.partition_tensor_view<1xi32>, i32) -> i1',
    '%t = pto.ttest %s, %v {cmp = #pto.cmp<GT>} : (!pto.memref<i32>, i32) -> i1',
    '%t = ttest %s, %v {cmp = #pto.cmp<GT>} : (!pto.memref<i32>, i32) -> i1',
])
def test_every_public_spelling_of_ttest(tmp_path, spelling):
    body = VIEW + "    " + spelling + "\n    scf.if %t {\n      pto.comm.tnotify(%s, %v : !pto.partition_tensor_view<1xi32>, i32) " \
                                      "{notifyOp = #pto<notify_op set>}\n    }\n"
    ex = extract([write(tmp_path, body)])
    assert kernel_of(ex.sig_text) == ("    bool t = TTEST(f, 1, GT);\n    if (t) {\n        TNOTIFY(f, 1, Set);\n    }")


def test_arith_folds_and_runtime_data_becomes_a_param_or_a_choice(tmp_path):
    body = (VIEW + "    %c3 = arith.constant 3 : i32\n    %x = arith.muli %c3, %v : i32\n"
            "    %y = arith.addi %x, %rank : i32\n    %z = arith.remsi %y, %c3 : i32\n"
            "    %q = pto.load_scalar %f[%c0] : !pto.ptr<i32> -> i32\n"
            "    %ok = arith.cmpi sge, %z, %q : i32\n    %m = arith.select %ok, %z, %v : i32\n"
            "    pto.comm.tnotify(%s, %m : !pto.partition_tensor_view<1xi32>, i32) {notifyOp = #pto<notify_op set>}\n")
    path = write(tmp_path, body)
    ex = extract([path])
    assert kernel_of(ex.sig_text).strip() == "TNOTIFY(f, (3 + rank) % 3 >= Q_12 ? (3 + rank) % 3 : 1, Set);"
    assert "param Q_12 = 0;" in ex.sig_text
    assert any(a.line == 12 and a.col == 5 and "runtime data" in a.text and "Q_12" in a.text for a in ex.assumptions)
    ex = extract([path], {"bounds": {"%q": [0, 2]}})
    assert kernel_of(ex.sig_text).splitlines()[0].strip() == "int q = any(0, 2);"
    assert any("modelled as any(0, 2)" in a.text for a in ex.assumptions)


def test_an_unknown_argument_is_a_param_and_values_fix_it(tmp_path):
    p = tmp_path / "k.pto"
    p.write_text(HEAD.replace("%rank: i32", "%rank: i32, %limit: i32") + VIEW +
                 "    pto.comm.twait(%s, %limit : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp ge>}\n" + TAIL)
    ex = extract([p.as_posix()])
    assert "param LIMIT = 0;" in ex.sig_text and "TWAIT(f, LIMIT, GE);" in ex.sig_text
    assert any("kernel argument %limit has no known value" in a.text for a in ex.assumptions)
    assert ex.call_sites[0].value == "none"
    ex = extract([p.as_posix()], {"values": {"limit": 4}})
    assert "TWAIT(f, 4, GE);" in ex.sig_text and "LIMIT" not in ex.sig_text


def test_scf_for_iter_args_if_results_and_while(tmp_path):
    body = (VIEW + "    %n = arith.constant 4 : index\n"
            "    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (i32) {\n"
            "      %d = arith.addi %acc, %v : i32\n      scf.yield %d : i32\n    }\n"
            "    %zero = arith.constant 0 : i32\n    %p = arith.cmpi eq, %rank, %zero : i32\n"
            "    %w = scf.if %p -> (i32) {\n      scf.yield %r : i32\n    } else {\n      scf.yield %v : i32\n    }\n"
            "    %out = scf.while (%k = %zero) : (i32) -> i32 {\n"
            "      %more = arith.cmpi slt, %k, %w : i32\n      scf.condition(%more) %k : i32\n"
            "    } do {\n    ^bb0(%j: i32):\n"
            "      pto.comm.tnotify(%s, %j : !pto.partition_tensor_view<1xi32>, i32) {notifyOp = #pto<notify_op set>}\n"
            "      %j1 = arith.addi %j, %v : i32\n      scf.yield %j1 : i32\n    }\n")
    ex = extract([write(tmp_path, body)])
    assert kernel_of(ex.sig_text) == """\
    int acc = 1;
    for (int i = 0; i < 4; i++) {
        acc = acc + 1;
    }
    int w = 0;
    if (rank == 0) {
        w = acc;
    } else {
        w = 1;
    }
    int k = 0;
    while (true) {
        if (!(k < w)) {
            break;
        }
        TNOTIFY(f, k, Set);
        k = k + 1;
    }"""


def test_what_a_statement_reads_keeps_its_locals_and_params(tmp_path):
    """The pruning follows the names each statement reads (from its values, not its text): the
    loop-carried index `k` of a TNOTIFY is kept with its update, and the param N that only the
    signal's declared size reads stays declared."""
    p = tmp_path / "k.pto"
    p.write_text(HEAD.replace("%rank: i32", "%rank: i32, %n: i32") +
                 "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
                 "    %c2 = arith.constant 2 : index\n    %c4 = arith.constant 4 : index\n"
                 "    %ni = arith.index_cast %n : i32 to index\n    %v = arith.constant 1 : i32\n"
                 "    %tv = pto.make_tensor_view %f, shape = [%ni], strides = [%c1] : !pto.tensor_view<?xi32>\n"
                 "    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%k = %c0) -> (index) {\n"
                 "      %s = pto.partition_view %tv, offsets = [%k], sizes = [%c1] : !pto.tensor_view<?xi32> -> "
                 "!pto.partition_tensor_view<1xi32>\n"
                 "      pto.comm.tnotify(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {notifyOp = #pto<notify_op set>}\n"
                 "      %k1 = arith.addi %k, %c2 : index\n      scf.yield %k1 : index\n    }\n" + TAIL)
    ex = extract([p.as_posix()])
    assert kernel_of(ex.sig_text) == """\
    int k = 0;
    for (int i = 0; i < 4; i++) {
        TNOTIFY(f[k], 1, Set);
        k = k + 2;
    }"""
    assert "signal f[N];" in ex.sig_text and "param N = 0;" in ex.sig_text


def test_multi_element_waits_become_slices(tmp_path):
    body = ("    %c0 = arith.constant 0 : index\n    %c2 = arith.constant 2 : index\n    %c1 = arith.constant 1 : index\n"
            "    %c8 = arith.constant 8 : index\n    %v = arith.constant 1 : i32\n"
            "    %tv = pto.make_tensor_view %f, shape = [%c8], strides = [%c1] : !pto.tensor_view<8xi32>\n"
            "    %s = pto.partition_view %tv, offsets = [%c2], sizes = [%c2] : !pto.tensor_view<8xi32> -> "
            "!pto.partition_tensor_view<2xi32>\n"
            "    pto.comm.twait(%s, %v : !pto.partition_tensor_view<2xi32>, i32) {cmp = #pto<wait_cmp ge>}\n")
    ex = extract([write(tmp_path, body)])
    assert "signal f[4];" in ex.sig_text and "TWAIT(f[2:4], 1, GE);" in ex.sig_text


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("text, where, words", [
    ("module {\n  func.func @k(%a: i32) {\n    return\n", "3:11", "the input ends inside"),
    ("func.func @k(%a: i32) {\n  %x = = 3\n}\n", "2:7", "syntax error"),
    (HEAD + "    %x = arith.addi %rank, : i32\n" + TAIL, "3:5", "arith.addi takes 2 operands, not 1"),
    (HEAD + "    twait %nope, %rank {cmp = #pto.cmp<EQ>} : (!pto.memref<i32>, i32)\n" + TAIL, "3:5", "%nope is not defined"),
    (HEAD + VIEW + "    pto.comm.twait(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp xx>}\n" + TAIL,
     "8:5", "unknown mode 'xx'"),
    (HEAD + VIEW + "    pto.comm.tnotify(%s, %v : !pto.partition_tensor_view<1xi32>, i32)\n" + TAIL, "8:5", "without its mode"),
])
@pytest.mark.parametrize("command", ["check", "extract"])
def test_malformed_pto_is_a_located_error_and_exit_2(tmp_path, text, where, words, command):
    path = tmp_path / "bad.pto"
    path.write_text(text)
    code, out, err = sigproof(command, path)
    assert code == 2, (out, err)
    assert err.startswith(f"{path.as_posix()}:{where}: error: ") and words in err, err
    assert "Traceback" not in err


def test_unreadable_and_empty_inputs(tmp_path):
    code, _, err = sigproof("extract", tmp_path / "none.pto")
    assert code == 2 and "cannot read" in err
    (tmp_path / "empty.pto").write_text("module {\n}\n")
    code, _, err = sigproof("check", tmp_path / "empty.pto")
    assert code == 2 and "no kernel function" in err and "Traceback" not in err
    (tmp_path / "bin.pto").write_bytes(b"\xff\xfe\x00")
    code, _, err = sigproof("extract", tmp_path / "bin.pto")
    assert code == 2 and "not UTF-8" in err


def test_the_module_command_line(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert extract_cli([kernel("a2a_barrier")], out, err) == 0
    assert out.getvalue() == extract([kernel("a2a_barrier")]).sig_text
    assert extract_cli([str(tmp_path / "none.pto")], io.StringIO(), err) == 2


def test_parse_cuts_custom_ops_at_line_starts():
    text = (HEAD + "    %a = arith.constant 1 : i32\n    %b = arith.addi %a,\n           %a : i32\n"
            '    "pto.twait"(%b, %a) <{cmp = #pto<wait_cmp eq>}> : (i32, i32) -> ()\n' + TAIL)
    module = parse("k.pto", text)
    ops = module.funcs["k"].body.blocks[0].ops
    assert [(o.results, o.name, o.operands, o.loc.line) for o in ops] == [
        (["%a"], "arith.constant", [], 3), (["%b"], "arith.addi", ["%a", "%a"], 4),
        ([], "pto.twait", ["%b", "%a"], 6), ([], "return", [], 7)]


# ---------------------------------------------------------------- determinism

def test_same_input_same_output_byte_for_byte():
    argv = ["check", kernel("bug_counter_set"), kernel("ring_pipeline"), "--no-timing", "-j", "1"]
    first = sigproof(*argv)[1]
    assert sigproof(*argv)[1] == first
    for seed in ("1", "7"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "checker", *argv], cwd=ROOT, env=env, capture_output=True, text=True)
        assert proc.returncode == 1 and proc.stdout == first
        proc = subprocess.run([sys.executable, "-m", "frontends.mlir", kernel("counter_barrier")], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stdout == extract([kernel("counter_barrier")]).sig_text


# ---------------------------------------------------------------- what resolves fully, and why

IDIOM = ("    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %c4 = arith.constant 4 : i64\n"
         "    %v = arith.constant 1 : i32\n    %me = arith.index_cast {own} : i32 to index\n"
         "    %p = arith.constant 1 : index\n"
         "    %to = pto.load_scalar %windows[%p] : !pto.ptr<i64> -> i64\n"
         "    %from = pto.load_scalar %windows[%me] : !pto.ptr<i64> -> i64\n"
         "    %bytes = arith.subi %to, %from : i64\n    %elems = arith.divsi %bytes, %c4 : i64\n"
         "    %d = arith.index_cast %elems : i64 to index\n"
         "    %r = pto.addptr %f, %d : !pto.ptr<i32> -> !pto.ptr<i32>\n"
         "    %tv = pto.make_tensor_view %r, shape = [%c1], strides = [%c1] : !pto.tensor_view<1xi32>\n"
         "    %s = pto.partition_view %tv, offsets = [%c0], sizes = [%c1] : !pto.tensor_view<1xi32> -> "
         "!pto.partition_tensor_view<1xi32>\n"
         "    %is0 = arith.cmpi eq, {cond}, %v : i32\n    scf.if %is0 {{\n"
         "      pto.comm.tnotify(%s, %v : !pto.partition_tensor_view<1xi32>, i32) {{notifyOp = #pto<notify_op set>}}\n"
         "    }}\n")


def idiom_kernel(tmp_path, args: str, own: str, cond: str) -> str:
    p = tmp_path / "k.pto"
    p.write_text(f"module {{\n  func.func @k(%f: !pto.ptr<i32>, %windows: !pto.ptr<i64>, {args}) {{\n"
                 + IDIOM.format(own=own, cond=cond) + TAIL)
    return p.as_posix()


def test_the_window_idiom_proves_the_own_rank_whatever_its_name(tmp_path):
    ex = extract([idiom_kernel(tmp_path, "%x: i32", "%x", "%x")])
    assert "if (rank == 1) {\n        TNOTIFY(f @ 1, 1, Set);" in kernel_of(ex.sig_text)
    assert "param X" not in ex.sig_text and not any("%x" in a.text for a in ex.assumptions)
    (site,) = ex.call_sites
    assert site.resolution == "full"


def test_a_conventional_name_the_idiom_confirms_is_full_and_says_nothing(tmp_path):
    ex = extract([idiom_kernel(tmp_path, "%rank: i32", "%rank", "%rank")])
    assert ex.call_sites[0].resolution == "full"
    assert not any("conventional name" in a.text for a in ex.assumptions)


def test_a_window_subtracted_that_is_no_argument_proves_nothing(tmp_path):
    # windows[1] - windows[rank + 1]: the idiom's shape, but what is subtracted is not a value of its own
    p = idiom_kernel(tmp_path, "%rank: i32", "%rank", "%rank")
    Path(p).write_text(Path(p).read_text().replace(
        "%me = arith.index_cast %rank : i32 to index", "%mr = arith.index_cast %rank : i32 to index\n"
        "    %me = arith.addi %mr, %c1 : index"))
    ex = extract([p])
    assert any("conventional name" in a.text for a in ex.assumptions)
    assert any("taken for the own rank's" in a.text and a.line == 15 for a in ex.assumptions)
    assert ex.call_sites[0].peer == "partial" and ex.call_sites[0].resolution == "partial"


def test_two_values_shown_as_the_own_rank_are_neither(tmp_path):
    text = Path(idiom_kernel(tmp_path, "%x: i32, %y: i32", "%x", "%x")).read_text()
    second = ("    %me2 = arith.index_cast %y : i32 to index\n"
              "    %from2 = pto.load_scalar %windows[%me2] : !pto.ptr<i64> -> i64\n"
              "    %bytes2 = arith.subi %to, %from2 : i64\n    %elems2 = arith.divsi %bytes2, %c4 : i64\n"
              "    %d2 = arith.index_cast %elems2 : i64 to index\n"
              "    %r2 = pto.addptr %f, %d2 : !pto.ptr<i32> -> !pto.ptr<i32>\n")
    p = tmp_path / "k.pto"
    p.write_text(text.replace("    return\n", second + "    return\n"))
    ex = extract([p.as_posix()])
    assert any("shows different values as the own rank (%x, %y)" in a.text for a in ex.assumptions)
    assert "param X = 0;" in ex.sig_text and ex.call_sites[0].resolution != "full"


def test_the_config_wins_over_the_idiom_and_says_so(tmp_path):
    ex = extract([idiom_kernel(tmp_path, "%x: i32, %y: i32", "%x", "%x")], {"rank": "y"})
    assert any("shows %x as the own rank, but the config says rank = y" in a.text for a in ex.assumptions)
    assert ex.call_sites[0].resolution != "full"


CTX = (CORPUS / "ctx_barrier" / "ctx_barrier.pto").read_text()


def test_the_commctx_slots_give_rank_and_rank_count():
    ex = extract([kernel("ctx_barrier")])
    assert [c.resolution for c in ex.call_sites] == ["full", "full"]
    assert "TNOTIFY(arg0[rank] @ arg2, 1, AtomicAdd);" in ex.sig_text
    assert "arg2 < nranks" in ex.sig_text and "param" not in kernel_of(ex.sig_text)


def test_a_table_whose_windows_are_not_where_commctx_has_them_gives_no_rank_count(tmp_path):
    # the same code with the windows at slot 8: nothing says the table is a CommContext
    # (or a window table), so slot 2 and its halves are runtime data and the peer an assumption
    p = tmp_path / "k.pto"
    p.write_text(CTX.replace("%c4 = arith.constant 4 : index", "%c4 = arith.constant 8 : index"))
    ex = extract([p.as_posix()])
    assert "rank" not in kernel_of(ex.sig_text)
    assert any("taken for the own rank's" in a.text and a.line == 34 for a in ex.assumptions)
    assert any("runtime data" in a.text and a.line == 18 for a in ex.assumptions)
    assert all(c.resolution == "none" for c in ex.call_sites)


def test_a_slot_2_read_without_the_idiom_is_runtime_data(tmp_path):
    # no window arithmetic: %arg1[2] is just a word of some table
    head, _, _ = CTX.partition("    scf.for %arg2")
    p = tmp_path / "k.pto"
    p.write_text(head + "    %20 = pto.make_tensor_view %arg0, shape = [%5], strides = [%c1] : !pto.tensor_view<?xi32>\n"
                 "    %21 = pto.partition_view %20, offsets = [%6], sizes = [%c1] : !pto.tensor_view<?xi32> -> "
                 "!pto.partition_tensor_view<1xi32>\n"
                 "    pto.comm.twait(%21, %c1_i32 : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp ge>}\n"
                 "    return\n  }\n}\n")
    ex = extract([p.as_posix()])
    assert "rank" not in kernel_of(ex.sig_text).replace("nranks", "")
    (site,) = ex.call_sites
    assert site.index == "none"


A2A = (CORPUS / "a2a_barrier" / "a2a_barrier.pto").read_text()
RING = (CORPUS / "ring_pipeline" / "ring_pipeline.pto").read_text()


def conventional_nranks(ex) -> bool:
    return any("took %nranks as nranks (a conventional name" in a.text for a in ex.assumptions)


def test_a_sweep_over_the_windows_and_the_ring_step_prove_the_rank_count(tmp_path):
    for text in (A2A, RING, RING.replace("%after = arith.addi %me, %c1 : index",
                                         "%n1 = arith.subi %n, %c1 : index\n    %after = arith.addi %me, %n1 : index")):
        p = tmp_path / "k.pto"
        p.write_text(text)
        ex = extract([p.as_posix()], {"pragmas": False})
        assert not conventional_nranks(ex), [str(a) for a in ex.assumptions]
        assert all(c.resolution == "full" for c in ex.call_sites), [c.levels() for c in ex.call_sites]
        assert "nranks" in kernel_of(ex.sig_text)


def test_look_alikes_of_the_sweep_and_the_ring_step_prove_no_rank_count(tmp_path):
    variants = {
        "a sweep from 1": A2A.replace("scf.for %p = %c0 to %n step %c1", "scf.for %p = %c1 to %n step %c1"),
        "a sweep of step 2": A2A.replace("%c1 = arith.constant 1 : index",
                                         "%c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index")
                                .replace("scf.for %p = %c0 to %n step %c1", "scf.for %p = %c0 to %n step %c2"),
        "a ring step of twice the rank": RING.replace("%after = arith.addi %me, %c1 : index",
                                                      "%twice = arith.addi %me, %me : index\n    %after = arith.addi %twice, %c1 : index"),
        "a modulus of something else": RING.replace("%next = arith.remsi %after, %n : index",
                                                    "%n1 = arith.subi %n, %c1 : index\n    %next = arith.remsi %after, %n1 : index"),
    }
    for what, text in variants.items():
        p = tmp_path / "k.pto"
        p.write_text(text)
        ex = extract([p.as_posix()], {"pragmas": False})
        assert conventional_nranks(ex), what

"""Parser: spans on nodes, the friendly-message table, keyword and lexical errors."""

import pytest

from model import SpecErrors, parse
from model import syntax as S
from model.parser import FRIENDLY


def first_error(text: str):
    with pytest.raises(SpecErrors) as info:
        parse(text, "f.sig")
    return info.value.errors[0]


@pytest.mark.parametrize("message,snippet", [(m, s) for m, snippets in FRIENDLY.items() for s in snippets])
def test_every_friendly_snippet_gets_its_message(message, snippet):
    assert first_error(snippet).message == message


# Pinned locations: (snippet, message prefix, line, col)
PINNED = [
    ("ranks 2;\nkernel { x = 3 }\n", "missing ';' at the end of the statement", 2, 15),
    ("kernel { TWAIT(f, 1, EQ) }", "missing ';' at the end of the statement", 1, 25),
    ("param N = 2\nranks N;", "missing ';' after the declaration", 1, 12),
    ("kernel {\n  x = 1;\n", "unbalanced braces: a '}' is missing", 3, 1),
    ("kernel { }\n}", "unbalanced braces: this '}' closes nothing", 2, 1),
    ("kernel {\n  TWAIT(f, 1, ==);\n}", "expected a comparison", 2, 15),
    ("kernel { TWAIT(f == 1); }", "TNOTIFY, TWAIT and TTEST take (signal, value, op)", 1, 18),
    ("kernel { int if = 1; }", "'if' is a keyword", 1, 14),
    ("kernel { x = €; }", "unexpected character '€'", 1, 14),
    ("kernel { x = 1 ++ ; }", "unexpected ';'", 1, 19),
    ("ranks 1;\x00", "the file contains a NUL byte", 1, 1),
]


@pytest.mark.parametrize("snippet,message,line,col", PINNED)
def test_pinned_error_locations(snippet, message, line, col):
    err = first_error(snippet)
    assert err.message.startswith(message)
    assert (err.span.line, err.span.col) == (line, col)


def test_error_renders_file_line_col_source_and_caret():
    with pytest.raises(SpecErrors) as info:
        parse("ranks 2;\nkernel { TWAIT(f, 1, ==); }\n", "specs/x.sig")
    text = info.value.render()
    head, src, caret = text.splitlines()
    assert head.startswith("specs/x.sig:2:22: error: expected a comparison")
    assert src.strip() == "kernel { TWAIT(f, 1, ==); }"
    assert caret.index("^") - src.index("k") == 21


def test_nodes_carry_spans():
    spec = parse("ranks 2;\nsignal f[2];\nkernel {\n  TNOTIFY(f[1] @ 1, 2, AtomicAdd);\n}\n", "a.sig")
    kernel = [d for d in spec.decls if d.kind == "kernel"][0]
    notify = kernel.body.body[0]
    assert isinstance(notify, S.Notify)
    assert (notify.span.line, notify.span.col) == (4, 3)
    assert (notify.ref.span.line, notify.ref.span.col) == (4, 11)
    assert notify.op.parts == ("AtomicAdd",)
    assert isinstance(notify.ref.at, S.IntLit) and notify.ref.at.value == 1


def test_pto_spellings_parse():
    text = """ranks 2; signal f[2];
    kernel {
      comm::TNOTIFY(f[0] @ 1, 1, comm::NotifyOp::Set);
      pto::comm::TWAIT(f[0:2:1], 0, WaitCmp::GE);
      bool b = comm::TTEST(f[:], 1, comm::WaitCmp::EQ);
      pipe_barrier(PIPE_ALL);
    }"""
    kernel = [d for d in parse(text, "p.sig").decls if d.kind == "kernel"][0]
    kinds = [type(s).__name__ for s in kernel.body.body]
    assert kinds == ["Notify", "Wait", "VarDecl", "PipeBarrier"]
    assert kernel.body.body[0].op.parts == ("comm", "NotifyOp", "Set")


def test_dangling_else_binds_to_inner_if():
    kernel = [d for d in parse("kernel { if (a) if (b) x = 1; else x = 2; }", "d.sig").decls][0]
    outer = kernel.body.body[0]
    assert outer.orelse is None and outer.then.orelse is not None


def test_hex_literals_and_comments():
    spec = parse("/* block\ncomment */ param N = 0x10; // line\nranks 1;", "h.sig")
    assert spec.decls[0].value.value == 16


def test_deep_nesting_parses_without_recursion_error():
    text = "ranks 1; kernel " + "{" * 3000 + "}" * 3000
    spec = parse(text, "deep.sig")
    assert spec.decls[-1].kind == "kernel"


def test_crlf_line_endings():
    spec = parse("ranks 1;\r\nkernel {\r\n  x = 1;\r\n}\r\n", "crlf.sig")
    kernel = spec.decls[1]
    assert kernel.body.body[0].span.line == 3


@pytest.mark.parametrize("snippet,message", [
    ("ranks 1; kernel { int a[2]; }", "a local array needs an initializer"),
    ("int x = 0; ranks 1; kernel {}", "top-level variables are not supported: declare 'param NAME = VALUE;'"),
    ("ranks 1; signal f; kernel { atomicAdd(f, 1); }", "'atomicAdd(...)': function calls are not supported"),
    ("ranks 1; signal f; kernel { int v = atomicAdd(f, 1); }", "or int old = FETCH_ADD(sig @ r, v)"),
])
def test_constructs_of_real_kernels_say_what_to_write_instead(snippet, message):
    with pytest.raises(SpecErrors) as info:
        parse(snippet, "s.sig")
    assert message in info.value.errors[0].message


def test_the_keyword_list_of_the_language_doc_is_the_grammars():
    from conftest import ROOT
    from model.vocabulary import KEYWORDS

    doc = (ROOT / "docs" / "language.md").read_text()
    block = doc.split("**Keywords.**", 1)[1].split("```", 2)[1]
    assert sorted(block.split()) == sorted(KEYWORDS)


def test_the_grammar_cache_is_private_and_a_broken_one_is_rebuilt(tmp_path):
    """The analysed grammar is kept in the user's cache folder (XDG_CACHE_HOME/sigproof), not
    in a shared temporary folder; a corrupt file there does not break parsing and is rewritten."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    run = [sys.executable, "-m", "checker", "check", "specs/all_to_all_barrier.sig", "-D", "N=2", "--no-timing"]
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    first = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True)
    assert first.returncode == 0 and "PASS: ok" in first.stdout
    (cached,) = (tmp_path / "sigproof").iterdir()
    assert cached.name.startswith("sig-grammar-lark") and (tmp_path / "sigproof").stat().st_mode & 0o077 == 0
    cached.write_bytes(b"not a grammar\n" + os.urandom(64))
    again = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True)
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert not cached.read_bytes().startswith(b"not a grammar") and cached.stat().st_size > 1000
    nowhere = subprocess.run(run, cwd=root, env=dict(env, XDG_CACHE_HOME="/proc/no-such-folder"),
                             capture_output=True, text=True)
    assert (nowhere.returncode, nowhere.stdout, nowhere.stderr) == (first.returncode, first.stdout, first.stderr)

"""Hostile input: every input ends in a verdict or in exit 2 with a location, never a traceback
or a hang. Pinned nasty cases, then Hypothesis fuzzing of text and of mutated specs."""

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.cli import run

SPECS = sorted((Path(__file__).resolve().parent.parent / "specs").glob("*.sig"))
LOCATED = re.compile(r"^\S+?(:\d+:\d+)?: error: ", re.M)


def check_file(path, *extra):
    out, err = io.StringIO(), io.StringIO()
    code = run(["check", str(path), "--max-states", "20000", "--timeout", "20", *map(str, extra)], out, err)
    return code, out.getvalue(), err.getvalue()


def assert_sane(code, out, err):
    assert code in (0, 1, 2, 3)
    assert "Traceback" not in out + err
    if code == 2:
        assert LOCATED.search(err), err


NASTY = {
    "empty": "",
    "only_comment": "// nothing here\n",
    "unterminated_comment": "ranks 1; /* kernel {}",
    "nested_10000": "ranks 1; kernel " + "{" * 10000 + "}" * 10000,
    "nested_if_10000": "ranks 1; kernel { " + "if (true) " * 10000 + "; }",
    "paren_10000": "ranks 1; const X = " + "(" * 10000 + "1" + ")" * 10000 + "; kernel {}",
    "unary_10000": "ranks 1; const X = " + "-" * 10000 + "1; kernel {}",
    "sum_10000": "ranks 1; const X = " + "+".join(["1"] * 10000) + "; kernel {}",
    "signal_10e12": "ranks 1; signal f[1000000][1000000]; kernel {}",
    "param_10e30": "param N = 1000000000000000000000000000000; ranks N; kernel {}",
    "literal_100_digits": "ranks " + "9" * 100 + "; kernel {}",
    "ranks_0": "ranks 0; kernel {}",
    "negative_dim": "ranks 1; signal f[-2]; kernel {}",
    "negative_blocks": "ranks 1; blocks -1; kernel {}",
    "const_div_zero": "const Z = 0; const X = 1 / Z; ranks 1; kernel {}",
    "const_mod_zero": "const X = 5 % 0; ranks 1; kernel {}",
    "huge_shift": "const X = 1 << 100000; ranks 1; kernel {}",
    "huge_power": "const X = 65536 * 65536 * 65536 * 65536 * 65536; ranks 1; kernel {}",
    "local_spin": "ranks 1; kernel { while (true) {} }",
    "local_toggle": "ranks 1; kernel { int x = 0; while (true) { x = 1 - x; } }",
    "local_growth": "ranks 1; kernel { int x = 0; while (true) { x++; } }",
    "local_square": "ranks 1; kernel { int x = 2; while (true) { x = x * x; } }",
    "visible_growth": "ranks 1; signal f; kernel { int x = 0; while (true) { x++; TNOTIFY(f, 1, Set); } }",
    "unicode_ident": "ranks 1; signal café; kernel {}",
    "homoglyph": "ranks 1; signal flag; kernel { TNOTIFY(fl\u0430g, 1, Set); }",
    "zero_width": "ranks 1; signal f\u200b; kernel {}",
    "crlf": "ranks 1;\r\nsignal f;\r\nkernel {\r\n  TNOTIFY(f, 1, Set);\r\n  TWAIT(f, 1, EQ);\r\n}\r\n",
    "bom": "\ufeffranks 1; signal f; kernel { TNOTIFY(f, 1, Set); }",
    "tabs": "ranks\t1;\tkernel\t{\t}",
    "python_injection": "ranks __import__('os').system('echo pwned'); kernel {}",
    "format_injection": "ranks 1; signal {f}; kernel {}",
    "keyword_as_name": "ranks 1; signal kernel; kernel {}",
    "remote_wait": "ranks 2; signal f; kernel { TWAIT(f @ 1, 1, EQ); }",
    "rank_out_of_range": "ranks 2; signal f; kernel { TNOTIFY(f @ 7, 1, Set); }",
    "negative_slice_step": "ranks 1; signal f[4]; kernel { TWAIT(f[0:4:-1], 0, EQ); }",
    "empty_slice": "ranks 1; signal f[4]; kernel { TWAIT(f[2:2], 0, EQ); }",
    "many_processes": "ranks 64; blocks 64; kernel {}",
    "many_launches": "ranks 1; host { while (true) launch; } kernel {}",
    "set_out_of_int32": "ranks 1; signal f; kernel { int v = 2147483647; v++; TNOTIFY(f, v, Set); }",
}


@pytest.mark.parametrize("name", sorted(NASTY))
def test_nasty_input_is_handled(name, tmp_path):
    p = tmp_path / f"{name}.sig"
    p.write_bytes(NASTY[name].encode("utf-8"))
    assert_sane(*check_file(p))


def test_specific_nasty_outcomes(tmp_path):
    def outcome(name):
        p = tmp_path / f"{name}.sig"
        p.write_bytes(NASTY[name].encode("utf-8"))
        return check_file(p)

    assert outcome("empty")[0] == 2
    assert outcome("nested_10000")[0] == 2 and "nested more than 200 deep" in outcome("nested_10000")[2]
    assert "too large" in outcome("signal_10e12")[2]
    assert "at least 1, not 0" in outcome("ranks_0")[2]
    assert "division by zero" in outcome("const_div_zero")[2]
    assert outcome("local_spin")[0] == 1 and "spins forever in a local loop" in outcome("local_spin")[1]
    assert outcome("local_toggle")[0] == 1
    code, out, _ = outcome("local_growth")  # no signal operation at all: vacuous, whatever stopped the run
    assert code == 1 and "FAIL: vacuous" in out and "without a signal operation" in out
    code, out, _ = outcome("local_square")
    assert code == 1 and "integer value too large" in out
    assert outcome("visible_growth")[0] == 3
    code, out, _ = outcome("many_launches")
    assert code == 1 and "deadlock: the remaining processes can only spin forever" in out
    assert outcome("crlf")[0] == 0
    assert outcome("bom")[0] == 0
    assert outcome("remote_wait")[0] == 1 and "reads only the own rank's copy" in outcome("remote_wait")[1]
    assert "echo pwned" not in outcome("python_injection")[1]
    assert "unexpected character" in outcome("homoglyph")[2]


def test_binary_garbage_and_nul_bytes(tmp_path):
    p = tmp_path / "garbage.sig"
    p.write_bytes(bytes(range(256)) * 20)
    code, _, err = check_file(p)
    assert code == 2 and "not UTF-8 text" in err
    p.write_bytes(b"ranks 1;\n\x00kernel {}")
    code, _, err = check_file(p)
    assert code == 2 and ":2:1: error: the file contains a NUL byte" in err


def test_five_megabyte_file_is_refused_quickly(tmp_path):
    p = tmp_path / "big.sig"
    p.write_text("ranks 1; kernel { int x = 0; " + "x = x + 1; " * 500_000 + "}")
    code, _, err = check_file(p)
    assert code == 2 and "specs are at most 1 MiB" in err


def test_spec_that_names_its_own_path(tmp_path):
    p = tmp_path / "self.sig"
    p.write_text(f"// this file is {p}\n#include \"{p}\"\nranks 1; kernel {{}}\n")
    assert_sane(*check_file(p))


# ---- fuzzing

ALPHABET = st.sampled_from(list("{}()[];,:@=+-*/%<>!&|^~?") + ["TNOTIFY", "TWAIT", "TTEST", "ranks", "signal",
                           "kernel", "host", "launch", "reset", "if", "else", "for", "while", " ", "\n", "f", "x",
                           "1", "0", "2147483647", "Set", "AtomicAdd", "EQ", "GE", "int", "rank", "nranks"])


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(ALPHABET, max_size=60).map(" ".join))
def test_fuzz_token_soup(tmp_path_factory, text):
    p = tmp_path_factory.mktemp("fuzz") / "soup.sig"
    p.write_text(text)
    assert_sane(*check_file(p))


@st.composite
def mutated_spec(draw):
    source = draw(st.sampled_from(SPECS)).read_text() if SPECS else "ranks 1; kernel {}"
    for _ in range(draw(st.integers(1, 4))):
        if not source:
            break
        at = draw(st.integers(0, len(source) - 1))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "swap_digit"]))
        if kind == "delete":
            source = source[:at] + source[at + draw(st.integers(1, 8)):]
        elif kind == "insert":
            source = source[:at] + draw(st.sampled_from(list("{}();@[]:-") + ["EQ", "0", "99"])) + source[at:]
        elif kind == "duplicate":
            source = source[:at] + source[at: at + 20] + source[at:]
        else:
            source = re.sub(r"\d", lambda m: str(draw(st.integers(0, 9))), source, count=1)
    return source


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated_spec())
def test_fuzz_mutated_specs(tmp_path_factory, text):
    p = tmp_path_factory.mktemp("mut") / "m.sig"
    p.write_text(text)
    assert_sane(*check_file(p, "--max-states", "3000", "--timeout", "5"))

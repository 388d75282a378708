"""Local arrays (`int a[N] = {...};`) and declared views over a flat signal
(`view g[R][C] = s[OFF::STRIDE];`): parsing, spec errors with their location, run-time
faults, semantics against plain references (Hypothesis), analysis and the Promela export."""

import pytest
from helpers import check_text, compile_text, violated
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.promela import exportable, promela
from model import SpecErrors, compile as C, ir, parse
from model.analysis import Analysis
from oracles.spin_oracle import have_spin, spin_check


def errors(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        compile_text(text)
    return info.value.errors


# ---------------------------------------------------------------- parsing

def test_array_and_view_syntax_parses_with_spans():
    spec = parse("ranks 1; signal s[8]; view g[2][3] = s[1::4];\n"
                 "kernel { int a[3] = {1, 2,}; a[1] += 2; a[0]++; int x = a[a[0]]; }", "p.sig")
    view = spec.decls[2]
    assert view.kind == "view" and view.name == "g" and view.target.name == "s"
    assert (view.span.line, view.span.col) == (1, 23)
    decl, add, step, use = spec.decls[3].body.body
    assert (decl.name, len(decl.items)) == ("a", 2)
    assert (add.op, step.op) == ("+=", "+=")
    assert use.init.name == "a" and use.init.index.name == "a"
    assert (use.init.span.line, use.init.span.col) == (2, 57)


def test_view_is_a_keyword():
    assert "'view' is a keyword" in errors("ranks 1; kernel { int view = 1; }")[0].message


# ---------------------------------------------------------------- spec errors, with their location

@pytest.mark.parametrize("body, message, at", [
    ("int a[2] = {1, 2, 3};", "local array 'a' has 2 element(s) but 3 initializers", "3}"),
    ("int a[0] = {1};", "the size is a constant from 1 to 64", "0]"),
    ("int a[65] = {1};", "the size is a constant from 1 to 64", "65"),
    ("int n = 2; int a[n] = {1};", "'n' is not a param or an earlier const", "n]"),
    ("int a[2] = {0}; int b = a;", "'a' is a local array: use one element (a[i])", "a;"),
    ("int a[2] = {0}; a = 1;", "'a' is a local array: assign one element", "a = 1"),
    ("int a[2] = {0}; int b = a[2];", "index 2 is out of bounds for local array 'a' (size 2)", "2];"),
    ("int a[2] = {0}; a[-1] = 0;", "index -1 is out of bounds for local array 'a' (size 2)", "-1"),
    ("int a[2] = {0}; a[0] = any(0, 1);", "any(lo, hi) cannot be assigned to an array element", "any"),
    ("int a[2] = {0}; a = any(0, 1);", "'a' is a local array", "a = any"),
    ("int x = 0; int b = x[0];", "'x' is not an array", "x[0]"),
    ("int b = f[0];", "signal 'f' can only be indexed inside a signal operation", "f[0]"),
    ("int b = q[0];", "undeclared name 'q'", "q[0]"),
    ("int a[2] = {0}; int a[1] = {0};", "'a' is already declared in this block", "int a[1]"),
    ("int f[2] = {0};", "'f' is already a signal", "int f"),
])
def test_array_misuse_is_a_spec_error_with_its_location(body, message, at):
    errs = errors(f"ranks 1; signal f[2];\nkernel {{ {body} }}")
    err = next(e for e in errs if message in e.message)
    assert (err.span.file, err.span.line, err.span.col) == ("t.sig", 2, len("kernel { ") + 1 + body.index(at))


@pytest.mark.parametrize("decl, message, at", [
    ("view g[2][3] = s[0::2];", "row stride 2 is less than a row (3 elements), so rows would overlap", "s[0"),
    ("view g[2][2] = s[5::4];", "reaches elements 5..10 of 's', which has 8", "s[5"),
    ("view g[2] = t;", "signal 't' has 2 dimensions; a view is declared over a flat (1-D) signal", "t;"),
    ("view g[3] = d[2::1];", "reaches elements 2..4 of 'd', which has 4", "d[2"),
    ("view g[2] = s;\nview h[1] = g;", "'g' is a view; a view is declared over a signal or a buffer", "g;"),
    ("view g[2] = nope;", "undeclared signal 'nope'", "nope"),
    ("view g[2] = s[0:2];", "s[OFFSET:] or s[OFFSET::STRIDE]", "[0:2]"),
    ("view g[2] = s[1];", "s[OFFSET:] or s[OFFSET::STRIDE]", "[1]"),
    ("view g[2] = s @ 1;", "a view declaration names no rank", "1;"),
    ("view g[0] = s;", "view dimension must be at least 1", "0]"),
    ("view s[2] = s;", "'s' is declared twice", "view s"),
])
def test_view_declaration_errors_have_their_location(decl, message, at):
    errs = errors(f"ranks 2; signal s[8]; signal t[2][2]; buffer d[4];\n{decl}\nkernel {{ }}")
    err = next(e for e in errs if message in e.message)
    line = decl[:decl.index(at)].count("\n")
    assert (err.span.line, err.span.col) == (2 + line, 1 + decl.index(at) - (decl.rindex("\n", 0, decl.index(at)) + 1 if line else 0))


def test_view_uses_are_checked_like_signal_views():
    errs = errors("ranks 2; signal s[8]; view g[2][4] = s;\n"
                  "kernel { TNOTIFY(g[0], 1, Set); TWAIT(g[0][1][2], 1, EQ); int x = g; }")
    msgs = [e.message for e in errs]
    assert any("this view of 'g' can hold several" in m and "2 dimension(s)" in m for m in msgs)
    assert any("view 'g' has 2 dimension(s) but 3 are indexed" in m for m in msgs)
    assert any("view 'g' can only be used where a signal is" in m for m in msgs)


def test_a_view_of_a_buffer_is_used_where_the_buffer_is_and_nowhere_else():
    errs = errors("ranks 2; buffer b[16]; signal s[4]; view v[2][3] = b[1::8]; view g[2] = s;\n"
                  "kernel { TNOTIFY(v[0][0], 1, Set); TPUT(g @ 1, b[0:2]); }")
    msgs = [e.message for e in errs]
    assert any("'v' is a buffer, not a signal" in m for m in msgs)
    assert any("'g' is a signal; TPUT moves buffer data" in m or "undeclared buffer 'g'" in m for m in msgs), msgs


STRIDED_PUT = """ranks 2;
buffer b[16];
buffer c[6];
view v[2][3] = b[1::8];
signal f;
kernel {
    if (rank == 0) {
        TPUT(v @ 1, c);
        FENCE
        TNOTIFY(f @ 1, 1, Set);
    } else {
        TWAIT(f, 1, EQ);
        READ(b[K]);
    }
}
"""


@pytest.mark.parametrize("k", range(16))
def test_a_strided_put_through_a_buffer_view_races_on_its_rows_only(k):
    """TPUT into `view v[2][3] = b[1::8]` writes b[1..3] and b[9..11]: unfenced, a read of one
    of those after the notify races, a read of any other element does not; fenced, none."""
    rows = {1, 2, 3, 9, 10, 11}
    unfenced = STRIDED_PUT.replace("FENCE", "").replace("K", str(k))
    assert violated(unfenced) == ({"data_race"} if k in rows else set())
    assert violated(unfenced, por=False, symmetry=False) == violated(unfenced)
    fenced = STRIDED_PUT.replace("FENCE", "pipe_barrier(PIPE_ALL); dsb(DSB_DDR);").replace("K", str(k))
    assert violated(fenced) == set()


# ---------------------------------------------------------------- run-time faults and semantics

def test_an_index_computed_at_run_time_faults_at_the_access():
    r = check_text("ranks 1; signal f;\nkernel { int a[2] = {5, 6}; int i = 2; int x = a[i]; }")
    (v,) = r.violations
    assert v.property == "error" and "index 2 is out of bounds for local array 'a' (size 2)" in v.message
    assert "t.sig:2:48" in v.message
    r = check_text("ranks 1; signal f;\nkernel { int a[2] = {5, 6}; int i = -1; a[i] = 0; }")
    assert r.violated == ["error"] and "t.sig:2:43" in r.violations[0].message


def test_missing_initializers_are_zero_and_writes_hit_one_element():
    ok = "ranks 1; kernel { int a[3] = {7}; int i = 1; a[i] = 4; a[i] += 1; a[i + 1]--; " \
         "assert(a[0] == 7 && a[1] == 5 && a[2] == -1); }"
    assert violated(ok) == set()
    assert violated(ok.replace("a[2] == -1", "a[2] == 0")) == {"assertion"}


def test_the_index_and_value_of_a_write_are_read_before_it():
    # a[a[0]] = a[0] + 10 reads a[0] (= 1) for both, then writes a[1]
    assert violated("ranks 1; kernel { int a[2] = {1, 0}; a[a[0]] = a[0] + 10; "
                    "assert(a[0] == 1 && a[1] == 11); }") == set()


def test_array_elements_as_ranks_indices_and_loop_variables():
    text = """
    ranks 3; signal f[3];
    kernel {
        int peers[2] = {(rank + 1) % nranks, (rank + 2) % nranks};
        for (peers[0] = peers[0]; peers[0] != rank; peers[0] = (peers[0] + 1) % nranks) {
            TNOTIFY(f[rank] @ peers[0], 1, AtomicAdd);
        }
        TWAIT(f[peers[1]], 1, GE);
    }
    """
    assert violated(text) == set()


def test_states_of_the_shipped_examples_are_pinned():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    counts = {}
    for name in ("peer_array_barrier", "signal2d_tile_flags", "bug_signal2d_wrong_stride"):
        r = check_text((root / "specs" / f"{name}.sig").read_text())
        counts[name] = (r.violated, r.stats.states)
    assert counts == {"peer_array_barrier": ([], 19), "signal2d_tile_flags": ([], 93),
                      "bug_signal2d_wrong_stride": (["deadlock"], 40)}


def test_a_view_names_the_strided_elements_and_faults_by_its_own_dimensions():
    r = check_text("ranks 1; signal s[12]; view g[3][2] = s[1::4];\n"
                   "kernel { int i = 3; TNOTIFY(g[i][0], 1, Set); }")
    assert r.violated == ["error"]
    assert "index 3 is out of bounds for dimension 0 of 'g' (size 3)" in r.violations[0].message
    program = compile_text("ranks 2; signal s[12]; view g[3][2] = s[1::4];\n"
                           "kernel { TWAIT(g[1:3][1], 1, EQ); }")
    wait = next(x for x in program.kernel.instrs if isinstance(x, ir.Wait))
    assert C.view(wait.view, 2)((), (0, 0, 0)) == (None, (6, 10))


def test_the_analysis_sees_the_elements_a_view_and_an_array_may_name():
    program = compile_text("ranks 2; signal s[8]; view g[2][2] = s[4::2];\n"
                           "kernel { int a[2] = {1, 0}; int i = rank; TNOTIFY(g[a[i]][1] @ 1, 1, Set); }")
    an = Analysis(program)
    pc = next(k for k, x in enumerate(program.kernel.instrs) if isinstance(x, ir.Notify))
    # rank 0: a[0] = 1 -> g[1][1] = s[4 + 2 + 1] on rank 1; rank 1: a[1] = 0 -> g[0][1] = s[5]
    assert an.footprints("kernel", 0, 0)[pc].writes == 1 << (8 + 7)
    assert an.footprints("kernel", 1, 0)[pc].writes == 1 << (8 + 5)
    # an index the analysis cannot pin down: every element the array may hold
    program = compile_text("ranks 2; signal s[8]; view g[2][2] = s[4::2];\n"
                           "kernel { int a[2] = {1, 0}; int i = any(0, 1); TNOTIFY(g[a[i]][1] @ 1, 1, Set); }")
    an = Analysis(program)
    pc = next(k for k, x in enumerate(program.kernel.instrs) if isinstance(x, ir.Notify))
    assert an.footprints("kernel", 0, 0)[pc].writes == (1 << (8 + 7)) | (1 << (8 + 5))


# ---------------------------------------------------------------- Hypothesis: against plain references

@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(-3, 3), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(-1, 4), st.integers(-5, 5)), max_size=4))
def test_array_writes_and_reads_agree_with_a_python_list(size, init, writes):
    init = init[:size]
    ref = init + [0] * (size - len(init))
    stmts, fault = [], False
    for i, v in writes:
        stmts.append(f"i = {i}; a[i] = {v};")
        if not 0 <= i < size:
            fault = True
            break
        ref[i] = v
    checks = " && ".join(f"a[{k}] == {x}" for k, x in enumerate(ref))
    text = (f"ranks 1; kernel {{ int i = 0; int a[{size}] = {{{', '.join(map(str, init))}}}; "
            f"{' '.join(stmts)} assert({checks}); }}")
    assert violated(text) == ({"error"} if fault else set())


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 3), st.integers(0, 2), st.data())
def test_view_elements_agree_with_the_stride_formula(rows, cols, offset, pad, data):
    stride = cols + pad
    size = offset + (rows - 1) * stride + cols
    a = data.draw(st.integers(0, rows - 1))
    b = data.draw(st.integers(a + 1, rows))
    c = data.draw(st.integers(0, cols - 1))
    program = compile_text(f"ranks 1; signal s[{size}]; view g[{rows}][{cols}] = s[{offset}::{stride}];\n"
                           f"kernel {{ TWAIT(g[{a}:{b}][{c}:], 1, EQ); }}")
    wait = next(x for x in program.kernel.instrs if isinstance(x, ir.Wait))
    expected = tuple(offset + i * stride + j for i in range(a, b) for j in range(c, cols))
    rank, offsets = C.view(wait.view, 1)((), (0, 0, 0))  # a range when they are one run
    assert (rank, tuple(offsets)) == (None, expected)


# ---------------------------------------------------------------- the Promela export

EXPORTED = """
ranks 2; signal s[8]; view g[2][2] = s[1::4];
kernel {
    int peers[2] = {1 - rank, rank};
    int k = rank;
    TNOTIFY(g[rank][k] @ peers[0], 1, Set);
    TWAIT(g[1 - rank][1 - k], 1, EQ);
    peers[k + 1] = 0;
}
"""


def test_arrays_and_views_export_to_promela():
    program = compile_text(EXPORTED)
    assert exportable(program) is None
    text = promela(program)
    assert text == promela(compile_text(EXPORTED))
    assert "peers" in text


@pytest.mark.skipif(not have_spin(), reason="spin and gcc are not installed")
def test_spin_agrees_on_arrays_and_views(tmp_path):
    program = compile_text(EXPORTED)
    assert set(check_text(EXPORTED).violated) == {"error"}
    spin = spin_check(promela(program), tmp_path)
    assert spin.complete, spin.output
    assert set(spin.violated) == {"error"}, spin.output

"""frontends.cpp: extraction of .sig skeletons from PTO C++ kernels.

The corpus kernels in tests/frontends/corpus/NAME/NAME.cpp have their skeletons pinned in
tests/frontends/golden/NAME.sig (and their assumptions in NAME.assumptions). To accept a
deliberate change of the output:
    SIGPROOF_UPDATE_GOLDEN=1 python -m pytest tests/frontends
and review the diff of tests/frontends/golden/.
"""

import ast
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checker.cli import run as sigproof
from frontends.cpp import ExtractError, extract
from frontends.cpp.__main__ import run as extract_cli
from frontends.cpp.prepass import prepass
from model import compile_spec, parse

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "frontends" / "corpus"
GOLDEN = ROOT / "tests" / "frontends" / "golden"
KERNELS = sorted(p.name for p in CORPUS.iterdir() if (p / f"{p.name}.cpp").is_file())

# the verdict sigproof gives for each extracted skeleton (the set of violated properties)
VERDICTS = {
    "a2a_barrier": set(),
    "bug_counter_set": {"deadlock"},
    "bug_done_epilogue": {"dirty_exit"},
    "bug_put_notify_no_fence": {"data_race"},
    "bug_ring_poll_eq": {"deadlock", "lost_notification"},
    "bug_runtime_peer_any": {"deadlock"},
    "bug_slot_overrun": {"error"},
    "bug_st_multi_phase": {"deadlock", "lost_notification"},
    "bug_st_threshold": {"deadlock"},
    "counter_barrier": set(),
    "credit_epilogue": set(),
    "emitc_barrier": set(),
    "header_helper": set(),
    "mixed_start_sync": set(),
    "peer_table": set(),
    "plain_flag": set(),
    "put_notify_fence": set(),
    "ring_pipeline": set(),
    "runtime_peer": set(),
    "signal2d_tiles": set(),
    "st_atomic_threshold": set(),
    "st_multi_phase": set(),
    "st_scoreboard": set(),
    "st_ttest_phases": set(),
    "syncall_barrier": set(),
    "two_level_barrier": set(),
}


def kernel_path(name: str) -> str:
    return f"tests/frontends/corpus/{name}/{name}.cpp"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def write(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def check_verdict(tmp_path, sig_text: str, name: str = "skeleton") -> set[str]:
    path = tmp_path / f"{name}.sig"
    path.write_text(sig_text)
    out, err = io.StringIO(), io.StringIO()
    code = sigproof(["check", str(path), "--format", "json", "--no-timing"], out, err)
    assert code in (0, 1), err.getvalue() + out.getvalue()
    (result,) = json.loads(out.getvalue())["results"]
    assert result["status"] in ("pass", "fail")
    return set(result["violated"])


def sig_line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---------------------------------------------------------------- the pre-pass

def test_prepass_keeps_every_line_and_column():
    src = ('extern "C" __global__ AICORE void k(__gm__ int32_t *p) __attribute__((section("x(y)"))) {\n'
           "  __aicore__ PTO_INST f<<<4, nullptr,\n stream>>>(p);\n}\n")
    out, marks = prepass(src)
    assert len(out) == len(src)
    assert [i for i, c in enumerate(out) if c == "\n"] == [i for i, c in enumerate(src) if c == "\n"]
    for word in ("__global__", "AICORE", "__gm__", "__attribute__", "__aicore__", "PTO_INST", "<<<", ">>>"):
        assert word not in out
    assert out.index("void k(") == src.index("void k(")
    assert out.index("int32_t *p") == src.index("int32_t *p")
    assert out.index("(p);") == src.index("(p);")
    kinds = [m.kind for m in marks]
    assert kinds == ["__global__", "AICORE", "__gm__", "__attribute__", "__aicore__", "PTO_INST", "launch"]
    launch = marks[-1]
    assert launch.text == "4, nullptr,\n stream"
    attr = marks[3]
    assert src[attr.start:attr.end] == '__attribute__((section("x(y)")))'


def test_prepass_leaves_comments_and_strings_alone():
    src = '// __gm__ stays\nconst char *s = "__global__ <<<x>>>"; /* AICORE */ __gm__ int x;\n'
    out, marks = prepass(src)
    assert "// __gm__ stays" in out and '"__global__ <<<x>>>"' in out and "/* AICORE */" in out
    assert [m.kind for m in marks] == ["__gm__"]


def test_columns_are_true_after_the_prepass(tmp_path):
    path = write(tmp_path, "k.cpp",
                 "__global__ AICORE void k(__gm__ int32_t *f) {\n"
                 "    __gm__ int32_t *q = f;   pto::comm::TNOTIFY(pto::comm::Signal(q), 1, pto::comm::NotifyOp::Set);\n"
                 "}\n")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"]})
    (site,) = ex.call_sites
    assert (site.line, site.col) == (2, 30)
    entry = ex.origin(sig_line_of(ex.sig_text, "TNOTIFY("))
    assert (entry.line, entry.col, entry.end_line) == (2, 30, 2)
    assert entry.end_col == len("    __gm__ int32_t *q = f;   pto::comm::TNOTIFY(pto::comm::Signal(q), 1, pto::comm::NotifyOp::Set)") + 1


# ---------------------------------------------------------------- folding and following

FOLD = """
#define BASE 2
#define SLOT (BASE * 3 + 1)
constexpr int kOffset = SLOT - 4;      // 3
enum { kFirst = 10, kSecond };
template <int STEPS = 2>
__global__ AICORE void fold(__gm__ int32_t *sig, int32_t extra) {
    const int32_t n = sizeof(int32_t) * kOffset + (1 << 2) % 3;   // 13
    for (int i = 0; i < STEPS; i++) {
        pto::comm::TNOTIFY(pto::comm::Signal(sig + kOffset), n + kSecond - extra, pto::comm::NotifyOp::AtomicAdd);
    }
}
"""


def test_constants_fold_through_macros_constexpr_enums_templates_and_config(tmp_path):
    path = write(tmp_path, "fold.cpp", FOLD)
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "values": {"extra": 4}})
    assert "for (int i = 0; i < 2; i++) {" in ex.sig_text
    assert "TNOTIFY(sig[3], 20, AtomicAdd);" in ex.sig_text
    assert "signal sig[4];" in ex.sig_text
    (site,) = ex.call_sites
    assert (site.index, site.value, site.opcmp) == ("full", "partial", "full")
    ex2 = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "values": {"STEPS": 5, "extra": 0}})
    assert "i < 5" in ex2.sig_text and "TNOTIFY(sig[3], 24, AtomicAdd);" in ex2.sig_text


def test_launch_arguments_and_launch_blocks_are_used(tmp_path):
    path = write(tmp_path, "l.cpp", """
#define DIM 3
__global__ AICORE void k(__gm__ int32_t *s, int32_t v) {
    if (get_block_idx() == 0) { pto::comm::TWAIT(pto::comm::Signal(s), v, pto::comm::WaitCmp::EQ); }
    else { pto::comm::TNOTIFY(pto::comm::Signal(s), 1, pto::comm::NotifyOp::AtomicAdd); }
}
void host(void *stream, uint8_t *s) { k<<<DIM, nullptr, stream>>>((int32_t *)s, DIM - 1); }
""")
    ex = extract([path], {"ranks": 1, "host": ["launch"]})
    assert "param NBLOCKS = 3;    // blocks from the kernel launch" in ex.sig_text
    assert "TWAIT(s, 2, EQ);" in ex.sig_text
    assert all(c.value == "full" for c in ex.call_sites)
    assert check_verdict(tmp_path, ex.sig_text) == set()


def test_a_const_copy_of_a_changing_local_keeps_its_value(tmp_path):
    path = write(tmp_path, "k.cpp", """
__global__ AICORE void k(__gm__ int32_t *f) {
    int k = 0;
    const int slot = k;      // the value of k now, not later
    k++;
    TNOTIFY(Signal(f + slot), k, NotifyOp::Set);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "signals": {"f": 2}})
    assert "    int k = 0;\n    int slot = k;\n    k++;\n    TNOTIFY(f[slot], k, Set);" in ex.sig_text
    parse_and_compile(ex.sig_text)


def test_template_arguments_of_the_launch_are_used(tmp_path):
    path = write(tmp_path, "t.cpp", """
template <int ROUNDS, int SLOT = 0>
__global__ AICORE void k(__gm__ int32_t *s) {
    for (int r = 0; r < ROUNDS; r++) {
        pto::comm::TNOTIFY(pto::comm::Signal(s + SLOT), 1, pto::comm::NotifyOp::AtomicAdd);
    }
}
void host(void *stream, uint8_t *s, int n) { k<3, 1><<<n, nullptr, stream>>>((int32_t *)s); }
""")
    ex = extract([path], {"ranks": 1, "host": ["launch"]})
    assert "r < 3" in ex.sig_text and "TNOTIFY(s[1], 1, AtomicAdd);" in ex.sig_text
    # the block count `n` is a host variable: not followed, the default is said
    assert "param NBLOCKS = 1;    // assumed: block count not configured" in ex.sig_text
    assert "r < 5" in extract([path], {"ranks": 1, "host": ["launch"], "values": {"ROUNDS": 5}}).sig_text


def test_helpers_are_followed_by_their_bodies_not_their_names(tmp_path):
    # the helper is called something no list knows; only its window arithmetic says "remote"
    write(tmp_path, "addr.h", """
template <typename T>
AICORE inline __gm__ T *Zorp(__gm__ uint64_t *w, __gm__ T *p, int me, int to) {
    uint64_t off = (uint64_t)p - w[me];
    return (__gm__ T *)(w[to] + off);
}
AICORE inline void Ping(__gm__ uint64_t *w, __gm__ int32_t *f, int me, int to, int v) {
    pto::comm::Signal s(Zorp(w, f + me, me, to));
    pto::comm::TNOTIFY(s, v, pto::comm::NotifyOp::Set);
}
""")
    path = write(tmp_path, "k.cpp", """
#include "addr.h"
#include <pto/comm/pto_comm_inst.hpp>
__global__ AICORE void k(__gm__ int32_t *f, __gm__ uint64_t *w, int rank, int nranks) {
    Ping(w, f, rank, (rank + 1) % nranks, 7);
    pto::comm::TWAIT(pto::comm::Signal(f + (rank + nranks - 1) % nranks), 7, pto::comm::WaitCmp::EQ);
}
""")
    ex = extract([path], {"ranks": 3, "blocks": 1, "host": ["launch"], "windows": "w"})
    assert "TNOTIFY(f[rank] @ ((rank + 1) % nranks), 7, Set);" in ex.sig_text
    notify = next(c for c in ex.call_sites if c.kind == "TNOTIFY")
    assert notify.file.endswith("addr.h") and notify.line == 9
    assert check_verdict(tmp_path, ex.sig_text) == set()


def test_helper_with_an_early_return_becomes_a_one_shot_loop(tmp_path):
    path = write(tmp_path, "k.cpp", """
AICORE inline void MaybeSignal(__gm__ int32_t *f, int rank) {
    if (rank != 0) {
        return;
    }
    pto::comm::TNOTIFY(pto::comm::Signal(f), 1, pto::comm::NotifyOp::Set);
}
__global__ AICORE void k(__gm__ int32_t *f, int rank) {
    MaybeSignal(f, rank);
    pto::comm::TWAIT(pto::comm::Signal(f), 1, pto::comm::WaitCmp::GE);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"]})
    assert "for (int once = 0; once < 1; once++) {" in ex.sig_text
    assert "break;" in ex.sig_text and "return;" not in ex.sig_text
    assert check_verdict(tmp_path, ex.sig_text) == set()


def test_helpers_in_another_given_file_and_an_extract_table(tmp_path):
    write(tmp_path, "helpers.cpp", """
AICORE void Arrive(__gm__ int32_t *c) { pto::comm::TNOTIFY(pto::comm::Signal(c), 1, pto::comm::NotifyOp::AtomicAdd); }
""")
    path = write(tmp_path, "k.cpp", """
AICORE void Arrive(__gm__ int32_t *c);
__global__ AICORE void k(__gm__ int32_t *c) { Arrive(c); TWAIT(Signal(c), get_block_num(), WaitCmp::GE); }
""")
    (tmp_path / "sigproof.toml").write_text("[extract]\nranks = 1\nblocks = 3\nhost = [\"launch\"]\n")
    ex = extract([path, str(tmp_path / "helpers.cpp")])
    assert "param NBLOCKS = 3;    // blocks from the config" in ex.sig_text
    assert "TNOTIFY(c, 1, AtomicAdd);" in ex.sig_text and "TWAIT(c, nblocks, GE);" in ex.sig_text
    assert check_verdict(tmp_path, ex.sig_text) == set()
    only_kernel = extract([path])
    assert "TNOTIFY" not in only_kernel.sig_text
    assert any("call to Arrive with a signal argument is not followed" in a.text for a in only_kernel.assumptions)


def test_recursive_helpers_are_refused_with_a_location(tmp_path):
    path = write(tmp_path, "k.cpp", """
AICORE void R(__gm__ int32_t *f, int n) { R(f, n); pto::comm::TNOTIFY(pto::comm::Signal(f), 1, pto::comm::NotifyOp::Set); }
__global__ AICORE void k(__gm__ int32_t *f) { R(f, 1); }
""")
    with pytest.raises(ExtractError) as e:
        extract([path], {"ranks": 1})
    assert str(e.value).startswith(f"{path}:2:") and "recursion" in str(e.value)


# ---------------------------------------------------------------- the most vexing parse

@pytest.mark.parametrize("decl", ["pto::comm::Signal sig(flags);", "comm::Signal sig(flags);", "Signal sig(flags);",
                                  "Signal sig(Next(flags, 1));", "Signal sig = Signal(flags);"])
def test_the_most_vexing_parse_is_a_signal_variable(tmp_path, decl):
    path = write(tmp_path, "k.cpp", f"""
AICORE inline __gm__ int32_t *Next(__gm__ int32_t *p, int k) {{ return p + k - 1; }}
__global__ AICORE void k(__gm__ int32_t *flags) {{
    {decl}
    TNOTIFY(sig, 1, NotifyOp::Set);
}}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"]})
    assert "TNOTIFY(flags, 1, Set);" in ex.sig_text
    assert ex.call_sites[0].signal == "full"


@pytest.mark.parametrize("offset, ref", [
    ("9", "cross[1][1]"), ("phase * N + rank", "cross[phase][rank]"), ("rank + phase * N + 1", "cross[phase][rank + 1]"),
    ("2 * N * phase + rank", "cross[2 * phase][rank]"), ("N", "cross[1][0]"),
])
def test_a_flat_offset_splits_into_the_configured_dimensions(tmp_path, offset, ref):
    path = write(tmp_path, "k.cpp", f"""
constexpr int N = 8;
__global__ AICORE void k(__gm__ int32_t *cross, int rank) {{
    for (int phase = 0; phase < 2; phase++) TNOTIFY(Signal(cross + {offset}), 1, NotifyOp::AtomicAdd);
}}
""")
    ex = extract([path], {"ranks": 2, "blocks": 1, "host": ["launch"], "signals": {"cross": [4, "N"]}})
    assert f"TNOTIFY({ref}, 1, AtomicAdd);" in ex.sig_text
    parse_and_compile(ex.sig_text)


def test_a_symbolic_dimension_splits_too(tmp_path):
    kernel = """
__global__ AICORE void k(__gm__ int32_t *cross, __gm__ uint64_t *windowsIn, int rank, int nranks) {
    for (int phase = 0; phase < 2; phase++)
        for (int p = 0; p < nranks; p++)
            if (p != rank) TNOTIFY(Signal(Remote(windowsIn, cross + phase * nranks + rank, rank, p)), 1, NotifyOp::AtomicAdd);
}
"""
    cfg = {"ranks": 2, "blocks": 1, "host": ["launch"], "signals": {"cross": [2, "nranks"]}}
    with pytest.raises(ExtractError, match=r"k.cpp:5:43: error: cannot tell which signal .* Remote has no definition"):
        extract([write(tmp_path, "k.cpp", kernel)], cfg)
    helper = """
AICORE __gm__ int32_t *Remote(__gm__ uint64_t *w, __gm__ int32_t *p, int me, int pe) {
    return (__gm__ int32_t *)(w[pe] + ((uint64_t)p - w[me]));
}
"""
    ex = extract([write(tmp_path, "k2.cpp", helper + kernel)], cfg)
    assert "signal cross[2][NRANKS];" in ex.sig_text
    assert "TNOTIFY(cross[phase][rank] @ p, 1, AtomicAdd);" in ex.sig_text
    parse_and_compile(ex.sig_text)


def test_signal2d_and_globaltensor_views(tmp_path):
    path = write(tmp_path, "k.cpp", """
using Sh = pto::Shape<1, 1, 1, 2, 4>;
__global__ AICORE void k(__gm__ int32_t *m, __gm__ int32_t *row) {
    pto::comm::Signal2D<2, 4> all(m);
    pto::comm::TWAIT(all, 0, pto::comm::WaitCmp::EQ);
    pto::GlobalTensor<int32_t, Sh, pto::Stride<1, 1, 1, 4, 1>> g(row + 8);
    pto::comm::TWAIT(g, 0, pto::comm::WaitCmp::GE);
    pto::comm::Signal2D<2, 3> sub(m + 1, 4);
    pto::comm::TWAIT(sub, 0, pto::comm::WaitCmp::LE);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "signals": {"m": [2, 4]}})
    assert "signal m[2][4];" in ex.sig_text
    assert "TWAIT(m[0:2][0:4], 0, EQ);" in ex.sig_text
    assert "TWAIT(row[8:16], 0, GE);" in ex.sig_text
    assert "TWAIT(m[0:2][1:4], 0, LE);" in ex.sig_text
    assert "signal row[16];" in ex.sig_text
    parse_and_compile(ex.sig_text)


# ---------------------------------------------------------------- assumptions

def test_a_runtime_peer_is_an_assumption_with_its_location():
    ex = extract([kernel_path("runtime_peer")], {"ranks": 3})
    lines = [str(a) for a in ex.assumptions]
    want = ("tests/frontends/corpus/runtime_peer/runtime_peer.cpp:9:16: assumed: peer comes from runtime data "
            "(ready_queue[head], a load from global memory); modelled as a param PEER")
    assert want in lines
    assert "param PEER = 0;    // runtime_peer.cpp:9:16: assumed: ready_queue[head]" in ex.sig_text
    assert "TNOTIFY(token @ PEER, 1, AtomicAdd);" in ex.sig_text
    notify = next(c for c in ex.call_sites if c.kind == "TNOTIFY")
    assert notify.peer == "none" and notify.resolution == "none"
    # the head index is not needed once the peer is a param: no param, no assumption for it
    assert "HEAD" not in ex.sig_text


def test_the_config_resolves_the_runtime_peer():
    ex = extract([kernel_path("runtime_peer")])
    assert "TNOTIFY(token @ ((rank + 1) % 3), 1, AtomicAdd);" in ex.sig_text
    assert not any("PEER" in a.text for a in ex.assumptions)
    notify = next(c for c in ex.call_sites if c.kind == "TNOTIFY")
    assert notify.peer == "partial"


def test_bounds_give_a_nondeterministic_choice(tmp_path):
    ex = extract([kernel_path("runtime_peer")], {"ranks": 3, "bounds": {"ready_queue[head]": [0, 2]}})
    assert "int peer = any(0, 2);" in ex.sig_text and "TODO" not in ex.sig_text
    assert "TNOTIFY(token @ peer, 1, AtomicAdd);" in ex.sig_text
    assert any("in [0, 2]" in a.text and "int peer = any(0, 2): every value is explored" in a.text
               for a in ex.assumptions)
    notify = next(c for c in ex.call_sites if c.kind == "TNOTIFY")
    assert notify.peer == "partial"
    assert check_verdict(tmp_path, ex.sig_text) == {"deadlock"}  # a rank may send its token to itself
    ex2 = extract([kernel_path("runtime_peer")], {"ranks": 3, "bounds": {"ready_queue[head]": ["(rank + 1) % 3", "(rank + 1) % 3"]}})
    assert "any((rank + 1) % 3, (rank + 1) % 3)" in ex2.sig_text
    assert check_verdict(tmp_path, ex2.sig_text) == set()


def test_runtime_op_and_cmp_become_choices_over_a_param(tmp_path):
    path = write(tmp_path, "k.cpp", """
__global__ AICORE void k(__gm__ int32_t *f, NotifyOp op, WaitCmp how, int rank) {
    if (rank == 0) pto::comm::TNOTIFY(pto::comm::Signal(f), 1, op);
    else if (!TTEST(pto::comm::Signal(f), 0, how)) { return; }
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"]})
    assert "param OP_3 = 0;" in ex.sig_text and "param CMP_4 = 0;" in ex.sig_text
    assert "TNOTIFY(f, 1, AtomicAdd);" in ex.sig_text
    assert [c.opcmp for c in ex.call_sites] == ["none", "none"]
    assert any(str(a).endswith("choosing among Set, AtomicAdd") for a in ex.assumptions)
    parse_and_compile(ex.sig_text)
    ex2 = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "ops": {"op": "AtomicAdd", "how": "GE"}})
    assert "OP_3" not in ex2.sig_text and "TNOTIFY(f, 1, AtomicAdd);" in ex2.sig_text
    assert [c.opcmp for c in ex2.call_sites] == ["partial", "partial"]


def test_a_kernel_argument_the_kernel_changes_becomes_a_local(tmp_path):
    path = write(tmp_path, "k.cpp", """
__global__ AICORE void k(__gm__ int32_t *f, int rounds) {
    float acc = 0;
    acc += 1.5f;                       // data: pruned
    while (rounds > 0) {
        TNOTIFY(Signal(f), 1, NotifyOp::AtomicAdd);
        rounds--;
    }
    TWAIT(Signal(f), 2, WaitCmp::GE);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"], "values": {"rounds": 2}})
    assert "    int rounds = 2;\n    while (rounds > 0) {\n        TNOTIFY(f, 1, AtomicAdd);\n        rounds--;\n    }" in ex.sig_text
    assert "acc" not in ex.sig_text
    assert check_verdict(tmp_path, ex.sig_text) == set()
    ex0 = extract([path], {"ranks": 1, "blocks": 1, "host": ["launch"]})
    assert "param ROUNDS = 0;" in ex0.sig_text
    assert any(a.text == "rounds comes from a kernel argument (rounds); modelled as a param ROUNDS" and (a.line, a.col) == (2, 45)
               for a in ex0.assumptions)
    assert check_verdict(tmp_path, ex0.sig_text) == {"deadlock"}


def test_fences_and_block_barriers_are_kept(tmp_path):
    path = write(tmp_path, "k.cpp", """
__global__ AICORE void k(__gm__ int32_t *f) {
    pipe_barrier(PIPE_ALL);
    dsb(DSB_DDR);
    AscendC::SyncAll();
    pto::comm::TNOTIFY(pto::comm::Signal(f), 1, pto::comm::NotifyOp::Set);
    dsb(DSB_UB);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 2, "host": ["launch"]})
    assert "pipe_barrier(PIPE_ALL);\n    dsb(DSB_DDR);\n    block_barrier;\n    TNOTIFY(f, 1, Set);\n}" in ex.sig_text
    texts = [str(a) for a in ex.assumptions]
    assert not any(t.startswith((f"{path}:4:", f"{path}:5:")) for t in texts)
    assert any(t.startswith(f"{path}:7:5: assumed: dsb(DSB_UB) orders nothing the skeleton models") for t in texts)
    entry = ex.origin(sig_line_of(ex.sig_text, "block_barrier;"))
    assert (entry.line, entry.col) == (5, 5)
    assert check_verdict(tmp_path, ex.sig_text) == set()


def test_a_block_barrier_reached_by_some_blocks_only_deadlocks(tmp_path):
    path = write(tmp_path, "k.cpp", """
__global__ AICORE void k(__gm__ int32_t *f) {
    if (get_block_idx() == 0) {
        SyncAll();
    }
    pto::comm::TNOTIFY(pto::comm::Signal(f), 1, pto::comm::NotifyOp::AtomicAdd);
}
""")
    ex = extract([path], {"ranks": 1, "blocks": 2, "host": ["launch"]})
    assert "if (block == 0) {\n        block_barrier;\n    }" in ex.sig_text
    assert check_verdict(tmp_path, ex.sig_text) == {"deadlock"}


def test_defaults_are_said(tmp_path):
    path = write(tmp_path, "k.cpp", "__global__ AICORE void k(__gm__ int32_t *f) { TNOTIFY(Signal(f), 1, NotifyOp::Set); }\n")
    ex = extract([path], {})
    texts = " | ".join(a.text for a in ex.assumptions)
    assert "rank count is not configured; modelled as param NRANKS = 2" in texts
    assert "block count is not configured" in texts
    assert "host sequence is not configured" in texts
    assert "size of signal f is not configured" in texts


def test_pragmas_configure_and_the_config_wins(tmp_path):
    src = "// sigproof: ranks = 4\n// sigproof: signals.f = 8\n__global__ AICORE void k(__gm__ int32_t *f) { TNOTIFY(Signal(f), 1, NotifyOp::Set); }\n"
    path = write(tmp_path, "k.cpp", src)
    assert "param NRANKS = 4;" in extract([path]).sig_text
    assert "signal f[8];" in extract([path]).sig_text
    assert "param NRANKS = 5;" in extract([path], {"ranks": 5}).sig_text
    assert "param NRANKS = 2;" in extract([path], {"pragmas": False}).sig_text


# ---------------------------------------------------------------- source map

@pytest.mark.parametrize("name", KERNELS)
def test_every_signal_line_maps_back_to_its_cpp_call(name):
    ex = extract([kernel_path(name)])
    lines = ex.sig_text.splitlines()
    checked = 0
    for i, line in enumerate(lines, 1):
        for op in ("TNOTIFY(", "TWAIT(", "TTEST("):
            if op in line and not line.lstrip().startswith("//"):
                entry = ex.origin(i)
                assert entry is not None, line
                cpp = Path(entry.file).read_text().splitlines()[entry.line - 1]
                plain = "*" in cpp or "[" in cpp  # plain GM stores and loads
                assert op.rstrip("(") in cpp or plain, (line, cpp)
                checked += 1
    assert checked >= 1


def test_source_map_points_at_the_exact_tnotify():
    ex = extract([kernel_path("a2a_barrier")])
    entry = ex.origin(sig_line_of(ex.sig_text, "TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);"))
    assert (entry.file, entry.line, entry.col) == (kernel_path("a2a_barrier"), 25, 9)
    src = Path(entry.file).read_text().splitlines()[entry.line - 1]
    assert src[entry.col - 1:].startswith("pto::comm::TNOTIFY(sig, 1")
    decl = ex.origin(sig_line_of(ex.sig_text, "signal arrived"))
    assert (decl.line, decl.col) == (13, 68)


# ---------------------------------------------------------------- golden skeletons and verdicts

def parse_and_compile(text: str):
    return compile_spec(parse(text, "skeleton.sig"))


@pytest.mark.parametrize("name", KERNELS)
def test_golden_skeleton(name):
    ex = extract([kernel_path(name)])
    assumptions = "".join(f"{a}\n" for a in ex.assumptions)
    golden, golden_a = GOLDEN / f"{name}.sig", GOLDEN / f"{name}.assumptions"
    if os.environ.get("SIGPROOF_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(ex.sig_text)
        golden_a.write_text(assumptions)
    assert ex.sig_text == golden.read_text()
    assert assumptions == golden_a.read_text()


@pytest.mark.parametrize("name", KERNELS)
def test_skeleton_compiles_and_gives_its_verdict(name, tmp_path):
    ex = extract([kernel_path(name)])
    parse_and_compile(ex.sig_text)
    assert check_verdict(tmp_path, ex.sig_text, name) == VERDICTS[name]


def test_the_corpus_is_complete():
    assert len(KERNELS) >= 8 and set(KERNELS) == set(VERDICTS)
    assert (CORPUS / "header_helper" / "comm_helpers.h").is_file()


def test_the_buggy_counter_deadlocks_only_from_three_ranks(tmp_path):
    ex = extract([kernel_path("bug_counter_set")])
    assert "TNOTIFY(count @ p, 1, Set);" in ex.sig_text
    ex2 = extract([kernel_path("bug_counter_set")], {"ranks": 2})
    assert check_verdict(tmp_path, ex2.sig_text) == set()


def test_output_is_deterministic_across_processes():
    here = {name: extract([kernel_path(name)]).sig_text for name in KERNELS}
    code = ("import json,sys; from frontends.cpp import extract; "
            f"print(json.dumps({{n: extract([f'tests/frontends/corpus/{{n}}/{{n}}.cpp']).sig_text for n in {KERNELS!r}}}))")
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        assert json.loads(out.stdout) == here


# ---------------------------------------------------------------- the command line and bad input

def test_module_cli_prints_the_skeleton_and_the_assumptions(tmp_path):
    cfg = write(tmp_path, "other.toml", "ranks = 3\n")
    out, err = io.StringIO(), io.StringIO()
    code = extract_cli([kernel_path("runtime_peer"), "--config", cfg], out, err)
    assert code == 0
    assert out.getvalue().startswith("// Skeleton of kernel runtime_peer")
    assert "runtime_peer.cpp:9:16: assumed: peer comes from runtime data" in err.getvalue()


@pytest.mark.parametrize("src, where, words", [
    ("__global__ AICORE void k(__gm__ int32_t *f) {\n  TNOTIFY(Signal(f), 1, NotifyOp::Set)\n  int x = ;\n}\n", ":2:39:", "syntax error"),
    ("__global__ AICORE void k(__gm__ int32_t *f) {\n  switch (1) { case 1: if (GetRank()) break; TNOTIFY(Signal(f), 1, NotifyOp::Set); }\n}\n",
     ":2:39:", "a break out of a switch"),
    ("__global__ AICORE void k(__gm__ int32_t *f) {\n  TNOTIFY(Signal(f), 1);\n}\n", ":2:3:", "TNOTIFY needs"),
    ("__global__ AICORE void k(__gm__ int32_t *f) {\n  for (int i = 0; i < 2; i++) { f++; TNOTIFY(Signal(f), 1, NotifyOp::Set); }\n}\n", ":2:", "pointer f changes inside a loop"),
    ("void helper() {}\n", ":1:1:", "no kernel entry found"),
])
def test_bad_input_gives_file_line_col_and_no_traceback(tmp_path, src, where, words):
    path = write(tmp_path, "bad.cpp", src)
    out, err = io.StringIO(), io.StringIO()
    assert extract_cli([path], out, err) == 2
    msg = err.getvalue()
    assert msg.startswith(path + where) and ": error: " in msg and words in msg, msg
    assert "Traceback" not in msg and out.getvalue() == ""


def test_unreadable_files_and_bad_configs(tmp_path):
    missing = str(tmp_path / "none.cpp")
    with pytest.raises(ExtractError, match="cannot read"):
        extract([missing])
    binary = tmp_path / "bin.cpp"
    binary.write_bytes(b"int x;\n\xff\xfe\n")
    with pytest.raises(ExtractError, match=r"bin.cpp:2:1: error: the file is not UTF-8"):
        extract([str(binary)])
    ok = write(tmp_path, "k.cpp", "__global__ AICORE void k(__gm__ int32_t *f) { TNOTIFY(Signal(f), 1, NotifyOp::Set); }\n")
    with pytest.raises(ExtractError, match="unknown config key 'rnaks'"):
        extract([ok], {"rnaks": 2})
    with pytest.raises(ExtractError, match="host step 'lunch'"):
        extract([ok], {"host": ["lunch"]})
    (tmp_path / "sigproof.toml").write_text("ranks = [\n")
    with pytest.raises(ExtractError, match="sigproof.toml:1:1: error: bad TOML"):
        extract([ok])
    bad_pragma = write(tmp_path, "p.cpp", "// sigproof: ranks = = 2\n")
    with pytest.raises(ExtractError, match=r"p.cpp:1:1: error: bad sigproof pragma"):
        extract([bad_pragma], {})


def test_the_python_module_runs_as_a_program():
    proc = subprocess.run([sys.executable, "-m", "frontends.cpp", kernel_path("bug_counter_set")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "TNOTIFY(count @ p, 1, Set);" in proc.stdout
    assert "assumed:" in proc.stderr


# ---------------------------------------------------------------- architecture

def test_frontends_eval_nothing_and_stay_off_the_core():
    for p in sorted((ROOT / "frontends").rglob("*.py")):
        tree = ast.parse(p.read_text())
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"eval", "exec", "compile"}, p
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        # spans and the words of the language only (not its parser, checks or meaning)
        assert not any(m.startswith(("model", "checker")) and m not in ("model.errors", "model.vocabulary")
                       for m in mods), p


def test_mutated_kernels_give_a_valid_spec_or_a_located_error(tmp_path):
    """Hostile input: token-level mutants of the corpus never crash the extraction, and
    every skeleton extracted from one parses and compiles."""
    import random
    import re
    import shutil

    outcomes = {"spec": 0, "error": 0}
    for name in KERNELS:
        folder = CORPUS / name
        for extra in [*folder.glob("*.h"), *folder.glob("*.toml")]:
            shutil.copy(extra, tmp_path / extra.name)
        tokens = re.findall(r"\w+|[^\w\s]|\s+", (folder / f"{name}.cpp").read_text())
        for seed in range(12):
            rnd = random.Random(seed)
            t = list(tokens)
            for _ in range(rnd.randint(1, 3)):
                i = rnd.randrange(len(t))
                choice = rnd.random()
                if choice < 0.4:
                    del t[i]
                elif choice < 0.7:
                    t.insert(i, rnd.choice(["(", ")", "{", "}", ";", "*", "&", "0", "rank", "-1", "+ 1", "[", "]", ","]))
                else:
                    t[i] = rnd.choice(tokens)
            path = tmp_path / f"{name}.cpp"
            path.write_text("".join(t))
            try:
                ex = extract([str(path)])
            except ExtractError as e:
                assert re.match(rf"{re.escape(str(tmp_path))}/[\w.]+:\d+:\d+: error: |[^:]+: error: ", str(e)), str(e)
                outcomes["error"] += 1
                continue
            parse_and_compile(ex.sig_text)
            outcomes["spec"] += 1
    assert outcomes["spec"] > 20 and outcomes["error"] > 20


# ---------------------------------------------------------------- TPUT / TGET (the data extension)

DATA_HEAD = """
struct HcclDeviceContext { int32_t rankId; int32_t rankNum; uint64_t windowsIn[8]; };
using Row = pto::GlobalTensor<float, pto::Shape<1, 1, 1, 1, 4>, pto::Stride<4, 4, 4, 4, 1>>;
template <typename T>
AICORE inline __gm__ T *Peer(__gm__ HcclDeviceContext *ctx, __gm__ T *p, int pe)
{
    return (__gm__ T *)(ctx->windowsIn[pe] + ((uint64_t)p - ctx->windowsIn[ctx->rankId]));
}
"""


def data_kernel(tmp_path, body: str, args: str = "") -> str:
    src = DATA_HEAD + ("__global__ AICORE void k(__gm__ HcclDeviceContext *ctx, __gm__ float *send, "
                       f"__gm__ float *recv, __gm__ int32_t *ready{args})\n{{\n{body}\n}}\n")
    return write(tmp_path, "k.cpp", src)


def test_tput_to_a_window_peer_is_a_full_put_with_buffers(tmp_path):
    path = data_kernel(tmp_path, "    int nx = (ctx->rankId + 1) % ctx->rankNum;\n    Row s(send);\n"
                                 "    Row d(Peer(ctx, recv, nx));\n    pto::comm::TPUT(d, s, tile);")
    ex = extract([path], {"ranks": 2})
    assert "buffer recv[4];" in ex.sig_text and "buffer send[4];" in ex.sig_text
    assert "TPUT(recv[0:4] @ nx, send[0:4]);" in ex.sig_text
    (site,) = ex.data_sites
    assert (site.kind, site.line, site.dst, site.src, site.peer) == ("TPUT", 14, "full", "full", "full")
    assert ex.call_sites == ()          # TPUT / TGET are not counted with the signal call sites
    parse_and_compile(ex.sig_text)


def test_tput_atomic_add_from_the_template_argument(tmp_path):
    path = data_kernel(tmp_path, "    Row s(send);\n    Row d(Peer(ctx, recv, 0));\n"
                                 "    pto::comm::TPUT<pto::comm::AtomicType::AtomicAdd>(d, s, tile);")
    assert "TPUT(recv[0:4] @ 0, send[0:4], AtomicAdd);" in extract([path], {"ranks": 2}).sig_text


def test_tget_reads_the_peer_and_writes_the_own_buffer(tmp_path):
    path = data_kernel(tmp_path, "    Row d(recv);\n    Row s(Peer(ctx, send, 1));\n    pto::comm::TGET(d, s, ping, pong);")
    ex = extract([path], {"ranks": 2})
    assert "TGET(recv[0:4], send[0:4] @ 1);" in ex.sig_text
    parse_and_compile(ex.sig_text)


def test_tput_peer_from_runtime_data_is_an_assumption_not_a_guess(tmp_path):
    remote = "(__gm__ float *)(ctx->windowsIn[route[0]] + ((uint64_t)recv - ctx->windowsIn[ctx->rankId]))"
    path = data_kernel(tmp_path, f"    Row s(send);\n    Row d({remote});\n    pto::comm::TPUT(d, s, tile);",
                       ", __gm__ int32_t *route")
    ex = extract([path], {"ranks": 2})
    assert "    TPUT(recv[0:4] @ PEER, send[0:4]);" in ex.sig_text.splitlines()
    assert "param PEER = 0;" in ex.sig_text
    assert any(a.line == 12 and a.text.startswith("PEER comes from runtime data (route[0], a load from global memory)")
               and a.text.endswith("modelled as a param PEER") for a in ex.assumptions), ex.assumptions
    assert ex.data_sites[0].peer == "none"
    ex2 = extract([path], {"ranks": 2, "bounds": {"route[0]": [0, 1]}})
    assert "int peer = any(0, 1);" in ex2.sig_text and "TPUT(recv[0:4] @ peer, send[0:4]);" in ex2.sig_text
    assert ex2.data_sites[0].peer == "partial"


def test_a_tput_operand_that_cannot_be_followed_is_reported_at_its_location(tmp_path):
    path = data_kernel(tmp_path, "    Row s(send);\n    pto::comm::TPUT(MakeRemote(recv), s, tile);\n"
                                 "    pto::comm::TNOTIFY(pto::comm::Signal(ready), 1, pto::comm::NotifyOp::Set);")
    ex = extract([path], {"ranks": 2})
    assert "TPUT" not in ex.sig_text.split("kernel {")[1] and "buffer" not in ex.sig_text
    (a,) = [a for a in ex.assumptions if "TPUT" in a.text]
    assert (a.line, a.col) == (12, 21)
    assert "destination `MakeRemote(recv)`" in a.text and "MakeRemote has no definition" in a.text
    assert "left out, its data is not checked" in a.text


def test_a_tput_source_on_a_remote_rank_is_refused(tmp_path):
    path = data_kernel(tmp_path, "    Row s(Peer(ctx, send, 1));\n    Row d(recv);\n    pto::comm::TPUT(d, s, tile);")
    with pytest.raises(ExtractError, match="source `s` is on rank 1") as e:
        extract([path], {"ranks": 2})
    assert str(e.value).startswith(f"{path}:13:24: error: TPUT's source")


def test_tload_of_a_pointer_no_transfer_touches_is_left_out(tmp_path):
    path = data_kernel(tmp_path, "    Row x(send);\n    TLOAD(tile, x);\n"
                                 "    pto::comm::TNOTIFY(pto::comm::Signal(ready), 1, pto::comm::NotifyOp::Set);")
    ex = extract([path], {"ranks": 2})
    assert "READ" not in ex.sig_text and "buffer" not in ex.sig_text


def test_async_transfers_are_left_out_with_an_assumption(tmp_path):
    path = data_kernel(tmp_path, "    Row s(send);\n    Row d(Peer(ctx, recv, 1));\n"
                                 "    auto ev = pto::comm::TPUT_ASYNC<pto::comm::DmaEngine::SDMA>(d, s, session);")
    ex = extract([path], {"ranks": 2})
    assert "TPUT" not in ex.sig_text.split("kernel {")[1]
    assert any("TPUT_ASYNC is not extracted yet" in a.text and a.line == 13 for a in ex.assumptions)


def test_a_data_tensor_is_not_a_signal(tmp_path):
    path = data_kernel(tmp_path, "    Row s(send);\n    pto::comm::TNOTIFY(s, 1, pto::comm::NotifyOp::Set);")
    with pytest.raises(ExtractError, match="GlobalTensor of data"):
        extract([path], {"ranks": 2})


def test_a_value_helper_with_early_returns_becomes_a_conditional(tmp_path):
    body = """#include <pto/comm/pto_comm_inst.hpp>
template <typename T>
AICORE constexpr inline T CeilDiv(T a, T b)
{
    if (b == 0) {
        return 0;
    }
    return (a + b - 1) / b;
}

AICORE inline int Share(int total, int me, int n)
{
    const int safe = (n > 0) ? n : 1;
    if (safe == 1) {
        return total;
    } else if (me < total % safe) {
        return total / safe + 1;
    }
    return total / safe;
}

__global__ AICORE void k(__gm__ int32_t *flag, int me)
{
    pto::comm::TWAIT(pto::comm::Signal(flag), CeilDiv(7, 2) + Share(5, me, GetRankSize()), pto::comm::WaitCmp::GE);
}
"""
    ex = extract([write(tmp_path, "k.cpp", body)], {"pragmas": False})
    assert "TWAIT(flag, 4 + ((nranks > 0 ? nranks : 1) == 1 ? 5 : " in ex.sig_text, ex.sig_text
    parse_and_compile(ex.sig_text)


def test_a_helper_with_early_returns_and_side_effects_gets_a_result_local(tmp_path):
    body = """#include <pto/comm/pto_comm_inst.hpp>
AICORE inline bool Poke(__gm__ int32_t *flag, int v)
{
    if (v == 0) {
        return false;
    }
    pto::comm::TNOTIFY(pto::comm::Signal(flag), v, pto::comm::NotifyOp::Set);
    return true;
}

__global__ AICORE void k(__gm__ int32_t *flag, int v)
{
    if (!Poke(flag, v)) {
        return;
    }
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
}
"""
    ex = extract([write(tmp_path, "k.cpp", body)], {"pragmas": False, "values": {"v": 2}})
    k = kernel_body(ex)
    assert k == ("    bool Poke_result = 0;\n"
                 "    for (int once = 0; once < 1; once++) {\n"
                 "        TNOTIFY(flag, 2, Set);\n"
                 "        Poke_result = 1;\n"
                 "        break;\n"
                 "    }\n"
                 "    if (!Poke_result) {\n"
                 "        return;\n"
                 "    }\n"
                 "    TWAIT(flag, 1, GE);"), k
    parse_and_compile(ex.sig_text)



def test_a_return_from_inside_a_helpers_loop_leaves_the_helper(tmp_path):
    # the wait after the loop runs only when the loop did not return: v inside [0, 2)
    # returns first (ok), v outside does not, and nobody ever notifies (deadlock)
    body = """#include <pto/comm/pto_comm_inst.hpp>
AICORE inline void Drain(__gm__ int32_t *flag, int v)
{
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            if (i == v && j == 1) {
                return;
            }
        }
    }
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
}

__global__ AICORE void k(__gm__ int32_t *flag, int v)
{
    Drain(flag, v);
    pto::comm::TNOTIFY(pto::comm::Signal(flag), 2, pto::comm::NotifyOp::Set);
}
"""
    path = write(tmp_path, "k.cpp", body)
    ex = extract([path], {"pragmas": False, "values": {"v": 1}})
    assert "Drain_returned = 1;\n" in ex.sig_text and ex.sig_text.count("if (Drain_returned) {") == 2, ex.sig_text
    assert check_verdict(tmp_path, ex.sig_text, "returns") == set()
    ex = extract([path], {"pragmas": False, "values": {"v": 5}})
    assert check_verdict(tmp_path, ex.sig_text, "falls_through") == {"deadlock"}


def test_a_vexing_parse_of_no_signal_names_the_argument_at_its_place(tmp_path):
    body = """/* a long enough header comment that a wrong offset would read from it */
#include <pto/comm/pto_comm_inst.hpp>
__global__ AICORE void k(__gm__ int64_t *args)
{
    __gm__ int32_t *remote_signal = LookupSignal(args[0], args[1]) + 1;
    pto::comm::Signal sig(remote_signal);
    pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::GE);
}
"""
    with pytest.raises(ExtractError) as e:
        extract([write(tmp_path, "k.cpp", body)], {"pragmas": False})
    assert "k.cpp:6:27: error: cannot tell which signal `remote_signal` points into (if it points into a region of a " \
        "workspace, name the region's start as the code computes it in the config: [regions] NAME = " \
        "{base = \"workspace + offset\"})" in str(e.value), str(e.value)


def test_a_literal_with_its_sign_folded_in_is_a_number(tmp_path):
    body = """#include <pto/comm/pto_comm_inst.hpp>
__global__ AICORE void k(__gm__ int32_t *flag)
{
    pto::comm::TNOTIFY(pto::comm::Signal(flag), static_cast<int32_t>(-1), pto::comm::NotifyOp::AtomicAdd);
    pto::comm::TNOTIFY(pto::comm::Signal(flag), static_cast<int32_t>(-0x10), pto::comm::NotifyOp::AtomicAdd);
}
"""
    ex = extract([write(tmp_path, "k.cpp", body)], {"pragmas": False})
    assert "TNOTIFY(flag, -1, AtomicAdd);\n    TNOTIFY(flag, -16, AtomicAdd);" in ex.sig_text, ex.sig_text
    assert all(c.resolution == "full" for c in ex.call_sites)


def test_the_pto_isa_qualifier_macros_are_blanked_like_the_others(tmp_path):
    body = """#include <pto/comm/pto_comm_inst.hpp>
PTO_INTERNAL void Arrive(__gm__ int32_t __out__ *flag, __ubuf__ int32_t *scratch)
{
    pto::comm::TNOTIFY(pto::comm::Signal(flag), 1, pto::comm::NotifyOp::AtomicAdd);
}

__global__ AICORE void k(__gm__ int32_t __in__ *flag, __gm__ int32_t __out__ *out)
{
    Arrive(flag, nullptr);
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
}
"""
    path = write(tmp_path, "k.cpp", body)
    ex = extract([path], {"pragmas": False})
    assert "TNOTIFY(flag, 1, AtomicAdd);\n    TWAIT(flag, 1, GE);" in ex.sig_text, ex.sig_text
    assert [(c.line, c.col) for c in ex.call_sites] == [(4, 5), (10, 5)]


# ---------------------------------------------------------------- preprocessor conditionals

PP = """#include <pto/comm/pto_comm_inst.hpp>
#include "cfg.h"
#ifndef WAIT_VALUE
#define WAIT_VALUE 4
#endif

__global__ AICORE void k(__gm__ int32_t *flag)
{
#ifdef __CCE_AICORE__
#if defined(__DAV_VEC__) || USE_SET
    pto::comm::TNOTIFY(pto::comm::Signal(flag), WAIT_VALUE, pto::comm::NotifyOp::Set);
#else
    pto::comm::TNOTIFY(pto::comm::Signal(flag), WAIT_VALUE, pto::comm::NotifyOp::AtomicAdd);
#endif
#if MODE > 1
    pto::comm::TWAIT(pto::comm::Signal(flag), WAIT_VALUE, pto::comm::WaitCmp::GE);
#endif
#else
    printf("host build");
#endif
}
"""


def kernel_body(ex) -> str:
    """The lines of the skeleton's kernel block."""
    return ex.sig_text.split("kernel {\n", 1)[1].split("\n}\n", 1)[0]


def preprocessor_notes(ex) -> list:
    return [a for a in ex.assumptions if "preprocessor condition" in a.text]


def test_preprocessor_conditionals_take_the_device_branch_and_say_what_they_assumed(tmp_path):
    """(With a macro that is not a core pass's: PP itself, with __DAV_VEC__, is a mixed
    kernel, read in tests/frontends/test_cpp_mixed.py.)"""
    (tmp_path / "cfg.h").write_text("#pragma once\n#define MODE 2\n")
    path = write(tmp_path, "k.cpp", PP.replace("__DAV_VEC__", "USE_VEC"))
    ex = extract([path], {"pragmas": False})
    k = kernel_body(ex)
    assert k == "    TNOTIFY(flag, 4, AtomicAdd);\n    TWAIT(flag, 4, GE);", k
    notes = [str(a) for a in preprocessor_notes(ex)]
    assert notes == [f"{path}:9:1: assumed: the preprocessor condition here is taken with __CCE_AICORE__ = 220 "
                     "(set defines = [\"NAME\", \"NAME=VALUE\"] in sigproof.toml otherwise)",
                     f"{path}:10:1: assumed: the preprocessor condition here is taken with USE_SET not defined, "
                     "USE_VEC not defined (set defines = [\"NAME\", \"NAME=VALUE\"] in sigproof.toml otherwise)"], notes
    # every location is still the one in the file
    wait = next(c for c in ex.call_sites if c.kind == "TWAIT")
    assert (wait.line, wait.col) == (16, 5)


def test_defines_in_the_config_choose_the_other_branches(tmp_path):
    (tmp_path / "cfg.h").write_text("#pragma once\n#define MODE 1\n")
    path = write(tmp_path, "k.cpp", PP)
    ex = extract([path], {"pragmas": False, "defines": ["__DAV_VEC__", "WAIT_VALUE=7"]})
    k = kernel_body(ex)
    assert k == "    TNOTIFY(flag, 7, Set);", k
    assert not [a for a in ex.assumptions if "__DAV_VEC__" in a.text]


MIXED = """#include <pto/comm/pto_comm_inst.hpp>

extern "C" __aicore__ void kernel_entry(__gm__ int32_t *flag)
{
#if defined(__DAV_VEC__)
    pto::comm::TNOTIFY(pto::comm::Signal(flag), 1, pto::comm::NotifyOp::AtomicAdd);
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
#endif  // __DAV_VEC__
}
"""


def test_signal_code_only_in_the_vector_pass_is_read_as_that_pass_and_said(tmp_path):
    """simpler's generated aiv kernels: the whole body under `#if defined(__DAV_VEC__)`. The cube
    cores' pass has no signal operation, so the protocol is the vector cores' (before: the
    body was blanked and the check vacuous)."""
    path = write(tmp_path, "k.cpp", MIXED)
    ex = extract([path], {"pragmas": False})
    k = kernel_body(ex)
    assert k == "    TNOTIFY(flag, 1, AtomicAdd);\n    TWAIT(flag, 1, GE);", k
    notes = [str(a) for a in preprocessor_notes(ex)]
    assert notes == [f"{path}:5:1: assumed: the preprocessor condition here is taken with __DAV_VEC__ defined (the "
                     "vector cores' pass: the signal and data operations are all in its code, the cube cores' pass "
                     "has none) (set defines = [\"NAME\", \"NAME=VALUE\"] in sigproof.toml otherwise)"], notes


def test_signal_code_only_outside_the_vector_pass_is_read_as_the_cube_pass(tmp_path):
    """The look-alike: the condition names __DAV_VEC__, but the signal code is in its `#else`,
    which the cube cores compile: the cube pass is taken, not the vector one."""
    body = MIXED.replace("#if defined(__DAV_VEC__)", "#if defined(__DAV_VEC__)\n    int idle = 0;\n#else")
    path = write(tmp_path, "k.cpp", body)
    ex = extract([path], {"pragmas": False})
    assert "TNOTIFY(flag, 1, AtomicAdd);" in ex.sig_text and "TWAIT(flag, 1, GE);" in ex.sig_text
    notes = [a.text for a in preprocessor_notes(ex)]
    assert notes == ["the preprocessor condition here is taken with __DAV_VEC__ not defined (the cube cores' pass: "
                     "the signal and data operations are all in its code, the vector cores' pass has none) (set "
                     "defines = [\"NAME\", \"NAME=VALUE\"] in sigproof.toml otherwise)"], notes
    ex = extract([path], {"pragmas": False, "defines": ["__DAV_VEC__"]})   # the config still decides
    assert "TNOTIFY" not in ex.sig_text


def test_a_core_macro_defined_in_the_files_is_not_chosen_again(tmp_path):
    path = write(tmp_path, "k.cpp", MIXED.replace("extern", "#undef __DAV_VEC__\n#define __DAV_CUBE__ 1\nextern"))
    ex = extract([path], {"pragmas": False})
    assert "TNOTIFY" not in ex.sig_text
    assert not [a for a in ex.assumptions if "vector cores' pass" in a.text]


def test_a_condition_that_cannot_be_evaluated_is_left_to_the_old_refusal(tmp_path):
    (tmp_path / "cfg.h").write_text("#pragma once\n")
    body = PP.replace("#if MODE > 1", "#if __has_feature(x)")
    with pytest.raises(ExtractError, match="preproc if around a signal operation"):
        extract([write(tmp_path, "k.cpp", body)], {"pragmas": False})

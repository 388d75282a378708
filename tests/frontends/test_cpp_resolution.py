"""Own rank and rank count resolved from the code's meaning (docs/frontends.md, "What
resolves fully"), and look-alikes that must not be."""

from __future__ import annotations

import pytest

from frontends.cpp import ExtractError, extract
from model import compile_spec, parse

HEAD = "#include <pto/comm/pto_comm_inst.hpp>\n"


def run(tmp_path, body: str, name: str = "k.cpp"):
    p = tmp_path / name
    p.write_text(HEAD + body)
    return extract([str(p)], {"pragmas": False})


def sites(ex):
    return {(c.kind, c.line): c.levels() for c in ex.call_sites}


def said(ex, text: str) -> list[str]:
    return [str(a) for a in ex.assumptions if text in a.text]


CTX = """
struct Ctx {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[8];
};
"""

# both loops sweep every peer; the first translates through the window table
IDIOM = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *slot)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    for (int32_t p = 0; p < n; ++p) {
        __gm__ int32_t *r = (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)(slot + me) - ctx->windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::AtomicAdd);
    }
    pto::comm::TWAIT(pto::comm::Signal(slot + me), n, pto::comm::WaitCmp::GE);
}
"""


def test_window_idiom_proves_the_own_rank_and_the_sweep_the_rank_count(tmp_path):
    ex = run(tmp_path, IDIOM)
    assert all(c.resolution == "full" for c in ex.call_sites), sites(ex)
    assert not said(ex, "conventional name")
    assert "for (int p = 0; p < nranks; p++) {\n        TNOTIFY(slot[rank] @ p, 1, AtomicAdd);" in ex.sig_text
    assert "TWAIT(slot[rank], nranks, GE)" in ex.sig_text


STRIDED = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *slot, int32_t ep, int32_t blocks)
{
    int32_t me = ctx->rankId;
    for (int32_t p = get_block_idx(); p < ep; p += blocks) {
        __gm__ int32_t *r = (__gm__ int32_t *)(ctx->windowsIn[p] + ((uint64_t)(slot + me) - ctx->windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::AtomicAdd);
    }
}
"""


@pytest.mark.parametrize("start, step, evidence", [("get_block_idx()", "blocks", True), ("0", "1", True),
                                                   ("get_block_idx()", "1", True), ("1", "1", False),
                                                   ("0", "2", False)])
def test_a_sweep_of_the_blocks_over_the_windows_proves_the_rank_count(tmp_path, start, step, evidence):
    """moe_combine's `for (src = blockId; src < shape.ep; src += blockNum)`: the blocks of a
    rank together address every peer below the bound, so the bound is the rank count (a
    sweep that starts past 0, or skips peers, shows nothing)."""
    body = STRIDED.replace("p = get_block_idx();", f"p = {start};").replace("p += blocks", f"p += {step}")
    ex = run(tmp_path, body)
    assert ("p < nranks;" in ex.sig_text) == evidence, ex.sig_text


def test_without_the_idiom_the_same_fields_stay_a_naming_convention(tmp_path):
    body = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *slot)
{
    int32_t me = ctx->rankId;
    int32_t n = ctx->rankSize;
    pto::comm::TWAIT(pto::comm::Signal(slot + me), n, pto::comm::WaitCmp::GE);
}
"""
    ex = run(tmp_path, body)
    assert [c.levels() for c in ex.call_sites] == [("full", "partial", "full", "partial", "full")]
    assert len(said(ex, "conventional name")) == 2
    line = said(ex, "took ctx->rankId as the own rank")[0]
    assert line.startswith(f"{tmp_path}/k.cpp:11:")


def test_a_different_table_on_the_two_sides_proves_nothing(tmp_path):
    body = IDIOM.replace("uint64_t windowsIn[8];", "uint64_t windowsIn[8];\n    uint64_t windowsOut[8];", 1) \
                .replace("- ctx->windowsIn[me]", "- ctx->windowsOut[me]")
    ex = run(tmp_path, body)
    assert {c.resolution for c in ex.call_sites} == {"partial"}
    assert said(ex, "took ctx->rankId as the own rank")
    assert said(ex, "took ctx->rankSize as the rank count")


def test_a_remote_pointer_is_no_evidence_for_the_base_subtracted(tmp_path):
    # the base is subtracted from a pointer already on rank 1: the idiom moves rank 1's
    # address, so nothing says me is the own rank
    body = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *slot)
{
    int32_t me = ctx->rankId;
    uint64_t on1 = ctx->windowsIn[1] + ((uint64_t)slot - ctx->windowsIn[0]);
    __gm__ int32_t *r = (__gm__ int32_t *)(ctx->windowsIn[0] + ((__gm__ int32_t *)on1 - ctx->windowsIn[me]));
    pto::comm::TNOTIFY(pto::comm::Signal(slot + me), 1, pto::comm::NotifyOp::Set);
}
"""
    ex = run(tmp_path, body)
    assert [c.levels()[1] for c in ex.call_sites] == ["partial"]
    assert said(ex, "took ctx->rankId as the own rank")


def test_a_loop_that_skips_ranks_is_not_a_rank_count(tmp_path):
    for head in ("int32_t p = 1; p < n; ++p", "int32_t p = 0; p < n; p += 2"):
        ex = run(tmp_path, IDIOM.replace("int32_t p = 0; p < n; ++p", head))
        assert said(ex, "took ctx->rankSize as the rank count"), head
        assert not said(ex, "took ctx->rankId as the own rank"), head
        wait = next(c for c in ex.call_sites if c.kind == "TWAIT")
        assert wait.levels() == ("full", "full", "full", "partial", "full"), head


def test_a_rank_count_needs_the_own_rank_proven_at_the_same_translation(tmp_path):
    # the sweep translates from a constant base: a broadcast from rank 0's window, which
    # shows nothing about the own rank, so neither the sweep bound
    body = IDIOM.replace("- ctx->windowsIn[me]", "- ctx->windowsIn[0]")
    ex = run(tmp_path, body)
    assert said(ex, "took ctx->rankSize as the rank count")


def test_an_unnamed_address_table_used_in_the_idiom_is_a_window_table(tmp_path):
    body = """
__global__ AICORE void k(__gm__ int32_t *flag, __gm__ uint64_t *bases, int32_t who)
{
    __gm__ int32_t *r = (__gm__ int32_t *)(bases[1] + ((uint64_t)flag - bases[who]));
    pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::Set);
    pto::comm::TWAIT(pto::comm::Signal(flag), who, pto::comm::WaitCmp::GE);
}
"""
    ex = run(tmp_path, body)
    assert all(c.resolution == "full" for c in ex.call_sites), sites(ex)
    assert "TNOTIFY(flag @ 1, 1, Set)" in ex.sig_text
    assert "TWAIT(flag, rank, GE)" in ex.sig_text
    assert not said(ex, "runtime data")


def test_an_address_table_read_on_one_side_only_stays_runtime_data(tmp_path):
    body = """
__global__ AICORE void k(__gm__ int32_t *flag, __gm__ uint64_t *bases, __gm__ uint64_t *other, int32_t who)
{
    __gm__ int32_t *r = (__gm__ int32_t *)(other[1] + ((uint64_t)flag - bases[who]));
    pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::Set);
}
"""
    ex = run(tmp_path, body)
    assert said(ex, "runtime data")
    assert not any(c.resolution == "full" for c in ex.call_sites)


def test_the_library_context_fields_are_the_rank_and_the_rank_count(tmp_path):
    body = """
__global__ AICORE void k(__gm__ HcclDeviceContext *hccl, __gm__ int32_t *flag)
{
    int me = static_cast<int>(hccl->rankId);
    int n = static_cast<int>(hccl->rankNum);
    pto::comm::TWAIT(pto::comm::Signal(flag + me), n - 1, pto::comm::WaitCmp::GE);
}
"""
    ex = run(tmp_path, body)
    assert [c.resolution for c in ex.call_sites] == ["full"]
    assert "TWAIT(flag[rank], nranks - 1, GE)" in ex.sig_text


def test_a_user_struct_named_like_the_library_with_other_fields_is_not_the_library(tmp_path):
    body = """
struct HcclDeviceContext { int32_t rankId; int32_t rankNum; };
__global__ AICORE void k(__gm__ HcclDeviceContext *hccl, __gm__ int32_t *flag)
{
    pto::comm::TWAIT(pto::comm::Signal(flag + hccl->rankId), hccl->rankNum - 1, pto::comm::WaitCmp::GE);
}
"""
    ex = run(tmp_path, body)
    assert [c.resolution for c in ex.call_sites] != ["full"]
    assert said(ex, "hccl->rankId")


RING = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *flag)
{
    int32_t me = ctx->rankId;
    int32_t next = PEER;
    __gm__ int32_t *r = (__gm__ int32_t *)(ctx->windowsIn[next] + ((uint64_t)flag - ctx->windowsIn[me]));
    pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::Set);
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
}
"""


def test_the_ring_step_proves_the_rank_count(tmp_path):
    for peer, sig in (("(me + 1) % ctx->rankSize", "(rank + 1) % nranks"),
                      ("(me + ctx->rankSize - 1) % ctx->rankSize", "(rank + nranks - 1) % nranks"),
                      ("(me + 2) % ctx->rankSize", "(rank + 2) % nranks")):
        ex = run(tmp_path, RING.replace("PEER", peer))
        assert all(c.resolution == "full" for c in ex.call_sites), (peer, sites(ex))
        assert not said(ex, "conventional name"), peer
        assert f"int next = {sig};" in ex.sig_text and "TNOTIFY(flag @ next, 1, Set);" in ex.sig_text, ex.sig_text


def test_look_alikes_of_the_ring_step_prove_no_rank_count(tmp_path):
    for peer in ("(me * 2 + 1) % ctx->rankSize",      # not a step of the own rank
                 "(ctx->rankSize + 1) % ctx->rankSize",  # the own rank is not in it
                 "(me + 1) % (ctx->rankSize - 1)",      # the modulus is not a named value
                 "(me + 1) & ctx->rankSize"):            # not a modulus
        ex = run(tmp_path, RING.replace("PEER", peer))
        assert said(ex, "took ctx->rankSize as the rank count"), peer
        assert {c.resolution for c in ex.call_sites if c.kind == "TNOTIFY"} == {"partial"}, (peer, sites(ex))


def test_a_ring_step_outside_the_window_idiom_proves_nothing(tmp_path):
    body = CTX + """
__global__ AICORE void k(__gm__ Ctx *ctx, __gm__ int32_t *flag)
{
    int32_t me = ctx->rankId;
    int32_t next = (me + 1) % ctx->rankSize;
    pto::comm::TWAIT(pto::comm::Signal(flag + next), 1, pto::comm::WaitCmp::GE);
}
"""
    ex = run(tmp_path, body)
    assert said(ex, "took ctx->rankSize as the rank count")


# ---- the host code that launches the kernel (frontends/cpp/host.py)

HOST_KERNEL = """
#include <hccl/hccl.h>

__global__ AICORE void k(__gm__ int32_t *counter, int threshold, int me, __gm__ uint64_t *windowsIn)
{
    if (me != 0) {
        __gm__ int32_t *r = (__gm__ int32_t *)(windowsIn[0] + ((uint64_t)counter - windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(r), 1, pto::comm::NotifyOp::AtomicAdd);
    } else {
        pto::comm::TWAIT(pto::comm::Signal(counter), threshold, pto::comm::WaitCmp::GE);
    }
}

struct Ctx {
    HcclComm comm;
    void *stream;
    bool Init(int rankId, int nRanks, const HcclRootInfo *root)
    {
        return HcclCommInitRootInfo(static_cast<uint32_t>(nRanks), root, static_cast<uint32_t>(rankId), &comm) == 0;
    }
};

HOST
"""

HOST = """
void Run(int rank_id, int n_ranks, const HcclRootInfo *root, int32_t *counter, uint64_t *win)
{
    Ctx ctx;
    ctx.Init(rank_id, n_ranks, root);
    const int threshold = n_ranks - 1;
    k<<<1, nullptr, ctx.stream>>>(counter, threshold, rank_id, win);
}
"""


def host_run(tmp_path, host: str = HOST, ctx_init: str | None = None):
    body = HOST_KERNEL.replace("HOST", host)
    if ctx_init is not None:
        body = body.replace("return HcclCommInitRootInfo(static_cast<uint32_t>(nRanks), root, static_cast<uint32_t>(rankId), &comm) == 0;", ctx_init)
    return run(tmp_path, body)


def test_the_host_launch_gives_the_rank_count_and_the_own_rank_of_the_communicator(tmp_path):
    ex = host_run(tmp_path)
    assert "TWAIT(counter, nranks - 1, GE);" in ex.sig_text, ex.sig_text
    assert all(c.resolution == "full" for c in ex.call_sites), sites(ex)
    assert not said(ex, "conventional name") and not any("THRESHOLD" in a.text for a in ex.assumptions)


def test_the_rank_count_read_back_from_the_communicator_counts_too(tmp_path):
    host = """
void Run(HcclComm comm, int32_t *counter, uint64_t *win)
{
    uint32_t n = 0;
    uint32_t r = 0;
    HcclGetRankSize(comm, &n);
    HcclGetRankId(comm, &r);
    k<<<1, nullptr, nullptr>>>(counter, (int)n - 1, r, win);
}
"""
    ex = host_run(tmp_path, host)
    assert "TWAIT(counter, nranks - 1, GE);" in ex.sig_text, ex.sig_text
    assert all(c.resolution == "full" for c in ex.call_sites), sites(ex)


def test_host_values_that_are_not_the_communicators_prove_nothing(tmp_path):
    variants = {
        "another value reaches the API": (HOST, "return HcclCommInitRootInfo(static_cast<uint32_t>(nRanks + 1), root, static_cast<uint32_t>(rankId), &comm) == 0;"),
        "the helper does not pass it on": (HOST, "return nRanks > 0;"),
        "changed after": (HOST.replace("const int threshold = n_ranks - 1;", "n_ranks = n_ranks * 2;\n    const int threshold = n_ranks - 1;"), None),
        "two communicators": (HOST.replace("ctx.Init(rank_id, n_ranks, root);", "ctx.Init(rank_id, n_ranks, root);\n    HcclComm sub;\n    HcclCommInitRootInfo(2, root, 0, &sub);"), None),
        "two launches disagree": (HOST.replace("    k<<<1, nullptr, ctx.stream>>>(counter, threshold, rank_id, win);",
                                               "    k<<<1, nullptr, ctx.stream>>>(counter, threshold, rank_id, win);\n    k<<<1, nullptr, ctx.stream>>>(counter, threshold + 1, rank_id, win);"), None),
        "a value read back once, then changed": ("""
void Run(HcclComm comm, int32_t *counter, uint64_t *win, int r)
{
    uint32_t n = 0;
    HcclGetRankSize(comm, &n);
    n += 1;
    k<<<1, nullptr, nullptr>>>(counter, (int)n - 1, r, win);
}
""", None),
    }
    for what, (host, init) in variants.items():
        ex = host_run(tmp_path, host, init)
        assert "TWAIT(counter, nranks - 1, GE);" not in ex.sig_text, what
        wait = next(c for c in ex.call_sites if c.kind == "TWAIT")
        assert wait.resolution == "none", (what, wait.levels())
        assert any("THRESHOLD" in a.text or "threshold" in a.text for a in ex.assumptions), (what, [str(a) for a in ex.assumptions])


PHASED = """
#include <hccl/hccl.h>

__global__ AICORE void k(__gm__ int32_t *sig, int phase, __gm__ uint64_t *windowsIn, int me)
{
    if (me == 0) {
        __gm__ int32_t *r = (__gm__ int32_t *)(windowsIn[1] + ((uint64_t)sig - windowsIn[me]));
        pto::comm::TNOTIFY(pto::comm::Signal(r), phase + 1, pto::comm::NotifyOp::Set);
    } else {
        pto::comm::TWAIT(pto::comm::Signal(sig), phase + 1, pto::comm::WaitCmp::EQ);
    }
}

void Sync(HcclComm comm, void *stream)
{
    HcclBarrier(comm, stream);
}

void Run(HcclComm comm, void *stream, int32_t *sig, uint64_t *win, int rank, int n)
{
    BODY
}
"""

PHASED_BODY = """for (int phase = 0; phase < 2; ++phase) {
        k<<<1, nullptr, stream>>>(sig, phase, win, rank);
        Sync(comm, stream);
    }"""


def test_the_host_loop_gives_the_host_sequence_and_launch_id(tmp_path):
    ex = run(tmp_path, PHASED.replace("BODY", PHASED_BODY))
    host = ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0]
    assert host.split() == ["launch;", "host_barrier;", "launch;", "host_barrier;"], host
    assert "TWAIT(sig, launch_id + 1, EQ);" in ex.sig_text
    assert said(ex, "the host sequence is read from Run (2 launches, 2 host barriers)")
    assert not said(ex, "the host sequence is not configured")
    # each host line cites the C++ call it stands for
    lines = ex.sig_text.splitlines()
    first = ex.origin(lines.index("    launch;") + 1)
    assert (first.line, first.col) == (23, 9)
    barrier = ex.origin(lines.index("    host_barrier;") + 1)
    assert (barrier.line, barrier.col) == (24, 9)


def test_a_launch_id_offset_and_launches_before_the_loop(tmp_path):
    body = """k<<<1, nullptr, stream>>>(sig, 0, win, rank);
    for (int phase = 1; phase < 3; ++phase) {
        k<<<1, nullptr, stream>>>(sig, phase, win, rank);
    }"""
    ex = run(tmp_path, PHASED.replace("BODY", body))
    assert ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0].split() == ["launch;"] * 3
    assert "TWAIT(sig, launch_id + 1, EQ);" in ex.sig_text    # 0, then the loop's 1 and 2
    body2 = body.replace("(sig, 0, win, rank)", "(sig, 7, win, rank)").replace("int phase = 1", "int phase = 4").replace("phase < 3", "phase < 6")
    ex2 = run(tmp_path, PHASED.replace("BODY", body2))
    assert "TWAIT(sig, (launch_id == 0 ? 7 : launch_id == 1 ? 4 : 5) + 1, EQ);" in ex2.sig_text, ex2.sig_text
    body3 = PHASED_BODY.replace("(sig, phase, win, rank)", "(sig, phase * 3, win, rank)")
    ex3 = run(tmp_path, PHASED.replace("BODY", body3))
    assert "TWAIT(sig, (launch_id == 0 ? 0 : 3) + 1, EQ);" in ex3.sig_text, ex3.sig_text
    compile_spec(parse(ex3.sig_text, "skeleton.sig"))


def test_host_code_that_is_not_a_host_sequence_falls_back_with_a_reason(tmp_path):
    variants = {
        "under a host if statement": ("if (rank == 0) {\n        " + PHASED_BODY + "\n    }", "under a host if"),
        "a loop to a runtime bound": (PHASED_BODY.replace("phase < 2", "phase < n"), "does not count from a constant"),
        "a device write between launches": (PHASED_BODY.replace("Sync(comm, stream);", "aclrtMemset(sig, 4, 0, 4);"),
                                            "writes device memory between two launches"),
        "two streams": (PHASED_BODY.replace("k<<<1, nullptr, stream>>>(sig, phase, win, rank);",
                                            "k<<<1, nullptr, stream>>>(sig, phase, win, rank);\n        k<<<1, nullptr, other>>>(sig, phase, win, rank);"),
                        "different streams"),
    }
    for what, (body, why) in variants.items():
        ex = run(tmp_path, PHASED.replace("BODY", body))
        assert said(ex, "the host sequence is not configured"), what
        assert said(ex, why), (what, [str(a) for a in ex.assumptions])
        assert ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0].split() == ["launch;"], what
    twice = PHASED.replace("BODY", PHASED_BODY) + "\nvoid Main(HcclComm c, void *s, int32_t *g, uint64_t *w)\n{\n    Run(c, s, g, w, 0, 2);\n    Run(c, s, g, w, 0, 2);\n}\n"
    ex = run(tmp_path, twice)
    assert said(ex, "Run is called more than once")


TEMPLATED = """
template <int Rows, int Cols>
__global__ AICORE void k(__gm__ int32_t *m, int me, __gm__ uint64_t *windowsIn)
{
    if (me == 0) {
        __gm__ int32_t *r = (__gm__ int32_t *)(windowsIn[1] + ((uint64_t)m - windowsIn[me]));
        for (int i = 0; i < Rows * Cols; ++i) {
            pto::comm::TNOTIFY(pto::comm::Signal(r + i), 1, pto::comm::NotifyOp::Set);
        }
    } else {
        pto::comm::Signal2D<Rows, Cols> all(m);
        pto::comm::TWAIT(all, 1, pto::comm::WaitCmp::EQ);
    }
}

template <int R, int C>
bool RunKernel(int32_t *m, int rank, uint64_t *win)
{
    k<R, C><<<1, nullptr, nullptr>>>(m, rank, win);
    return true;
}

template <int R, int C>
bool Run(int32_t *m, int rank, uint64_t *win)
{
    return RunKernel<R, C>(m, rank, win);
}

INSTANCES
"""


def test_template_arguments_come_from_the_one_instantiation_of_the_host_template(tmp_path):
    ex = run(tmp_path, TEMPLATED.replace("INSTANCES", "template bool Run<2, 3>(int32_t *m, int rank, uint64_t *win);"))
    assert "TWAIT(m[0:6], 1, EQ);" in ex.sig_text, ex.sig_text
    assert "for (int i = 0; i < 6; i++)" in ex.sig_text


def test_several_instantiations_give_no_template_arguments_and_say_so(tmp_path):
    two = TEMPLATED.replace("INSTANCES", "template bool Run<2, 3>(int32_t *m, int rank, uint64_t *win);\n"
                                         "template bool Run<4, 4>(int32_t *m, int rank, uint64_t *win);")
    with pytest.raises(ExtractError, match=r"instantiates the kernel's template arguments in several ways \(<2, 3>, <4, 4>\)"):
        run(tmp_path, two)
    p = tmp_path / "k.cpp"
    ex = extract([str(p)], {"pragmas": False, "values": {"Rows": 4, "Cols": 4}})
    assert "TWAIT(m[0:16], 1, EQ);" in ex.sig_text
    assert not said(ex, "several ways")


def test_a_barrier_that_may_not_happen_is_no_host_barrier(tmp_path):
    maybe = PHASED.replace("void Sync(HcclComm comm, void *stream)\n{\n    HcclBarrier(comm, stream);\n}",
                           "void Sync(HcclComm comm, void *stream)\n{\n    if (comm != nullptr) {\n        HcclBarrier(comm, stream);\n    }\n}")
    ex = run(tmp_path, maybe.replace("BODY", PHASED_BODY))
    assert ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0].split() == ["launch;", "launch;"]
    jump = PHASED_BODY.replace("Sync(comm, stream);", "Sync(comm, stream);\n        if (phase == 0) {\n            continue;\n        }")
    ex = run(tmp_path, PHASED.replace("BODY", jump))
    assert said(ex, "a jump inside a host loop")


def test_a_host_barrier_on_another_stream_needs_a_wait_for_the_launch_stream(tmp_path):
    other = PHASED_BODY.replace("Sync(comm, stream);", "Sync(comm, other);")
    ex = run(tmp_path, PHASED.replace("BODY", other))
    assert said(ex, "a host barrier on another stream than the launches'")
    assert ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0].split() == ["launch;"]
    waited = PHASED_BODY.replace("Sync(comm, stream);", "aclrtSynchronizeStream(stream);\n        Sync(comm, other);")
    ex = run(tmp_path, PHASED.replace("BODY", waited))
    assert ex.sig_text.split("host {\n", 1)[1].split("}", 1)[0].split() == ["launch;", "host_barrier;"] * 2


ARGS_TABLE = """
template <typename T>
AICORE inline __gm__ T *CommRemotePtr(__gm__ CommContext *ctx, __gm__ T *local_ptr, int pe) {
  uint64_t offset = reinterpret_cast<uint64_t>(local_ptr) - ctx->windowsIn[ctx->rankId];
  return reinterpret_cast<__gm__ T *>(ctx->windowsIn[pe] + offset);
}

extern "C" __global__ AICORE void kernel_entry(__gm__ int64_t *args) {
  __gm__ ChipTensor *sig_t = reinterpret_cast<__gm__ ChipTensor *>(args[0]);
  __gm__ ChipTensor *done_t = reinterpret_cast<__gm__ ChipTensor *>(args[3]);
  int nranks = static_cast<int>(args[1]);
  __gm__ CommContext *ctx = reinterpret_cast<__gm__ CommContext *>(args[2]);
  __gm__ int32_t *sig = reinterpret_cast<__gm__ int32_t *>(sig_t->buffer.addr);
  __gm__ int32_t *done = reinterpret_cast<__gm__ int32_t *>(done_t->buffer.addr);
  int me = static_cast<int>(ctx->rankId);
  for (int peer = 0; peer < nranks; ++peer) {
    pto::comm::Signal s(CommRemotePtr(ctx, sig + me, peer));
    pto::comm::TNOTIFY(s, 1, pto::comm::NotifyOp::AtomicAdd);
  }
  pto::comm::TWAIT(pto::comm::Signal(sig + SLOT), 1, pto::comm::WaitCmp::GE);
  pto::comm::TNOTIFY(pto::comm::Signal(done), 1, pto::comm::NotifyOp::Set);
}
"""


def test_a_kernel_whose_arguments_come_in_a_table(tmp_path):
    # pypto's generated collectives: tensors and the CommContext passed by address in
    # `int64_t *args`, the rank count in args[1]
    ex = run(tmp_path, ARGS_TABLE.replace("SLOT", "0"))
    k = ex.sig_text.split("kernel {\n", 1)[1]
    assert "for (int peer = 0; peer < nranks; peer++) {\n        TNOTIFY(addr[rank] @ peer, 1, AtomicAdd);" in k, k
    assert "TNOTIFY(done_t_buffer_addr, 1, Set);" in k, k     # the second tensor is a signal of its own
    assert said(ex, "sig_t->buffer->addr is used as a signal buffer")
    assert [c.levels() for c in ex.call_sites] == [("partial", "full", "full", "full", "full")] * 3


def test_a_table_word_that_no_sweep_shows_is_runtime_data(tmp_path):
    # the same word used as a count only, with no sweep over the windows: a param
    body = ARGS_TABLE.replace("for (int peer = 0; peer < nranks; ++peer) {", "for (int peer = 0; peer < 1; ++peer) {") \
                     .replace("SLOT", "nranks - 1")
    ex = run(tmp_path, body)
    assert said(ex, "nranks comes from runtime data (static_cast<int>(args[1])")
    assert "NRANKS_" in ex.sig_text

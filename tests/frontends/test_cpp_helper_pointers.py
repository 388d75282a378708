"""Pointers that production kernels compute in helpers (issue 20; pto-isa's gemm_ar comm
kernel): a template helper's `(__gm__ T *)` cast steps by the size of the T its argument
deduces, a `?:` between the local and a peer's address of one buffer is that buffer on the
chosen rank, and a data tensor handle that moves on inside a loop (a ping-pong pipeline's
pending destination) leaves its transfers out with an assumption instead of refusing the
kernel or modelling them on the buffer it held first."""

from pathlib import Path

import pytest

from checker.kernels import check_inputs
from frontends.cpp import extract

ROOT = Path(__file__).resolve().parents[2]


def _row_put() -> str:
    """The corpus ring hand-off, with rows of halves, the put into row 1 of the successor
    through a pointer `target`, and the read of that row."""
    text = (ROOT / "tests/frontends/corpus/put_notify_fence/put_notify_fence.cpp").read_text()
    for old, new in (("<float,", "<half,"), ("Vec, float,", "Vec, half,"), ("__gm__ float *", "__gm__ half *"),
                     ("void put_notify_fence(", "void row_put("),
                     ("    RowGlobal dst(PeerAddr(ctx, recv, next));\n",
                      "    __gm__ half *target = PeerAddr(ctx, recv, next) + kRowElems;\n    RowGlobal dst(target);\n"),
                     ("RowGlobal got(recv);", "RowGlobal got(recv + kRowElems);")):
        assert old in text, old
        text = text.replace(old, new)
    return text


ROW_PUT = _row_put()
TARGET = "    __gm__ half *target = PeerAddr(ctx, recv, next) + kRowElems;\n"
FENCE = "    pipe_barrier(PIPE_ALL);\n    dsb(DSB_DDR);\n"


def kernel(tmp_path, target: str = TARGET, fenced: bool = True, name: str = "row_put.cpp") -> str:
    assert TARGET in ROW_PUT and FENCE in ROW_PUT
    text = ROW_PUT.replace(TARGET, target)
    if not fenced:
        text = text.replace(FENCE, "")
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_template_helper_steps_by_the_deduced_element_size(tmp_path):
    """`PeerAddr<half>(...) + 64` is 64 halves on: row 1 (128 bytes), where the successor
    reads; with 4-byte steps it was row 2 and the unfenced race below was missed."""
    text = extract([kernel(tmp_path)]).sig_text
    assert "TPUT(recv[64:128] @ next, send[0:64]);" in text and "READ(recv[64:128]);" in text
    assert "buffer recv[128];" in text


TERNARY = "    __gm__ half *target = (next == me) ? recv + kRowElems : PeerAddr(ctx, recv, next) + kRowElems;\n"


def test_a_choice_between_the_local_and_a_peer_address_is_one_buffer(tmp_path):
    text = extract([kernel(tmp_path, TERNARY)]).sig_text
    assert "TPUT(recv[64:128] @ (next == rank ? rank : next), send[0:64]);" in text, text


@pytest.mark.parametrize("target", [TARGET, TERNARY], ids=["helper", "choice"])
@pytest.mark.parametrize("fenced, verdict", [(True, []), (False, ["data_race"])])
def test_the_row_put_is_judged_on_the_row_it_writes(tmp_path, target, fenced, verdict):
    (r,) = check_inputs([kernel(tmp_path, target, fenced)])
    assert r.error is None and r.violated == verdict, r.error


PIPELINE = """    RowGlobal pending(send);
    for (int i = 0; i < 2; i++) {
        TSTORE(pending, staging);
        RowGlobal next_dst(recv + i * kRowElems);
        pending = next_dst;
    }
"""


def test_a_data_tensor_that_moves_on_in_a_loop_leaves_its_transfers_out(tmp_path):
    """The TSTORE comes before the rebinding in the loop body: it must not be modelled as a
    write of the buffer `pending` held first (`send`), in any iteration; the TPUT from `src`,
    another tensor over the same buffer, stays."""
    path = kernel(tmp_path, TARGET + PIPELINE)
    sk = extract([path])
    assert "WRITE(" not in sk.sig_text and "TPUT(recv[64:128] @ next, send[0:64]);" in sk.sig_text, sk.sig_text
    notes = [a.text for a in sk.assumptions]
    assert "data tensor pending changes inside a loop: the transfers through it are left out, their data is not checked" in notes
    assert ("tensor `pending` of TSTORE: a data tensor that changes inside a loop; the access is left out, its data "
            "is not checked") in notes, notes
    (r,) = check_inputs([path])
    assert r.error is None and r.violated == [], r.error


def test_a_signal_pointer_that_moves_on_in_a_loop_is_still_refused(tmp_path):
    moving = """    __gm__ int32_t *flag_ptr = ready;
    for (int i = 0; i < 2; i++) {
        flag_ptr = flag_ptr + 1;
    }
"""
    (r,) = check_inputs([kernel(tmp_path, TARGET + moving)])
    assert r.error is not None and "pointer flag_ptr changes inside a loop" in r.error


# The compile line's macros from the CMakeLists.txt beside the kernel (frontends/cpp/build.py):
# pto-isa's gemm_ar and allgather_gemm keep their remote-address helper under
# `#ifdef MEMORY_BASE` and pass -DMEMORY_BASE in target_compile_options.
GUARDED = ROW_PUT.replace("template <typename T>\n", "#ifdef MEMORY_BASE\ntemplate <typename T>\n").replace(
    "    return (__gm__ T *)(ctx->windowsIn[pe] + off);\n}\n", "    return (__gm__ T *)(ctx->windowsIn[pe] + off);\n}\n#endif\n")
CMAKE = """cmake_minimum_required(VERSION 3.16)
add_compile_definitions(_GLIBCXX_USE_CXX11_ABI=0)
if(DEFINED CONFIG_X)
    add_compile_definitions(FROM_AN_IF)
endif()
add_library(other SHARED other.cpp)
target_compile_options(other PRIVATE -DFROM_ANOTHER_TARGET)
add_library(row_put SHARED row_put.cpp)
target_compile_options(row_put PRIVATE ${CMAKE_CCE_COMPILE_OPTIONS} --cce-aicore-arch=dav-c220-vec {flag} -std=c++17 -D${SOME}=1)
"""


def guarded(tmp_path, flag: str | None, config: str | None = None) -> str:
    assert GUARDED.count("#ifdef MEMORY_BASE") == 1 and GUARDED.count("#endif") == 1
    (tmp_path / "row_put.cpp").write_text(GUARDED)
    if flag is not None:
        (tmp_path / "CMakeLists.txt").write_text(CMAKE.replace("{flag}", flag))
    if config is not None:
        (tmp_path / "sigproof.toml").write_text(config)
    return str(tmp_path / "row_put.cpp")


def test_the_build_file_gives_the_kernel_its_compile_line_macros(tmp_path):
    sk = extract([guarded(tmp_path, "-DMEMORY_BASE")])
    assert "TPUT(recv[64:128] @ next, send[0:64]);" in sk.sig_text, sk.sig_text
    (note,) = [a for a in sk.assumptions if "compile line" in a.text]
    assert (note.file.endswith("CMakeLists.txt"), note.line, note.col) == (True, 2, 1)
    # only the unconditional, literal macros of this file's target and of the whole file
    assert note.text == ("the preprocessor macros of the kernel's compile line are taken from this build file: "
                         "MEMORY_BASE, _GLIBCXX_USE_CXX11_ABI=0 (set defines = [...] in sigproof.toml otherwise)")


@pytest.mark.parametrize("flag, config", [(None, None), ("", None), ("-DMEMORY_BASE", 'defines = ["OTHER"]\n')],
                         ids=["no build file", "not on the compile line", "the config wins"])
def test_without_the_macro_the_helper_is_not_there(tmp_path, flag, config):
    (r,) = check_inputs([guarded(tmp_path, flag, config)])
    assert r.error is not None and "cannot tell which data buffer `target` points into" in r.error, r.error


# Local structs of pointers (issue 20, item 2: allgather_gemm's DispatchContext and the
# RemoteEndpoint a helper fills and returns).
ENDPOINT = """struct Endpoint {
    __gm__ half *target;
    __gm__ int32_t *flag;
};

AICORE inline Endpoint PeerOf(__gm__ HcclDeviceContext *ctx, __gm__ half *recv, __gm__ int32_t *ready, int next)
{
    Endpoint ep;
    ep.target = PeerAddr(ctx, recv, next) + kRowElems;
    ep.flag = PeerAddr(ctx, ready, next);
    return ep;
}

__global__ AICORE void row_put("""
FILLED = "    Endpoint ep = PeerOf(ctx, recv, ready, next);\n"
BRACED = "    Endpoint ep{PeerAddr(ctx, recv, next) + kRowElems, PeerAddr(ctx, ready, next)};\n"
DESIGNATED = "    Endpoint ep{.target = PeerAddr(ctx, recv, next) + kRowElems, .flag = PeerAddr(ctx, ready, next)};\n"
BRANCHED = "    Endpoint ep = PeerOf(ctx, recv, ready, next);\n    if (me == 0) {\n        ep.flag = ready;\n    }\n"
LOOPED = ("    Endpoint ep = PeerOf(ctx, recv, ready, next);\n    for (int i = 0; i < 2; i++) {\n"
          "        ep.flag = ready;\n    }\n")


def with_endpoint(tmp_path, declaration: str, fenced: bool = True) -> str:
    text = ROW_PUT.replace("__global__ AICORE void row_put(", ENDPOINT)
    text = text.replace(TARGET, declaration + "    __gm__ half *target = ep.target;\n")
    text = text.replace("pto::comm::Signal flag(PeerAddr(ctx, ready, next));", "pto::comm::Signal flag(ep.flag);")
    assert text.count("ep.flag") >= 2 and "PeerOf" in text
    if not fenced:
        text = text.replace(FENCE, "")
    (tmp_path / "row_put.cpp").write_text(text)
    return str(tmp_path / "row_put.cpp")


@pytest.mark.parametrize("declaration", [FILLED, BRACED, DESIGNATED], ids=["returned", "braced", "designated"])
@pytest.mark.parametrize("fenced, verdict", [(True, []), (False, ["data_race"])])
def test_a_struct_of_pointers_carries_its_fields(tmp_path, declaration, fenced, verdict):
    path = with_endpoint(tmp_path, declaration, fenced)
    text = extract([path]).sig_text
    assert "TPUT(recv[64:128] @ next, send[0:64]);" in text and "TNOTIFY(ready @ next, 1, Set);" in text, text
    (r,) = check_inputs([path])
    assert r.error is None and r.violated == verdict, r.error


def test_a_field_set_in_a_branch_is_the_one_the_condition_picks(tmp_path):
    text = extract([with_endpoint(tmp_path, BRANCHED)]).sig_text
    assert "TNOTIFY(ready @ (rank == 0 ? rank : next), 1, Set);" in text, text


def test_a_field_set_in_a_loop_is_not_taken_for_its_value(tmp_path):
    (r,) = check_inputs([with_endpoint(tmp_path, LOOPED)])
    assert r.error is not None and "cannot tell which signal `ep.flag`" in r.error, r.error


@pytest.mark.parametrize("folder", ["${PROJECT_SOURCE_DIR}/inc", "${INC}", "inc"])
def test_include_folders_of_the_compile_line(tmp_path, folder):
    """The helper lives in a header of another folder that the build file's
    target_include_directories names (through a `set` variable as pto-isa's a5 kernels do);
    a folder of the PTO library itself is never read."""
    helper = ROW_PUT[ROW_PUT.index("template <typename T>"):ROW_PUT.index("__global__")]
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "peer.hpp").write_text("#pragma once\n" + helper)
    (tmp_path / "lib" / "pto" / "comm").mkdir(parents=True)
    (tmp_path / "lib" / "peer.hpp").write_text("#pragma once\n// the library's: never read\n#error\n")
    (tmp_path / "row_put.cpp").write_text(ROW_PUT.replace(helper, '#include "peer.hpp"\n\n'))
    (tmp_path / "CMakeLists.txt").write_text(
        "project(row_put)\nset(INC ${PROJECT_SOURCE_DIR}/inc)\ninclude_directories(${PROJECT_SOURCE_DIR}/lib)\n"
        f"add_library(row_put SHARED row_put.cpp)\ntarget_include_directories(row_put PRIVATE $ENV{{HOME}}/x {folder})\n")
    sk = extract([str(tmp_path / "row_put.cpp")])
    assert "TPUT(recv[64:128] @ next, send[0:64]);" in sk.sig_text
    (tmp_path / "CMakeLists.txt").write_text("add_library(row_put SHARED row_put.cpp)\n")
    (r,) = check_inputs([str(tmp_path / "row_put.cpp")])
    assert r.error is not None and "points into" in r.error, r.error


# A pointer moved to a peer in one branch (pto-isa gemm_ar's RsNotifySubtileReady:
# `counter = base + id; if (meta.owner != my_rank) counter = HcclRemotePtr(ctx, counter, owner);`),
# in a helper called from a loop.
FLAG = "    pto::comm::Signal flag(PeerAddr(ctx, ready, next));\n"


def branched_flag(tmp_path, code: str) -> str:
    assert FLAG in ROW_PUT
    (tmp_path / "row_put.cpp").write_text(ROW_PUT.replace(FLAG, code))
    return str(tmp_path / "row_put.cpp")


@pytest.mark.parametrize("code, notify", [
    ("    __gm__ int32_t *p = ready;\n    if (me == 0) {\n        p = PeerAddr(ctx, ready, next);\n    }\n"
     "    pto::comm::Signal flag(p);\n", "TNOTIFY(ready @ (rank == 0 ? next : rank), 1, Set);"),
    ("    __gm__ int32_t *p = ready;\n    if (me == 0) {\n        p = PeerAddr(ctx, ready, next);\n    } else {\n"
     "        p = PeerAddr(ctx, ready, (me + 2) % ctx->rankNum);\n    }\n    pto::comm::Signal flag(p);\n",
     "TNOTIFY(ready @ (rank == 0 ? next : (rank + 2) % nranks), 1, Set);"),
    ("    for (int i = 0; i < 2; i++) {\n        __gm__ int32_t *p = ready;\n        if (i == 1) {\n"
     "            p = PeerAddr(ctx, ready, next);\n        }\n        pto::comm::Signal flag(p);\n"
     "        pto::comm::TNOTIFY(flag, 1, pto::comm::NotifyOp::Set);\n    }\n    pto::comm::Signal flag(ready);\n",
     "TNOTIFY(ready @ (i == 1 ? next : rank), 1, Set);"),
], ids=["then", "then-else", "declared in the loop"])
def test_a_pointer_moved_in_a_branch_is_the_one_the_condition_picks(tmp_path, code, notify):
    text = extract([branched_flag(tmp_path, code)]).sig_text
    assert notify in text, text


@pytest.mark.parametrize("code, error", [
    ("    __gm__ int32_t *p = ready;\n    if (me == 0) {\n        p = (__gm__ int32_t *)send;\n    }\n"
     "    pto::comm::Signal flag(p);\n", "cannot tell which signal `p` points into"),
    ("    __gm__ int32_t *p = ready;\n    for (int i = 0; i < 2; i++) {\n        if (i == 1) {\n"
     "            p = PeerAddr(ctx, ready, next);\n        }\n    }\n    pto::comm::Signal flag(p);\n",
     "pointer p changes inside a loop"),
], ids=["two buffers", "declared outside the loop"])
def test_a_pointer_the_branches_do_not_agree_on_is_refused(tmp_path, code, error):
    (r,) = check_inputs([branched_flag(tmp_path, code)])
    assert r.error is not None and error in r.error, r.error

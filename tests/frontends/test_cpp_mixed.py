"""frontends.cpp: mixed cube/vector kernels read as one launch runs them.

A kernel whose cube cores' pass (`__DAV_CUBE__`, `if ASCEND_IS_AIC`) and vector cores' pass
(`__DAV_VEC__`, `if ASCEND_IS_AIV`) each hold signal or data operations of their own is read
twice and checked as one protocol: blocks 0 .. NBLOCKS-1 run the cube pass, then two vector
cores per cube core run the vector pass, with get_block_idx() the block of the cube core they
pair with and get_subblockid() which of the pair (dav-c220's 1:2; `subblocks` sets another
ratio). The corpus holds a correct one (mixed_start_sync); `pair_eq_bug` derives from it one
whose deadlock only the pairing shows; these tests pin the rules around them.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from checker.cli import run as sigproof
from frontends.cpp import ExtractError, extract, kernels

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "frontends" / "corpus"

HEAD = """#include <pto/comm/pto_comm_inst.hpp>
#include <pto/pto-inst.hpp>

struct CommContext {
    int32_t rankId;
    int32_t rankSize;
    uint64_t windowsIn[16];
};

"""


def write(tmp_path, text: str, name: str = "k.cpp", config: str | None = None) -> str:
    if config is not None:
        (tmp_path / "sigproof.toml").write_text(config)
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def pair_eq_bug() -> str:
    """mixed_start_sync with two mistakes that only the cube/vector pairing shows: the vector
    cores step by get_block_num() alone, so both cores of a pair cover the peers from
    get_block_num() on (two arrivals there), and they wait with EQ, which a second arrival can
    pass by before the waiter looks: a deadlock with two vector cores per cube core (dav-c220's
    1:2), none with one (subblocks = 1)."""
    text = (CORPUS / "mixed_start_sync" / "mixed_start_sync.cpp").read_text()
    for old, new in (("int32_t coreNum = get_block_num() * get_subblockdim();", "int32_t coreNum = get_block_num();"),
                     ("Signal(aiv_cnt + i), 1, pto::comm::WaitCmp::GE", "Signal(aiv_cnt + i), 1, pto::comm::WaitCmp::EQ")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def kernel_body(ex) -> str:
    return ex.sig_text.split("kernel {\n", 1)[1].split("\n}\n", 1)[0]


def verdict(path: str, *args: str) -> tuple[str, list[str], dict]:
    out, err = io.StringIO(), io.StringIO()
    code = sigproof(["check", path, "--format", "json", "--no-timing", *args], out, err)
    assert code in (0, 1), err.getvalue() + out.getvalue()
    (result,) = json.loads(out.getvalue())["results"]
    return result["status"], result["violated"], result


# ---------------------------------------------------------------- the pairing

# Every vector core sets its own slot of `seen` (its index over both cores of every pair, as
# dispatch_mega_combine computes it); cube core 0 waits for all 2 * get_block_num() slots.
# ok only when the vector cores' indices are exactly 0 .. 2 * NBLOCKS - 1.
PAIRS = HEAD + """__global__ AICORE void pairs(__gm__ int32_t *seen)
{
#if defined(__DAV_VEC__)
    int32_t coreId = get_block_idx() + get_subblockid() * get_block_num();
    pto::comm::TNOTIFY(pto::comm::Signal(seen + coreId), 1, pto::comm::NotifyOp::Set);
#elif defined(__DAV_CUBE__)
    if (get_block_idx() == 0) {
        for (int32_t c = 0; c < get_block_num() * 2; ++c) {
            pto::comm::TWAIT(pto::comm::Signal(seen + c), 1, pto::comm::WaitCmp::EQ);
        }
    }
#endif
}
"""


@pytest.mark.parametrize("blocks", [1, 2, 3])
def test_the_vector_cores_pair_with_the_cube_cores_two_by_two(tmp_path, blocks):
    path = write(tmp_path, PAIRS, config=f"ranks = 1\nblocks = {blocks}\n[signals]\nseen = {2 * blocks}\n")
    ex = extract([path])
    assert "blocks 3 * NBLOCKS;" in ex.sig_text
    assert any("is a mixed kernel" in a.text for a in ex.assumptions)
    status, violated, _ = verdict(path)
    assert (status, violated) == ("pass", []), violated


def test_a_vector_core_index_off_the_pairing_deadlocks(tmp_path):
    """The look-alike: get_subblockid() forgotten, both cores of a pair set the same slot and
    the upper half is never set."""
    path = write(tmp_path, PAIRS.replace(" + get_subblockid() * get_block_num()", ""),
                 config="ranks = 1\nblocks = 2\n[signals]\nseen = 4\n")
    assert verdict(path)[:2] == ("fail", ["deadlock"])


def test_the_ratio_is_configurable(tmp_path):
    """subblocks = 1: one vector core per cube core, get_subblockid() 0, get_subblockdim() 1:
    the pairs kernel then waits for slots nobody sets."""
    path = write(tmp_path, PAIRS, config="ranks = 1\nblocks = 1\nsubblocks = 1\n[signals]\nseen = 2\n")
    assert "blocks 2 * NBLOCKS;" in extract([path]).sig_text
    assert verdict(path)[:2] == ("fail", ["deadlock"])
    (tmp_path / "two").mkdir()
    assert verdict(write(tmp_path / "two", pair_eq_bug(), "pair_eq.cpp"))[:2] == ("fail", ["deadlock"])
    (tmp_path / "one").mkdir()
    one = write(tmp_path / "one", pair_eq_bug(), "pair_eq.cpp", "subblocks = 1\n")
    assert verdict(one)[:2] == ("pass", [])
    assert verdict(str(CORPUS / "mixed_start_sync" / "mixed_start_sync.cpp"))[:2] == ("pass", [])


# ---------------------------------------------------------------- cooperation between the passes

HANDOFF = HEAD + """__global__ AICORE void handoff(__gm__ int32_t *vec_done)
{
#if defined(__DAV_VEC__)
    pto::comm::TNOTIFY(pto::comm::Signal(vec_done), 1, pto::comm::NotifyOp::AtomicAdd);
#else
    pto::comm::TWAIT(pto::comm::Signal(vec_done), 2 * get_block_num(), pto::comm::WaitCmp::GE);
#endif
    pto::SYNCALL<pto::SyncCoreType::Mix>();
}
"""


def test_a_hand_off_between_the_passes_is_ok_together_and_deadlocks_in_one_pass_alone(tmp_path):
    path = write(tmp_path, HANDOFF, config="ranks = 2\nblocks = 2\n")
    ex = extract([path])
    body = kernel_body(ex)
    assert body.count("block_barrier;") == 2 and "if (block < NBLOCKS)" in body, body
    assert verdict(path)[:2] == ("pass", [])
    (tmp_path / "cube").mkdir()
    cube = write(tmp_path / "cube", HANDOFF, config='ranks = 2\nblocks = 2\ndefines = ["__DAV_CUBE__"]\n')
    assert "is a mixed kernel" not in " ".join(a.text for a in extract([cube]).assumptions)
    assert verdict(cube)[:2] == ("fail", ["deadlock"])


def test_too_few_vector_arrivals_deadlock_together(tmp_path):
    path = write(tmp_path, HANDOFF.replace("2 * get_block_num()", "3 * get_block_num()"), config="ranks = 1\nblocks = 1\n")
    assert verdict(path)[:2] == ("fail", ["deadlock"])


def test_ascend_is_aiv_and_aic_read_as_the_preprocessor_passes(tmp_path):
    """AscendC's `if ASCEND_IS_AIV { ... }` (a macro for a constexpr test of the core type):
    read as (1) in its pass and (0) in the other, at the same columns; the C++ parser no
    longer stops at it. The skeleton's signal statements are those of the `#if` form."""
    plain = write(tmp_path, HANDOFF, config="ranks = 2\nblocks = 2\n")
    (tmp_path / "macro").mkdir()
    text = HANDOFF.replace("#if defined(__DAV_VEC__)\n", "    if ASCEND_IS_AIV {\n").replace(
        "#else\n", "    }\n    if ASCEND_IS_AIC {\n").replace("#endif\n", "    }\n")
    macro = write(tmp_path / "macro", text, config="ranks = 2\nblocks = 2\n")
    want = [line.strip() for line in kernel_body(extract([plain])).splitlines() if "(" in line and "if" not in line]
    got = [line.strip() for line in kernel_body(extract([macro])).splitlines() if "(" in line and "if (" not in line]
    assert [w for w in want if "T" in w] == [g for g in got if "T" in g], (want, got)
    assert verdict(macro)[:2] == ("pass", [])
    wait = next(c for c in extract([macro]).call_sites if c.kind == "TWAIT")
    assert (wait.line, wait.col) == (text.splitlines().index(
        next(line for line in text.splitlines() if "TWAIT" in line)) + 1, 5)


# ---------------------------------------------------------------- when a kernel is mixed

def test_only_code_of_its_own_in_each_pass_makes_a_kernel_mixed(tmp_path):
    """Signal code outside the core conditionals (both passes hold the same) with only a
    non-signal difference under __DAV_VEC__: one kernel of one core type, as before."""
    text = HEAD + """__global__ AICORE void common(__gm__ int32_t *flag)
{
#if defined(__DAV_VEC__)
    int32_t lane = get_subblockid();
#endif
    pto::comm::TNOTIFY(pto::comm::Signal(flag), 1, pto::comm::NotifyOp::AtomicAdd);
}
"""
    ex = extract([write(tmp_path, text)])
    assert "blocks NBLOCKS;" in ex.sig_text and "if (block < NBLOCKS)" not in ex.sig_text
    assert not any("mixed kernel" in a.text for a in ex.assumptions)


def test_the_preprocessor_example_with_a_core_macro_is_mixed(tmp_path):
    """tests/frontends/test_cpp_extract.py's PP: under `__DAV_VEC__ || USE_SET` a Set, in the
    `#else` an AtomicAdd; both passes wait. The cube cores run the AtomicAdd, the vector
    cores the Set."""
    from tests.frontends.test_cpp_extract import PP

    (tmp_path / "cfg.h").write_text("#pragma once\n#define MODE 2\n")
    ex = extract([write(tmp_path, PP)], {"pragmas": False})
    assert kernel_body(ex) == ("    if (block < NBLOCKS) {\n        TNOTIFY(flag, 4, AtomicAdd);\n        TWAIT(flag, 4, GE);\n"
                               "    } else {\n        TNOTIFY(flag, 4, Set);\n        TWAIT(flag, 4, GE);\n    }"), ex.sig_text


def test_a_file_of_several_kernels_lists_one_whose_signal_code_is_in_the_vector_pass_only(tmp_path):
    text = HANDOFF + """
__global__ AICORE void idle(__gm__ int32_t *x)
{
    int32_t y = 0;
}

__global__ AICORE void vec_only(__gm__ int32_t *flag)
{
    if ASCEND_IS_AIV {
        pto::comm::TNOTIFY(pto::comm::Signal(flag), 1, pto::comm::NotifyOp::AtomicAdd);
    }
}
"""
    assert kernels([write(tmp_path, text)]) == ["handoff", "vec_only"]


# ---------------------------------------------------------------- barriers of one core type

def test_a_barrier_of_one_core_type_in_a_mixed_kernel_is_refused_at_its_place(tmp_path):
    text = HANDOFF.replace("SyncCoreType::Mix", "SyncCoreType::AIVOnly")
    path = write(tmp_path, text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "SYNCALL" in s)
    with pytest.raises(ExtractError, match=r"synchronizes the vector cores alone, in a mixed kernel") as e:
        extract([path])
    assert str(e.value).startswith(f"{path}:{line}:5: error:")


@pytest.mark.parametrize("call, barrier", [
    ("pto::SYNCALL();", True),                                  # AIVOnly by default
    ("pto::SYNCALL<pto::SyncCoreType::AIVOnly>();", True),
    ("pto::SYNCALL<pto::SyncCoreType::Mix>();", True),
    ("pto::SYNCALL<pto::SyncCoreType::AICOnly>();", False),     # the cube cores' barrier: the vector cores go on
    ("AscendC::SyncAll();", True),
])
def test_a_barrier_in_a_vector_cores_pass_read_alone(tmp_path, call, barrier):
    text = HEAD + f"""__global__ AICORE void vec(__gm__ int32_t *flag)
{{
#if defined(__DAV_VEC__)
    pto::comm::TNOTIFY(pto::comm::Signal(flag), 1, pto::comm::NotifyOp::AtomicAdd);
    {call}
    pto::comm::TWAIT(pto::comm::Signal(flag), 1, pto::comm::WaitCmp::GE);
#endif
}}
"""
    body = kernel_body(extract([write(tmp_path, text)]))
    assert ("block_barrier;" in body) == barrier, body
    assert "TNOTIFY" in body and "if (block < NBLOCKS)" not in body

"""The one intrinsic table of the kernel readers (frontends/core/intrinsics.py).

Every row is known to both readers or says why one does not know it; every C++ name of a
row whose statement the skeleton shows becomes that statement; every MLIR name is found by
the MLIR reader's lookup. The readers' own tests (goldens, every public spelling) pin the
rest of what each does with a role."""

from __future__ import annotations

import pytest

from frontends.core.intrinsics import INTRINSICS, cpp_role, mlir_role
from frontends.cpp import extract

READERS = ("cpp", "mlir")
HEAD = ("#include <pto/comm/pto_comm_inst.hpp>\n\n"
        "__global__ AICORE void k(__gm__ int32_t *flag, int32_t rank)\n{\n"
        "    pto::comm::Signal sig(flag);\n")
CALLS = {  # role -> a call of the intrinsic NAME, and the skeleton line it becomes
    "notify": ("pto::comm::NAME(sig, 1, pto::comm::NotifyOp::AtomicAdd);", "TNOTIFY(flag, 1, AtomicAdd);"),
    "wait": ("pto::comm::NAME(sig, 1, pto::comm::WaitCmp::GE);", "TWAIT(flag, 1, GE);"),
    "test": ("if (pto::comm::NAME(sig, 1, pto::comm::WaitCmp::GE)) { return; }", "TTEST(flag, 1, GE)"),
    "pipe_barrier": ("NAME(PIPE_ALL);", "pipe_barrier(PIPE_ALL);"),
    "fence": ("NAME(DSB_DDR);", "dsb(DSB_DDR);"),
    "block_barrier": ("NAME();", "block_barrier;"),
}


def test_every_row_is_known_to_both_readers_or_says_why_not():
    for row in INTRINSICS:
        why = dict(row.not_in)
        assert set(why) <= set(READERS), row
        for reader in READERS:
            names = getattr(row, reader)
            assert bool(names) != (reader in why), (row.role, reader, names, why.get(reader))
            assert reader not in why or why[reader].strip(), row


def test_names_are_unique_and_found_by_the_lookups():
    roles = [row.role for row in INTRINSICS]
    assert len(roles) == len(set(roles))
    cpp = [n for row in INTRINSICS for n in row.cpp]
    mlir = [n for row in INTRINSICS for n in row.mlir]
    assert len(cpp) == len(set(cpp)) and len(mlir) == len(set(mlir))
    for row in INTRINSICS:
        assert all(cpp_role(n) is row for n in row.cpp) and all(mlir_role(n) is row for n in row.mlir)
    assert cpp_role("TADD") is None and mlir_role("arith.addi") is None and mlir_role("foo.tnotify") is None
    assert mlir_role("pto.fence_gm").role == "fence" and mlir_role("pto.x.twait").role == "wait"


CASES = [(row.role, name) for row in INTRINSICS if row.role in CALLS for name in row.cpp]


# roles whose C++ calls need buffers and tiles around them: the corpus goldens pin them
# (put_notify_fence, bug_put_notify_no_fence, syncall_barrier, two_level_barrier); the
# subblock roles mean something only in a mixed kernel (tests/frontends/test_cpp_mixed.py)
IN_THE_CORPUS = {"transfer", "async_transfer", "data_access", "block_index", "block_count",
                 "subblock_index", "subblock_count"}


def test_the_cases_cover_every_role_of_the_table():
    assert {role for role, _ in CASES} == set(CALLS)
    assert {row.role for row in INTRINSICS} == set(CALLS) | IN_THE_CORPUS


@pytest.mark.parametrize("role, name", CASES)
def test_every_cpp_name_becomes_its_statement(tmp_path, role, name):
    call, line = CALLS[role]
    (tmp_path / "sigproof.toml").write_text('rank = "rank"\nranks = 2\n')
    path = tmp_path / "k.cpp"
    path.write_text(HEAD + "    " + call.replace("NAME", name) + "\n}\n")
    ex = extract([str(path)])
    assert line in ex.sig_text, ex.sig_text

"""The PTO intrinsics the kernel readers know: one table from a C++ callee or an MLIR op to
what it means in the skeleton. Entry points: `INTRINSICS`, `cpp_role`, `mlir_role`.

Each row names a role (what the readers do with it), the skeleton statement it becomes, the
roles of its arguments in order, its C++ callee names (the last component of a qualified
name: `pto::comm::TNOTIFY` is `TNOTIFY`) and its MLIR op names (generic `"pto.tnotify"`,
dialect `pto.comm.tnotify`, or a bare PTO-AS mnemonic `tnotify`). A row one reader does not
know says why in `not_in`, so a new intrinsic added for one reader only is a decision written
down (tests/frontends/test_intrinsics.py holds every row to that). Adding an intrinsic: a row
here, then the reader's handler for its role (docs/developers.md lists the files).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Intrinsic:
    role: str  # notify, wait, test, transfer, async_transfer, data_access, pipe_barrier, fence, block_barrier, block_index, block_count, subblock_index, subblock_count
    statement: str  # the skeleton statement it becomes ("" when it becomes none)
    args: tuple[str, ...]  # the roles of its arguments, in order
    cpp: tuple[str, ...] = ()
    mlir: tuple[str, ...] = ()
    not_in: tuple[tuple[str, str], ...] = ()  # (reader, why it does not know this intrinsic)


INTRINSICS: tuple[Intrinsic, ...] = (
    Intrinsic("notify", "TNOTIFY", ("signal", "value", "notify op"), ("TNOTIFY",),
              ("pto.tnotify", "pto.comm.tnotify", "tnotify")),
    Intrinsic("wait", "TWAIT", ("signal", "value", "comparison"), ("TWAIT",),
              ("pto.twait", "pto.comm.twait", "twait")),
    Intrinsic("test", "TTEST", ("signal", "value", "comparison"), ("TTEST",),
              ("pto.ttest", "pto.comm.ttest", "ttest")),
    Intrinsic("transfer", "TPUT / TGET", ("destination", "source", "staging tile"), ("TPUT", "TGET"),
              not_in=(("mlir", "the MLIR reader models signals only; its data ops are left out"),)),
    Intrinsic("async_transfer", "", ("destination", "source"), ("TPUT_ASYNC", "TGET_ASYNC"),
              not_in=(("mlir", "the MLIR reader models signals only; its data ops are left out"),)),
    Intrinsic("data_access", "READ / WRITE", ("tile", "tensor"), ("TLOAD", "TSTORE", "TSTORE_IMPL"),
              not_in=(("mlir", "the MLIR reader models signals only; its data ops are left out"),)),
    Intrinsic("pipe_barrier", "pipe_barrier(PIPE_ALL)", ("pipe",), ("pipe_barrier",), ("pto.barrier",)),
    Intrinsic("fence", "dsb(DSB_DDR)", ("barrier kind",), ("dsb",), ("pto.fence",)),
    Intrinsic("block_barrier", "block_barrier", (), ("SyncAll", "SYNCALL", "block_barrier"),
              not_in=(("mlir", "no PTO MLIR op for an all-block barrier is known to the reader"),)),
    Intrinsic("block_index", "block", (), ("get_block_idx", "GetBlockIdx"), ("pto.get_block_idx",)),
    Intrinsic("block_count", "nblocks", (), ("get_block_num", "GetBlockNum"), ("pto.get_block_num",)),
    # a mixed kernel's vector cores: 0 or 1 of the pair beside each cube core, and the pair's size
    Intrinsic("subblock_index", "", (), ("get_subblockid", "GetSubBlockIdx"),
              not_in=(("mlir", "the MLIR reader models one core type; pto.get_subblock_idx is runtime data there"),)),
    Intrinsic("subblock_count", "", (), ("get_subblockdim", "GetSubBlockNum"),
              not_in=(("mlir", "the MLIR reader models one core type; pto.get_subblock_num is runtime data there"),)),
)

_BY_CPP = {name: row for row in INTRINSICS for name in row.cpp}
_BY_MLIR = {name: row for row in INTRINSICS for name in row.mlir}
# MLIR spellings of the signal operations beyond the table's: any dialect prefix under pto.
_SIGNAL_MNEMONICS = {name: row for row in INTRINSICS if row.role in ("notify", "wait", "test")
                     for name in row.mlir if "." not in name}


def cpp_role(callee: str) -> Intrinsic | None:
    """The intrinsic a C++ callee (last name component) is, or None."""
    return _BY_CPP.get(callee)


def mlir_role(op: str) -> Intrinsic | None:
    """The intrinsic an MLIR op is, or None: the table's names, a `pto.fence*` op for the
    fence, and a signal operation under any `pto.` dialect prefix (`pto.comm.tnotify`)."""
    row = _BY_MLIR.get(op)
    if row is not None:
        return row
    if op.startswith("pto.fence"):
        return _BY_MLIR["pto.fence"]
    short = op.rsplit(".", 1)[-1]
    return _SIGNAL_MNEMONICS.get(short) if op.startswith("pto.") else None

"""Program IR: each process is a tuple of instructions with spans; expressions are compiled
to closures `fn(locals, ctx)` with ctx = (rank, block, launch_id)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from model.errors import Span

# Opcodes. Local ones run invisibly between visible steps.
ASSIGN, JUMP, BRANCH, ASSERT, RETURN = range(5)
NOTIFY, WAIT, TEST, RESET, LAUNCH, JOIN, BARRIER = range(10, 17)
VISIBLE_FROM = NOTIFY

SET, ATOMIC_ADD = "Set", "AtomicAdd"
CMPS = ("EQ", "NE", "GT", "GE", "LT", "LE")

Fn = Callable[[list, tuple], int]


@dataclass(frozen=True, slots=True)
class SignalInfo:
    name: str
    dims: tuple[int, ...]
    init: int
    offset: int  # first element within one rank's block of signal memory
    size: int
    span: Span

    def element_name(self, flat: int) -> str:
        idx = []
        for d in reversed(self.dims):
            idx.append(flat % d)
            flat //= d
        return self.name + "".join(f"[{i}]" for i in reversed(idx))


@dataclass(frozen=True, slots=True)
class View:
    """A compiled signal view: `elements(L, ctx)` -> (rank or None for own, flat offsets)."""

    signal: SignalInfo
    elements: Callable[[list, tuple], tuple[int | None, tuple[int, ...]]]
    remote: bool  # written with '@'


@dataclass(frozen=True, slots=True)
class Instr:
    op: int
    span: Span
    text: str
    a: Any = None  # ASSIGN: slot; JUMP: target; BRANCH/ASSERT: cond fn; NOTIFY/WAIT/TEST/RESET: View
    b: Any = None  # ASSIGN: value fn; BRANCH: target when false; NOTIFY/WAIT/TEST: value fn
    c: Any = None  # NOTIFY: op; WAIT/TEST: cmp
    d: Any = None  # TEST: destination slot
    keep: tuple[bool, ...] = ()  # visible instrs: which local slots are in scope here


@dataclass(frozen=True, slots=True)
class Code:
    instrs: tuple[Instr, ...]
    nslots: int
    slot_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Program:
    name: str
    file: str
    source: str
    params: tuple[tuple[str, int], ...]
    nranks: int
    nblocks: int
    signals: tuple[SignalInfo, ...]
    elems_per_rank: int
    kernel: Code
    host: Code
    clean_exit: bool
    expects: tuple[str, ...]
    uses_launch_id: bool

"""The typed program IR: plain frozen data, every node with its span; the whole Program pickles.

Three layers, each produced by one pass:
- expressions and signal views (`Expr`, `View`), built by the semantic checks (model/check.py);
- structured statements (`Stmt`: If, Loop, ...), the checked form of a process body, which a
  second frontend can emit too;
- flat instructions (`Instr`: one class per kind), produced by lowering (model/lower.py).
  `Jump`/`Branch` targets are instruction indices; visible instructions (signal operations
  and host coordination) are the steps of the transition system, the others run invisibly.

Executable closures are built from this IR in one place, model/compile.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from model.errors import Span

from model.vocabulary import ATOMIC_ADD, CMPS, SET  # noqa: F401  (the names the IR uses)

NOTIFY_OPS = (SET, ATOMIC_ADD)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
BUILTINS = ("rank", "block", "launch_id")
MAX_CHOICES = 1024  # most values one `any(lo, hi)` may range over
MAX_ARRAY = 64  # most elements of one local array

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Const:
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Local:
    slot: int
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class ArrayRead:
    """`a[i]` of a local array: element `elems[i]` (each one a local of its own); an index
    outside 0 .. len(elems) - 1 is a run-time `error` at `span`."""

    elems: tuple[Local, ...]
    index: "Expr"
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class Builtin:
    """`rank`, `block` or `launch_id` of the running process."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "-" | "!" | "~" | "bool" (C's normalization to 0/1)
    operand: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # + - * / % << >> & | ^ == != < <= > >= && || min max
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class Select:
    """`test ? then : orelse`."""

    test: "Expr"
    then: "Expr"
    orelse: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class TestExpr:
    """A TTEST inside an expression of a structured statement; lowering hoists it into a
    `Test` instruction, so flat code never contains one."""

    view: "View"
    value: "Expr"
    cmp: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class LoadExpr:
    """LOAD(ref): a plain GM load of one signal element (hoisted like TestExpr)."""

    view: "View"
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class FetchAddExpr:
    view: "View"
    value: "Expr"
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class CasExpr:
    view: "View"
    expected: "Expr"
    new: "Expr"
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class TestEventExpr:
    slot: int  # the event's local
    event: int  # the event's number in its code (its hb component)
    name: str
    span: Span
    text: str


Expr = Union[Const, Local, ArrayRead, Builtin, Unary, Binary, Select, TestExpr, LoadExpr, FetchAddExpr, CasExpr, TestEventExpr]
STEP_EXPRS = (TestExpr, LoadExpr, FetchAddExpr, CasExpr, TestEventExpr)  # visible steps inside expressions


def walk(root):
    """Every expression node in `root` (an expression, a view, or None), views' included."""
    stack = [root]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        if isinstance(x, Unary):
            stack.append(x.operand)
        elif isinstance(x, Binary):
            stack += (x.left, x.right)
        elif isinstance(x, Select):
            stack += (x.test, x.then, x.orelse)
        elif isinstance(x, ArrayRead):
            stack += (x.index, *x.elems)
        elif isinstance(x, TestExpr):
            stack += (x.view, x.value)
        elif isinstance(x, LoadExpr):
            stack.append(x.view)
        elif isinstance(x, FetchAddExpr):
            stack += (x.view, x.value)
        elif isinstance(x, CasExpr):
            stack += (x.view, x.expected, x.new)
        elif isinstance(x, View):
            stack.append(x.at)
            for sel in x.selectors:
                stack += (sel.expr,) if isinstance(sel, Index) else (sel.start, sel.stop, sel.step)

# ---------------------------------------------------------------- signal views


@dataclass(frozen=True, slots=True)
class SignalInfo:
    name: str
    dims: tuple[int, ...]
    init: int
    offset: int  # first element within one rank's block of signal memory
    size: int
    span: Span

    def index_of(self, flat: int) -> tuple[int, ...]:
        idx = []
        for d in reversed(self.dims):
            idx.append(flat % d)
            flat //= d
        return tuple(reversed(idx))

    def element_name(self, flat: int) -> str:
        return self.name + "".join(f"[{i}]" for i in self.index_of(flat))


@dataclass(frozen=True, slots=True)
class Index:
    expr: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Slice:
    start: Expr | None
    stop: Expr | None
    step: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Layout:
    """A declared view (`view g[R][C] = s[OFF::STRIDE];`): position (i0, i1, ...) of `g` is
    element OFF + i0 * strides[0] + i1 * strides[1] + ... of the flat signal `s`."""

    name: str
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    span: Span


@dataclass(frozen=True, slots=True)
class View:
    """Elements of a signal in row-major order: one selector per leading dimension (the
    others are whole), on rank `at` (None: the own rank). With a `layout`, the selectors
    index the declared view's dimensions instead of the signal's."""

    signal: SignalInfo
    selectors: tuple[Index | Slice, ...]
    at: Expr | None
    span: Span
    layout: Layout | None = None

    def shape(self) -> tuple[str, tuple[int, ...], tuple[int, ...], int]:
        """(name, dims, strides in elements, first element) of what the selectors index."""
        if self.layout is not None:
            lay = self.layout
            return lay.name, lay.dims, lay.strides, lay.offset
        strides, acc = [], 1
        for d in reversed(self.signal.dims):
            strides.append(acc)
            acc *= d
        return self.signal.name, self.signal.dims, tuple(reversed(strides)), 0


# ---------------------------------------------------------------- structured statements


@dataclass(frozen=True, slots=True)
class SAssign:
    """`int x = e;`, `x = e;`, `x += e;` ... (the checker has folded the operator in)."""

    slot: int
    value: Expr
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SArrayAssign:
    """`a[i] = e;` on a local array (the checker has folded `+=`, `-=`, `++`, `--` in)."""

    elems: tuple[Local, ...]
    index: Expr
    value: Expr
    name: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SIf:
    cond: Expr
    then: "Stmt"
    orelse: "Stmt | None"
    span: Span
    text: str  # the condition's text


@dataclass(frozen=True, slots=True)
class SLoop:
    """`while (cond) body` or the loop part of a `for` (its init is a statement before it)."""

    cond: Expr
    body: "Stmt"
    update: "SAssign | SArrayAssign | None"
    span: Span
    text: str  # the condition's text


@dataclass(frozen=True, slots=True)
class SBlock:
    body: tuple["Stmt", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SJump:
    kind: str  # "break" | "continue" | "return"
    span: Span


@dataclass(frozen=True, slots=True)
class SAssert:
    cond: Expr
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SNotify:
    view: View
    value: Expr
    op: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SWait:
    view: View
    value: Expr
    cmp: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SEval:
    """An expression statement: a TTEST whose result is dropped still reads."""

    expr: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class SLaunch:
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SReset:
    view: View
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SHostBarrier:
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SCopy:
    """TPUT/TGET (and their async forms, with `event` the event's local and number)."""

    kind: str  # "put" | "get"
    dst: View
    src: View
    atomic: bool
    event: tuple[int, int] | None  # (slot, event number)
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SAccess:
    view: View
    write: bool
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SWaitEvent:
    slot: int
    event: int
    name: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SFence:
    kind: str  # "pipe" (pipe_barrier(PIPE_ALL)) | "dsb" (dsb(DSB_DDR)) | "full" (fence)
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SStore:
    view: View
    value: Expr
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SObserve:
    cond: Expr
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SChoose:
    """`int x = any(lo, hi);` or `x = any(lo, hi);`: the process picks any value in [lo, hi]."""

    slot: int
    name: str
    lo: Expr
    hi: Expr
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class SBlockBarrier:
    span: Span
    text: str


Stmt = Union[SAssign, SArrayAssign, SChoose, SBlockBarrier, SIf, SLoop, SBlock, SJump, SAssert, SNotify, SWait, SEval, SLaunch, SReset, SHostBarrier,
             SCopy, SAccess, SWaitEvent, SFence, SStore, SObserve]

# ---------------------------------------------------------------- flat instructions


@dataclass(frozen=True, slots=True)
class Assign:
    slot: int
    value: Expr
    span: Span
    text: str
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Jump:
    target: int
    span: Span
    text: str
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Branch:
    """Go on when `cond` holds, else jump to `target`."""

    cond: Expr
    target: int
    span: Span
    text: str
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Assert:
    cond: Expr
    span: Span
    text: str
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Return:
    span: Span
    text: str = "return"
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Notify:
    view: View
    value: Expr
    op: str
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Wait:
    view: View
    value: Expr
    cmp: str
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Test:
    """One pass of TTEST reads; the result (0 or 1) goes to local `dest`."""

    view: View
    value: Expr
    cmp: str
    dest: int
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Reset:
    view: View
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Launch:
    """Start this rank's kernel on all its blocks (the host then stands at the `Join`)."""

    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Join:
    """The host continues once all blocks of its launch have returned."""

    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class HostBarrier:
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Observe:
    """Like Assert, but the process goes on."""

    cond: Expr
    span: Span
    text: str
    visible: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Load:
    view: View
    dest: int
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Store:
    view: View
    value: Expr
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class FetchAdd:
    view: View
    value: Expr
    dest: int
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Cas:
    view: View
    expected: Expr
    new: Expr
    dest: int
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Copy:
    """TPUT/TGET of buffer data: reads `src`, writes `dst` (the async forms with `event`)."""

    kind: str  # "put" | "get"
    dst: View
    src: View
    atomic: bool
    event: tuple[int, int] | None  # (slot, event number)
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Access:
    """READ(view) / WRITE(view) of buffer data."""

    view: View
    write: bool
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class WaitEvent:
    slot: int
    event: int
    name: str
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class TestEvent:
    slot: int
    event: int
    name: str
    dest: int
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Fence:
    kind: str  # "pipe" | "dsb" | "full"
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Choose:
    """A nondeterministic choice: local `slot` takes each value of [lo, hi] in its own
    successor (a visible step that touches no signal). lo > hi, or a range of more than
    MAX_CHOICES values, is a run-time `error`."""

    slot: int
    name: str
    lo: Expr
    hi: Expr
    span: Span
    text: str
    visible: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class BlockBarrier:
    """`block_barrier;` in the kernel: every block of the rank's launch waits for all the
    others (SyncAll), then all pass together in one joint step."""

    span: Span
    text: str
    visible: ClassVar[bool] = True


Instr = Union[Choose, BlockBarrier, Assign, Jump, Branch, Assert, Return, Notify, Wait, Test, Reset, Launch, Join, HostBarrier, Observe,
              Load, Store, FetchAdd, Cas, Copy, Access, WaitEvent, TestEvent, Fence]
SIGNAL_INSTRS = (Notify, Wait, Test, Reset, Load, Store, FetchAdd, Cas)  # the instructions with a signal view
READ_INSTRS = (Wait, Test)  # the waits: reads with a comparison
SIGNAL_READS = (Wait, Test, Load, FetchAdd, Cas)  # every instruction that reads a signal element


@dataclass(frozen=True, slots=True)
class Code:
    """The flat code of the kernel or of the host."""

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
    buffers: tuple[SignalInfo, ...] = ()  # data buffers, laid out like signals (init unused)
    data_per_rank: int = 0
    grains: tuple[int, ...] = ()  # per buffer: accesses touch whole aligned blocks of this many elements (model/grain.py)
    events: int = 0  # most `event` declarations in one code (each one an hb component per process)
    warnings: tuple = ()  # SpecWarnings of the semantic checks

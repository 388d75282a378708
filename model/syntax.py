"""Syntax tree of a .sig spec. Every node carries the span it was parsed from."""

from __future__ import annotations

from dataclasses import dataclass

from model.errors import Span

# ---- expressions ----


@dataclass(frozen=True, slots=True)
class IntLit:
    span: Span
    value: int


@dataclass(frozen=True, slots=True)
class Name:
    span: Span
    id: str


@dataclass(frozen=True, slots=True)
class BinOp:
    span: Span
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class UnOp:
    span: Span
    op: str
    operand: "Expr"


@dataclass(frozen=True, slots=True)
class Cond:
    span: Span
    test: "Expr"
    then: "Expr"
    orelse: "Expr"


@dataclass(frozen=True, slots=True)
class MinMax:
    span: Span
    fn: str  # "min" | "max"
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class Any:
    """`any(lo, hi)`: a nondeterministic choice of a value in [lo, hi]; only the whole right-hand
    side of a local declaration or assignment (the checker refuses it elsewhere)."""

    span: Span
    lo: "Expr"
    hi: "Expr"


@dataclass(frozen=True, slots=True)
class Elem:
    """`a[i]`: an element of a local array (a name with one index)."""

    span: Span
    name: str
    index: "Expr"


@dataclass(frozen=True, slots=True)
class OpName:
    """A notify op or wait comparison as written: `EQ`, `WaitCmp::EQ`, `comm::WaitCmp::EQ`."""

    span: Span
    parts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Index:
    span: Span
    expr: "Expr"


@dataclass(frozen=True, slots=True)
class Slice:
    span: Span
    start: "Expr | None"
    stop: "Expr | None"
    step: "Expr | None"


@dataclass(frozen=True, slots=True)
class SigView:
    span: Span
    name: str
    selectors: tuple[Index | Slice, ...]
    at: "Expr | None"


@dataclass(frozen=True, slots=True)
class Test:
    """TTEST(view, value, cmp) used as a bool expression."""

    span: Span
    view: SigView
    value: "Expr"
    cmp: OpName


@dataclass(frozen=True, slots=True)
class TestEvent:
    """TEST_EVENT(e): whether the async transfer of event `e` has completed."""

    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Load:
    span: Span
    ref: SigView


@dataclass(frozen=True, slots=True)
class FetchAdd:
    span: Span
    ref: SigView
    value: "Expr"


@dataclass(frozen=True, slots=True)
class Cas:
    span: Span
    ref: SigView
    expected: "Expr"
    new: "Expr"


Expr = IntLit | Name | Elem | BinOp | UnOp | Cond | MinMax | Any | Test | TestEvent | Load | FetchAdd | Cas
SIGNAL_CALLS = (Test, TestEvent, Load, FetchAdd, Cas)  # visible steps inside expressions

# ---- statements ----


@dataclass(frozen=True, slots=True)
class VarDecl:
    span: Span
    type: str  # "int" | "bool"
    name: str
    init: Expr


@dataclass(frozen=True, slots=True)
class ArrayDecl:
    """`int a[N] = {e0, e1, ...};`: a local array of constant size N (missing items are 0, as in C)."""

    span: Span
    name: str
    size: Expr
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ElemAssign:
    """`a[i] = e;`, `a[i] += e;`, `a[i]++;` ... on a local array element."""

    span: Span
    name: str
    index: Expr
    op: str  # "=", "+=", "-="
    value: Expr


@dataclass(frozen=True, slots=True)
class Assign:
    span: Span
    name: str
    op: str  # "=", "+=", "-="
    value: Expr


@dataclass(frozen=True, slots=True)
class If:
    span: Span
    cond: Expr
    then: "Stmt"
    orelse: "Stmt | None"


@dataclass(frozen=True, slots=True)
class For:
    span: Span
    init: "VarDecl | Assign"
    cond: Expr
    update: Assign
    body: "Stmt"


@dataclass(frozen=True, slots=True)
class While:
    span: Span
    cond: Expr
    body: "Stmt"


@dataclass(frozen=True, slots=True)
class Jump:
    span: Span
    kind: str  # "break" | "continue" | "return"


@dataclass(frozen=True, slots=True)
class Block:
    span: Span
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class Assert:
    span: Span
    cond: Expr


@dataclass(frozen=True, slots=True)
class Notify:
    span: Span
    ref: SigView
    value: Expr
    op: OpName


@dataclass(frozen=True, slots=True)
class Wait:
    span: Span
    view: SigView
    value: Expr
    cmp: OpName


@dataclass(frozen=True, slots=True)
class ExprStmt:
    span: Span
    expr: Expr


@dataclass(frozen=True, slots=True)
class PipeBarrier:
    span: Span
    pipe: str


@dataclass(frozen=True, slots=True)
class Dsb:
    span: Span
    arg: str


@dataclass(frozen=True, slots=True)
class Fence:
    span: Span


@dataclass(frozen=True, slots=True)
class Copy:
    """TPUT(dst @ r, src[, AtomicAdd]) or TGET(dst, src @ r); with `event`, the async forms."""

    span: Span
    kind: str  # "put" | "get"
    dst: SigView
    src: SigView
    op: "OpName | None" = None
    event: str | None = None


@dataclass(frozen=True, slots=True)
class Access:
    """READ(view) or WRITE(view)."""

    span: Span
    view: SigView
    write: bool


@dataclass(frozen=True, slots=True)
class WaitEvent:
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Store:
    span: Span
    ref: SigView
    value: "Expr"


@dataclass(frozen=True, slots=True)
class Observe:
    span: Span
    cond: "Expr"


@dataclass(frozen=True, slots=True)
class Launch:
    span: Span


@dataclass(frozen=True, slots=True)
class Reset:
    span: Span
    view: SigView


@dataclass(frozen=True, slots=True)
class HostBarrier:
    span: Span


@dataclass(frozen=True, slots=True)
class BlockBarrier:
    span: Span


Stmt = (VarDecl | ArrayDecl | ElemAssign | Assign | If | For | While | Jump | Block | Assert | Notify | Wait | ExprStmt
        | PipeBarrier | Dsb | Fence | Copy | Access | WaitEvent | Store | Observe | Launch | Reset | HostBarrier
        | BlockBarrier)

# ---- declarations ----


@dataclass(frozen=True, slots=True)
class Decl:
    """A top-level declaration. `kind` is one of protocol, param, const, ranks, blocks,
    signal, buffer, view, kernel, host, check, expect; the other fields are set as the kind needs."""

    span: Span
    kind: str
    name: str | None = None
    value: Expr | None = None
    dims: tuple[Expr, ...] = ()
    body: Block | None = None
    target: "SigView | None" = None  # a view declaration's signal
    for_all: tuple[Name, ...] = ()  # `expect ok for all N, L;`: the params claimed for every value


@dataclass(frozen=True, slots=True)
class Spec:
    file: str
    source: str
    decls: tuple[Decl, ...]

    def for_all(self) -> tuple[str, ...] | None:
        """The params of the spec's `expect ok for all ...;` line (None without one)."""
        d = next((d for d in self.decls if d.kind == "expect" and d.for_all), None)
        return None if d is None else tuple(n.id for n in d.for_all)

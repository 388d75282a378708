"""Symbolic sizes: which constants of a checked program came from which param.

The semantic checks fold every param, const and `nranks` into an `ir.Const` at the span of
the name that was read. `Sizes.of(spec, program, symbolic)` recovers the provenance from
that span: a Const whose source text is an integer literal is that literal; one whose text is
a name is that param (left symbolic when it is in `symbolic`, else its value), `nranks` is
the ranks param, a const is its value when it does not depend on a symbolic param (or the
param itself when it is a plain alias). Anything else raises Unsupported with the location.
Known limitation: consts computed from a symbolic param (`const M = 2 * N`) are refused (signal
dimensions computed from them, `signal s[2 * N]`, are expressions: `dims_of`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from model import ir, syntax as S
from model.check import source_text
from model.errors import Span

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|[0-9]+)\Z")
SYNTHETIC = Span("<prove>", 0, 0, 0, 0)  # the span of constants the prover makes itself


class Unsupported(Exception):
    """A spec (or a part of it) outside what the prover handles; `span` says where."""

    def __init__(self, message: str, span: Span | None):
        super().__init__(message)
        self.message = message
        self.span = span

    def render(self) -> str:
        return f"{self.span}: {self.message}" if self.span is not None else self.message


def _names(e) -> set[str]:
    out, stack = set(), [e]
    while stack:
        x = stack.pop()
        if isinstance(x, S.Name):
            out.add(x.id)
        elif hasattr(x, "__dataclass_fields__"):
            for f in x.__dataclass_fields__:
                v = getattr(x, f)
                if isinstance(v, tuple):
                    stack += [y for y in v if hasattr(y, "__dataclass_fields__")]
                elif hasattr(v, "__dataclass_fields__") and not isinstance(v, Span):
                    stack.append(v)
    return out


@dataclass(frozen=True)
class Sizes:
    """Each size-like name as a symbol (str) or a fixed int; signal dims likewise."""

    symbolic: tuple[str, ...]  # params left symbolic
    ranks: str | int  # what `nranks` is
    values: tuple[tuple[str, str | int | None], ...]  # every param and const: symbol, value, None (fixed)
    dims: tuple[tuple[str, tuple[str | int, ...]], ...]  # per signal
    source: str
    base: tuple[tuple[str, int], ...] = ()  # the symbolic params' values in the program compiled
    _nodes: dict = field(default_factory=dict, compare=False, repr=False)  # span -> syntax expression
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, spec: S.Spec, program: ir.Program, symbolic: set[str]) -> "Sizes":
        params = dict(program.params)
        for name in symbolic:
            if name not in params:
                raise Unsupported(f"--all {name}: the spec declares no param '{name}'", None)
        values: dict[str, str | int | None] = {k: (k if k in symbolic else v) for k, v in params.items()}
        decls = spec.decls
        for d in decls:
            if d.kind == "const":
                used = _names(d.value)
                if not any(isinstance(values.get(u), str) for u in used):
                    values[d.name] = None  # fixed: every use keeps its folded value
                elif isinstance(d.value, S.Name) and isinstance(values.get(d.value.id), str):
                    values[d.name] = values[d.value.id]
                else:
                    raise Unsupported(f"const '{d.name}' is computed from a param left symbolic; only plain "
                                      f"aliases of such params are supported", d.span)
        ranks_decl = next(d for d in decls if d.kind == "ranks")
        ranks = _size_expr(ranks_decl.value, values, program.nranks)
        blocks = next((d for d in decls if d.kind == "blocks"), None)
        if blocks is not None and _size_expr(blocks.value, values, program.nblocks) != 1:
            raise Unsupported("more than one kernel block per rank", blocks.span)
        if isinstance(ranks, int) and symbolic:
            raise Unsupported(f"`ranks` does not name a symbolic param ({', '.join(sorted(symbolic))})",
                              ranks_decl.span)
        dims = []
        sig_decls = {d.name: d for d in decls if d.kind == "signal"}
        for sig in program.signals:
            d = sig_decls[sig.name]
            dims.append((sig.name, tuple(_size_expr(e, values, v, True) for e, v in zip(d.dims, sig.dims)), sig.dims))
            if d.value is not None and _names(d.value) & set(k for k, v in values.items() if isinstance(v, str)):
                raise Unsupported("a signal's initial value depends on a symbolic param", d.span)
        sym_names = {k for k, v in values.items() if isinstance(v, str)} | ({"nranks"} if isinstance(ranks, str) else set())
        nodes: dict = {}
        for x in _syntax_nodes(spec):
            if isinstance(x, S.Cond) and _names(x.test) & sym_names:
                # constant folding keeps only the branch taken (its own span, a plain literal):
                # the choice would be lost, so the size-dependent choice is refused
                raise Unsupported("a conditional expression whose test depends on a symbolic size", x.span)
            sp = x.span
            nodes.setdefault((sp.line, sp.col, sp.end_line, sp.end_col), x)
        base = tuple((k, params[k]) for k in sorted(symbolic))
        sizes = cls(tuple(sorted(symbolic)), ranks, tuple(values.items()), (), program.source, base, nodes)
        computed = tuple((name, tuple(sizes._dimension(d, v) for d, v in zip(ds, folded))) for name, ds, folded in dims)
        return dataclasses.replace(sizes, dims=computed)

    def _dimension(self, d, folded: int):
        """A signal dimension: kept as `_size_expr` gave it, or, computed from symbolic params
        (`signal ready[2 * (N - 1)]`), the expression over them (checked to give the folded
        value at the sizes compiled)."""
        if isinstance(d, (str, int)):
            return d
        e = self._symbolic(d, ir.Const(folded, d.span))
        if _evaluate(e, dict(self.base)) != folded:
            raise Unsupported(f"the dimension does not evaluate to its folded value {folded}", d.span)
        return e

    def const(self, c: ir.Const) -> ir.Expr:
        """What a Const of the program stands for: a Const (SYNTHETIC span) when it is fixed,
        else an expression whose `ir.Builtin` leaves name symbolic params."""
        if c.span == SYNTHETIC:
            return c
        hit = self._memo.get(c)
        if hit is None:
            hit = self._memo[c] = self._expand(c)
        return hit

    def _expand(self, c: ir.Const) -> ir.Expr:
        text = source_text(self.source, c.span)
        if _INT.match(text) or text in ("true", "false", "++", "--"):  # `i++` adds a Const 1 at the `++`
            return ir.Const(c.value, SYNTHETIC)
        node = self._nodes.get((c.span.line, c.span.col, c.span.end_line, c.span.end_col))
        if node is None:
            raise Unsupported(f"cannot tell where the constant {c.value} ('{text}') comes from", c.span)
        e = self._symbolic(node, c)
        if not any(isinstance(x, ir.Builtin) for x in ir.walk(e)):
            return ir.Const(c.value, SYNTHETIC)
        if _evaluate(e, dict(self.base)) != c.value:
            raise Unsupported(f"the constant '{text}' does not evaluate to its folded value {c.value}", c.span)
        return e

    def _symbolic(self, n, c: ir.Const) -> ir.Expr:
        values = dict(self.values)
        if isinstance(n, S.IntLit):
            return ir.Const(n.value, SYNTHETIC)
        if isinstance(n, S.Name):
            v = self.ranks if n.id == "nranks" else values.get(n.id, "?")
            if v is None:
                raise Unsupported(f"const '{n.id}' in a constant expression with a symbolic param", c.span)
            if isinstance(v, str) and v != "?":
                return ir.Builtin(v, SYNTHETIC)
            if isinstance(v, int):
                return ir.Const(v, SYNTHETIC)
        elif isinstance(n, S.UnOp):
            a = self._symbolic(n.operand, c)
            return a if n.op == "+" else ir.Unary(n.op, a, SYNTHETIC)
        elif isinstance(n, (S.BinOp, S.MinMax)):
            op = n.op if isinstance(n, S.BinOp) else n.fn
            return ir.Binary(op, self._symbolic(n.left, c), self._symbolic(n.right, c), SYNTHETIC)
        elif isinstance(n, S.Cond):
            return ir.Select(self._symbolic(n.test, c), self._symbolic(n.then, c), self._symbolic(n.orelse, c),
                             SYNTHETIC)
        raise Unsupported(f"cannot tell where the constant {c.value} comes from", c.span)

    def dims_of(self, signal: str) -> tuple[str | int | ir.Expr, ...]:
        """Each dimension: a symbolic param's name, a fixed int, or an expression over
        symbolic params (its `ir.Builtin` leaves name them)."""
        return dict(self.dims)[signal]

    def dim_value(self, d, values: dict) -> int:
        """A dimension of `dims_of` at the params `values` (symbol -> int)."""
        if isinstance(d, str):
            return values[d]
        return d if isinstance(d, int) else _evaluate(d, values)


def _size_expr(e, values: dict, folded: int, computed: bool = False):
    """A size expression: a name of a symbolic param, or anything without one (its folded value);
    with `computed`, any other expression is returned as it is (a signal dimension)."""
    if e is None:
        return folded
    used = _names(e)
    sym = {u for u in used if isinstance(values.get(u), str)}
    if not sym:
        return folded
    if isinstance(e, S.Name):
        return values[e.id]
    if computed:
        return e  # Sizes._dimension makes it an expression
    raise Unsupported("a size computed from a symbolic param; only the param itself is supported", e.span)


_EXPR_NODES = (S.IntLit, S.Name, S.BinOp, S.UnOp, S.Cond, S.MinMax)


def _syntax_nodes(spec: S.Spec):
    """Every expression node of the spec (outermost first, so the widest node wins a span)."""
    stack = [spec]
    while stack:
        x = stack.pop()
        if isinstance(x, _EXPR_NODES):
            yield x
        if isinstance(x, tuple):
            stack += reversed(x)
        elif hasattr(x, "__dataclass_fields__") and not isinstance(x, Span):
            stack += reversed([getattr(x, f) for f in x.__dataclass_fields__])


def _evaluate(e: ir.Expr, symbols: dict) -> int:
    from model import cint  # noqa: PLC0415
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Builtin):
        return symbols[e.name]
    if isinstance(e, ir.Unary):
        return cint.UNARY[e.op](_evaluate(e.operand, symbols), e.span)
    if isinstance(e, ir.Binary):
        return cint.BINARY[e.op](_evaluate(e.left, symbols), _evaluate(e.right, symbols), e.span)
    if isinstance(e, ir.Select):
        return _evaluate(e.then if _evaluate(e.test, symbols) else e.orelse, symbols)
    raise AssertionError(e)

"""Expressions of process code and constants, compiled to closures `fn(locals, ctx)` with C
integer semantics (truncating division, remainder with the dividend's sign), and signal views
compiled to `elements(locals, ctx) -> (rank or None, flat offsets)`. Run-time faults raise
ModelError. Locals are mathematical integers, bounded by 2^64 in magnitude after `+`, `-`, `*` and `<<`.
"""

from __future__ import annotations

from dataclasses import dataclass

from model import ir
from model import syntax as S
from model.errors import ModelError, Span

MAX_MAGNITUDE = 2**64

def _cdiv(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise ModelError("division by zero", span)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise ModelError("remainder by zero", span)
    return a - b * _cdiv(a, b, span)


def big(v: int, span: Span) -> int:
    if -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
        return v
    raise ModelError("integer value too large (beyond 2^64)", span)


def _shift(a: int, b: int, left: bool, span: Span) -> int:
    if not 0 <= b <= 63:
        raise ModelError(f"shift count {b} is outside 0..63", span)
    return big(a << b, span) if left else a >> b


_BINARY = {
    "+": lambda a, b, s: big(a + b, s),
    "-": lambda a, b, s: big(a - b, s),
    "*": lambda a, b, s: big(a * b, s),
    "/": _cdiv,
    "%": _cmod,
    "<<": lambda a, b, s: _shift(a, b, True, s),
    ">>": lambda a, b, s: _shift(a, b, False, s),
    "&": lambda a, b, s: a & b,
    "|": lambda a, b, s: a | b,
    "^": lambda a, b, s: a ^ b,
    "==": lambda a, b, s: int(a == b),
    "!=": lambda a, b, s: int(a != b),
    "<": lambda a, b, s: int(a < b),
    "<=": lambda a, b, s: int(a <= b),
    ">": lambda a, b, s: int(a > b),
    ">=": lambda a, b, s: int(a >= b),
}


@dataclass
class Compiled:
    """A compiled expression: a closure, and its value when it is a compile-time constant."""

    fn: ir.Fn
    const: int | None = None


def constant(v: int) -> Compiled:
    return Compiled(lambda L, c, v=v: v, v)


def compile_expr(e: S.Expr, resolve, error, max_depth: int, depth: int = 0) -> Compiled | None:
    """Compile `e` to a closure `fn(locals, ctx)`; constant sub-expressions are folded. `resolve`
    compiles a name (or reports it and returns None); `error(message, span)` reports the rest."""
    if depth > max_depth:
        error(f"expression nested more than {max_depth} deep", e.span)
        return None
    if isinstance(e, S.IntLit):
        return constant(e.value)
    if isinstance(e, S.Name):
        return resolve(e)
    if isinstance(e, S.Test):
        error("TTEST cannot be used here (not in a constant, a signal index or an '@' rank)", e.span)
        return None
    if isinstance(e, S.UnOp):
        a = compile_expr(e.operand, resolve, error, max_depth, depth + 1)
        if a is None:
            return None
        f = a.fn
        if e.op == "+":
            return a
        if e.op == "-":
            fn = lambda L, c: -f(L, c)  # noqa: E731
        elif e.op == "!":
            fn = lambda L, c: int(not f(L, c))  # noqa: E731
        else:
            fn = lambda L, c: ~f(L, c)  # noqa: E731
        return _fold(fn, a.const is not None)
    if isinstance(e, S.BinOp):
        a = compile_expr(e.left, resolve, error, max_depth, depth + 1)
        b = compile_expr(e.right, resolve, error, max_depth, depth + 1)
        if a is None or b is None:
            return None
        fa, fb, span = a.fn, b.fn, e.span
        if e.op == "&&":
            fn = lambda L, c: int(bool(fa(L, c)) and bool(fb(L, c)))  # noqa: E731
        elif e.op == "||":
            fn = lambda L, c: int(bool(fa(L, c)) or bool(fb(L, c)))  # noqa: E731
        else:
            op = _BINARY[e.op]
            fn = lambda L, c: op(fa(L, c), fb(L, c), span)  # noqa: E731
        return _fold(fn, a.const is not None and b.const is not None)
    if isinstance(e, S.Cond):
        t = compile_expr(e.test, resolve, error, max_depth, depth + 1)
        a = compile_expr(e.then, resolve, error, max_depth, depth + 1)
        b = compile_expr(e.orelse, resolve, error, max_depth, depth + 1)
        if t is None or a is None or b is None:
            return None
        ft, fa, fb = t.fn, a.fn, b.fn
        fn = lambda L, c: fa(L, c) if ft(L, c) else fb(L, c)  # noqa: E731
        return _fold(fn, t.const is not None and a.const is not None and b.const is not None)
    if isinstance(e, S.MinMax):
        a = compile_expr(e.left, resolve, error, max_depth, depth + 1)
        b = compile_expr(e.right, resolve, error, max_depth, depth + 1)
        if a is None or b is None:
            return None
        fa, fb, pick = a.fn, b.fn, (min if e.fn == "min" else max)
        fn = lambda L, c: pick(fa(L, c), fb(L, c))  # noqa: E731
        return _fold(fn, a.const is not None and b.const is not None)
    raise AssertionError(f"unknown expression node {e!r}")


def _fold(fn: ir.Fn, is_constant: bool) -> Compiled:
    if not is_constant:
        return Compiled(fn)
    try:
        return constant(fn([], (0, 0, 0)))
    except ModelError:
        return Compiled(fn)  # reported when (and if) a process evaluates it


def view_elements(sig: ir.SignalInfo, parts, at, nranks: int, span: Span):
    """Build `elements(L, ctx) -> (rank or None, flat offsets)` for a view of `sig`."""
    dims = sig.dims
    strides = []
    acc = 1
    for d in reversed(dims):
        strides.append(acc)
        acc *= d
    strides.reverse()

    def elements(L, c):
        ranges = []
        for k, d in enumerate(dims):
            if k >= len(parts):
                ranges.append(range(d))
                continue
            p = parts[k]
            if p[0] == "i":
                i = p[1](L, c)
                if not 0 <= i < d:
                    raise ModelError(f"index {i} is out of bounds for dimension {k} of '{sig.name}' (size {d})", p[2])
                ranges.append((i,))
            else:
                start = p[1](L, c) if p[1] else 0
                stop = p[2](L, c) if p[2] else d
                step = p[3](L, c) if p[3] else 1
                if step < 1:
                    raise ModelError(f"slice step {step} must be at least 1", p[4])
                if not (0 <= start <= d and 0 <= stop <= d):
                    raise ModelError(f"slice {start}:{stop} is out of bounds for dimension {k} of '{sig.name}' "
                                     f"(size {d})", p[4])
                r = range(start, stop, step)
                if len(r) == 0:
                    raise ModelError(f"slice {start}:{stop} of '{sig.name}' is empty", p[4])
                ranges.append(r)
        flats = [0]
        for r, s in zip(ranges, strides):
            flats = [f + i * s for f in flats for i in r]
        rank = None
        if at is not None:
            rank = at(L, c)
            if not 0 <= rank < nranks:
                raise ModelError(f"rank {rank} is out of range (the spec has {nranks} ranks)", span)
        return rank, tuple(flats)

    return elements

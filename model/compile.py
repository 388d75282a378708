"""The one place where IR becomes executable: closures built from IR nodes (never from text).

`expr(e)` gives `fn(locals, ctx) -> int` with ctx = (rank, block, launch_id); `view(v, nranks)`
gives `elements(locals, ctx) -> (rank or None for the own rank, flat offsets)`. Run-time
faults raise ModelError with the span of the node at fault.
"""

from __future__ import annotations

from typing import Callable

from model import cint
from model import ir
from model.errors import ModelError

Fn = Callable[[tuple, tuple], int]
_CTX = {"rank": 0, "block": 1, "launch_id": 2}


def evaluate(e: ir.Expr) -> int:
    """The value of a constant expression (one without locals or built-ins)."""
    return expr(e)((), (0, 0, 0))


def expr(e: ir.Expr) -> Fn:
    if isinstance(e, ir.Const):
        v = e.value
        return lambda L, c: v
    if isinstance(e, ir.Local):
        s = e.slot
        return lambda L, c: L[s]
    if isinstance(e, ir.ArrayRead):
        return _array_read(e)
    if isinstance(e, ir.Builtin):
        k = _CTX[e.name]
        return lambda L, c: c[k]
    if isinstance(e, ir.Unary):
        f, span = expr(e.operand), e.span
        if e.op == "-":
            return lambda L, c: -f(L, c)
        if e.op == "!":
            return lambda L, c: int(not f(L, c))
        if e.op == "~":
            return lambda L, c: ~f(L, c)
        return lambda L, c: int(bool(f(L, c)))
    if isinstance(e, ir.Binary):
        fa, fb, span = expr(e.left), expr(e.right), e.span
        if e.op == "&&":
            return lambda L, c: int(bool(fa(L, c)) and bool(fb(L, c)))
        if e.op == "||":
            return lambda L, c: int(bool(fa(L, c)) or bool(fb(L, c)))
        op = cint.BINARY[e.op]
        return lambda L, c: op(fa(L, c), fb(L, c), span)
    if isinstance(e, ir.Select):
        ft, fa, fb = expr(e.test), expr(e.then), expr(e.orelse)
        return lambda L, c: fa(L, c) if ft(L, c) else fb(L, c)
    raise AssertionError(f"not an executable expression: {e!r}")


def _array_read(e: ir.ArrayRead) -> Fn:
    fi, slots, name, span = expr(e.index), tuple(x.slot for x in e.elems), e.name, e.span
    n = len(slots)

    def read(L, c):
        i = fi(L, c)
        if not 0 <= i < n:
            raise ModelError(f"index {i} is out of bounds for local array '{name}' (size {n})", span)
        return L[slots[i]]

    return read


def view(v: ir.View, nranks: int):
    """`elements(L, ctx) -> (rank or None, flat offsets)` for a view (constant views precomputed)."""
    vname, dims, strides, first = v.shape()
    parts = []
    for sel in v.selectors:
        if isinstance(sel, ir.Index):
            parts.append(("i", expr(sel.expr), sel.span))
        else:
            parts.append(("s", *(expr(x) if x is not None else None for x in (sel.start, sel.stop, sel.step)),
                          sel.span))
    at = expr(v.at) if v.at is not None else None
    span = v.span

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
                    raise ModelError(f"index {i} is out of bounds for dimension {k} of '{vname}' (size {d})", p[2])
                ranges.append((i,))
            else:
                start = p[1](L, c) if p[1] else 0
                stop = p[2](L, c) if p[2] else d
                step = p[3](L, c) if p[3] else 1
                if step < 1:
                    raise ModelError(f"slice step {step} must be at least 1", p[4])
                if not (0 <= start <= d and 0 <= stop <= d):
                    raise ModelError(f"slice {start}:{stop} is out of bounds for dimension {k} of '{vname}' "
                                     f"(size {d})", p[4])
                r = range(start, stop, step)
                if len(r) == 0:
                    raise ModelError(f"slice {start}:{stop} of '{vname}' is empty", p[4])
                ranges.append(r)
        flats = _flats(first, dims, ranges, strides)
        rank = None
        if at is not None:
            rank = at(L, c)
            if not 0 <= rank < nranks:
                raise ModelError(f"rank {rank} is out of range (the spec has {nranks} ranks)", span)
        return rank, flats

    if at is None and all(_constant(sel) for sel in v.selectors):
        try:
            fixed = elements((), (0, 0, 0))
            return lambda L, c: fixed
        except ModelError:
            pass  # an out-of-bounds view is a run-time `error`, reported when executed
    return elements


def _flats(first: int, dims, ranges: list, strides) -> range | tuple:
    """The flat offsets of the selected elements in row-major order: a range when they are one
    contiguous run (a whole buffer of millions of elements is then no list), else a tuple."""
    run, k = 1, len(ranges)
    while k > 0 and strides[k - 1] == run and ranges[k - 1] == range(dims[k - 1]):
        k -= 1
        run *= dims[k]
    if k > 0 and strides[k - 1] == run and all(len(r) == 1 for r in ranges[:k - 1]):
        r = ranges[k - 1]
        if not isinstance(r, range) or r.step == 1:
            start = first + sum(x[0] * s for x, s in zip(ranges[:k - 1], strides)) + r[0] * run
            return range(start, start + len(r) * run)
    if k == 0:
        return range(first, first + run)
    flats = [first]
    for r, s in zip(ranges, strides):
        flats = [f + i * s for f in flats for i in r]
    return tuple(flats)


def _constant(sel) -> bool:
    if isinstance(sel, ir.Index):
        return isinstance(sel.expr, ir.Const)
    return all(x is None or isinstance(x, ir.Const) for x in (sel.start, sel.stop, sel.step))

"""The grain of each data buffer: the largest G such that every access to the buffer, in every
execution, touches whole aligned blocks of G elements (elements k*G .. k*G + G - 1).
Entry point: `grains(program)`.

A buffer carries no values, only the happens-before shadow of each element (model/hb.py).
Two elements of one block are touched by the same statements at the same steps, so they
always hold the same shadow and race together: the explorer keeps one shadow per block
(model/system.py) and the reports name the block's elements one by one, exactly as with one
shadow per element. That is what lets a production layout (TPUT of 4096-element tiles into a
36,864-element receive buffer) be explored in a few hundred shadow entries.

G comes from a divisibility analysis: for every expression, a number that always divides its
value (0 when the value is always 0): a constant divides itself, `a + b`, `a - b`, `a % b`,
`min`, `max` and `c ? a : b` are divided by the gcd of their operands' divisors, `a * b` by
the product, `a << k` by the divisor times 2^k; a local, at each instruction, by the gcd over
the assignments that may reach it (forward over the control flow from 0, every local's
initial value; a value read from a signal, a choice or an event is divided by 1 only).
Locals are mathematical integers (model/cint.py), so no wrap-around breaks it.

A view whose selectors leave trailing dimensions whole touches runs of T elements (T the
product of those dimensions) starting at multiples of what the selectors' divisors times
their strides share; a last selector that is a unit-step slice `a:b` makes one run from a*T
to b*T. G divides every such start and length, and the buffer's size. A buffer used through
a declared view (`view g[...] = buf[...]`) keeps G = 1. model/system.py checks at every
access that the offsets really are whole blocks (an internal error otherwise, never a
silently merged element).
"""

from __future__ import annotations

from math import gcd

from model import ir
from model.analysis import dest, successors


def grains(program: ir.Program) -> tuple[int, ...]:
    """G for each of `program.buffers` (in that order); 1 keeps one shadow per element."""
    if not program.buffers:
        return ()
    found = {b.name: 0 for b in program.buffers}
    for code in (program.kernel, program.host):
        for ins, divisors in zip(code.instrs, _local_divisors(code)):
            views = (ins.dst, ins.src) if isinstance(ins, ir.Copy) else (ins.view,) if isinstance(ins, ir.Access) else ()
            for v in views:
                if v.signal.name in found and divisors is not None:
                    found[v.signal.name] = gcd(found[v.signal.name], _view_divisor(v, divisors))
    return tuple(gcd(found[b.name], b.size) for b in program.buffers)


def _view_divisor(v: ir.View, divisors: tuple[int, ...]) -> int:
    """A number dividing the start and the length of every run of elements `v` touches."""
    if v.layout is not None:
        return 1
    _, dims, strides, _ = v.shape()
    n = len(v.selectors)
    trailing = 1
    for d in dims[n:]:
        trailing *= d
    if n == 0:
        return trailing
    g = 0
    for k, sel in enumerate(v.selectors):
        last = k == n - 1
        if isinstance(sel, ir.Index):
            g = gcd(g, trailing if last else _divisor(sel.expr, divisors) * strides[k])
            continue
        start = _divisor(sel.start, divisors) if sel.start is not None else 0
        step = _divisor(sel.step, divisors) if sel.step is not None else 1
        if not last:
            g = gcd(g, gcd(start, step) * strides[k])
        elif sel.step is None or (isinstance(sel.step, ir.Const) and sel.step.value == 1):
            stop = _divisor(sel.stop, divisors) if sel.stop is not None else dims[k]
            g = gcd(g, gcd(start, stop) * trailing)  # one run from start*T to stop*T
        else:
            g = gcd(g, trailing)  # runs of T at start*T, (start+step)*T, ...
    return g


def _local_divisors(code: ir.Code) -> list[tuple[int, ...] | None]:
    """Before each instruction of `code`, for each local a number dividing every value it may
    hold there (None: the instruction is unreachable). Forward over the control flow from
    every local at 0; where paths meet, the gcd."""
    before: list[tuple[int, ...] | None] = [None] * len(code.instrs)
    if not code.instrs:
        return before
    before[0] = (0,) * code.nslots
    work = [0]
    while work:  # each change strictly divides a value, so this ends
        pc = work.pop()
        ins, env = code.instrs[pc], before[pc]
        slot = dest(ins)
        if slot is not None or isinstance(ins, ir.TestEvent):
            out = list(env)
            if isinstance(ins, ir.TestEvent):
                out[ins.slot] = 1
            if slot is not None:
                out[slot] = _divisor(ins.value, env) if isinstance(ins, ir.Assign) else 1
            env = tuple(out)
        for nxt in successors(code, pc):
            old = before[nxt]
            new = env if old is None else tuple(gcd(a, b) for a, b in zip(old, env))
            if new != old:
                before[nxt] = new
                work.append(nxt)
    return before


def _divisor(e: ir.Expr, div: tuple[int, ...]) -> int:
    """A number that divides every value of `e` (0: e is always 0)."""
    if isinstance(e, ir.Const):
        return abs(e.value)
    if isinstance(e, ir.Local):
        return div[e.slot]
    if isinstance(e, ir.ArrayRead):
        return _gcd_all(div[x.slot] for x in e.elems)
    if isinstance(e, ir.Unary):
        return _divisor(e.operand, div) if e.op == "-" else 1
    if isinstance(e, ir.Select):
        return gcd(_divisor(e.then, div), _divisor(e.orelse, div))
    if isinstance(e, ir.Binary):
        if e.op in ("+", "-", "%", "min", "max"):
            return gcd(_divisor(e.left, div), _divisor(e.right, div))
        if e.op == "*":
            return _divisor(e.left, div) * _divisor(e.right, div)
        if e.op == "<<" and isinstance(e.right, ir.Const) and 0 <= e.right.value <= 63:
            return _divisor(e.left, div) << e.right.value
    return 1


def _gcd_all(values) -> int:
    g = 0
    for v in values:
        g = gcd(g, v)
    return g

"""Syntax expressions to typed IR expressions, with constant folding. Entry point: `build`.

Names are resolved by a callback (constants, locals, built-ins differ by context), TTESTs by
another (allowed in process code, refused in constants and signal indices). Sub-expressions
whose operands are all constants are folded with C semantics (model/cint.py), except where
folding would raise: such a fault stays in the code and is reported when executed.
"""

from __future__ import annotations

from typing import Callable

from model import cint
from model import ir
from model import syntax as S
from model.errors import ModelError

Resolve = Callable[..., "ir.Expr | None"]  # (Name) or (Elem, its index)
Error = Callable[[str, object], None]


def build(e: S.Expr, resolve: Resolve, error: Error, max_depth: int, test=None, depth: int = 0) -> ir.Expr | None:
    """The IR of `e`, or None after reporting an error. `test(node)` builds a TTEST, LOAD, FETCH_ADD,
    CAS or TEST_EVENT (None: refused)."""
    if depth > max_depth:
        error(f"expression nested more than {max_depth} deep", e.span)
        return None
    sub = lambda x: build(x, resolve, error, max_depth, test, depth + 1)  # noqa: E731
    if isinstance(e, S.IntLit):
        return ir.Const(e.value, e.span)
    if isinstance(e, S.Name):
        return resolve(e)
    if isinstance(e, S.Elem):  # a local array element: the callback resolves the array
        index = sub(e.index)
        return None if index is None else resolve(e, index)
    if isinstance(e, S.SIGNAL_CALLS):
        if test is None:
            error(f"{_CALL_NAMES[type(e)]} cannot be used here (not in a constant, a signal index or an '@' rank)",
                  e.span)
            return None
        return test(e)
    if isinstance(e, S.Any):
        error("any(lo, hi) can only be the whole right-hand side of a local declaration or assignment "
              "(int x = any(lo, hi); or x = any(lo, hi);): choose into a local first, then use it here", e.span)
        return None
    if isinstance(e, S.UnOp):
        a = sub(e.operand)
        if a is None:
            return None
        return a if e.op == "+" else fold(ir.Unary(e.op, a, e.span))
    if isinstance(e, (S.BinOp, S.MinMax)):
        a, b = sub(e.left), sub(e.right)
        if a is None or b is None:
            return None
        return fold(ir.Binary(e.op if isinstance(e, S.BinOp) else e.fn, a, b, e.span))
    if isinstance(e, S.Cond):
        t, a, b = sub(e.test), sub(e.then), sub(e.orelse)
        if t is None or a is None or b is None:
            return None
        return fold(ir.Select(t, a, b, e.span))
    raise AssertionError(f"unknown expression node {e!r}")


_CALL_NAMES = {S.Test: "TTEST", S.TestEvent: "TEST_EVENT", S.Load: "LOAD", S.FetchAdd: "FETCH_ADD", S.Cas: "CAS"}


def fold(e: ir.Expr) -> ir.Expr:
    """`e` with constant operands evaluated (one level: the operands are already folded)."""
    try:
        if isinstance(e, ir.Unary) and isinstance(e.operand, ir.Const):
            return ir.Const(cint.UNARY[e.op](e.operand.value, e.span), e.span)
        if isinstance(e, ir.Binary) and isinstance(e.left, ir.Const) and isinstance(e.right, ir.Const):
            return ir.Const(cint.BINARY[e.op](e.left.value, e.right.value, e.span), e.span)
        if isinstance(e, ir.Select) and isinstance(e.test, ir.Const):
            return e.then if e.test.value else e.orelse
    except ModelError:
        pass  # reported when (and if) a process evaluates it
    return e


def constant(e: ir.Expr | None) -> int | None:
    return e.value if isinstance(e, ir.Const) else None


def has_test(e: ir.Expr) -> bool:
    """Whether `e` holds a visible step (TTEST, LOAD, FETCH_ADD, CAS, TEST_EVENT) to hoist."""
    return any(isinstance(x, ir.STEP_EXPRS) for x in ir.walk(e))

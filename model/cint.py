"""C integer semantics of `.sig` expressions, shared by constant folding and compiled code.

Locals are mathematical integers: `/` truncates toward zero, `%` takes the dividend's sign,
`>>` is arithmetic, and `+ - * <<` raise ModelError beyond 2^64 in magnitude (as do a zero
divisor and a shift count outside 0..63).
"""

from __future__ import annotations

from model.errors import ModelError, Span
from model.vocabulary import COMPARISONS

MAX_MAGNITUDE = 2**64


def big(v: int, span: Span) -> int:
    if -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
        return v
    raise ModelError("integer value too large (beyond 2^64)", span)


def cdiv(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise ModelError("division by zero", span)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cmod(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise ModelError("remainder by zero", span)
    return a - b * cdiv(a, b, span)


def _shift(a: int, b: int, left: bool, span: Span) -> int:
    if not 0 <= b <= 63:
        raise ModelError(f"shift count {b} is outside 0..63", span)
    return big(a << b, span) if left else a >> b


BINARY = {
    "+": lambda a, b, s: big(a + b, s),
    "-": lambda a, b, s: big(a - b, s),
    "*": lambda a, b, s: big(a * b, s),
    "/": cdiv,
    "%": cmod,
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
    "&&": lambda a, b, s: int(bool(a) and bool(b)),
    "||": lambda a, b, s: int(bool(a) or bool(b)),
    "min": lambda a, b, s: min(a, b),
    "max": lambda a, b, s: max(a, b),
}

UNARY = {
    "-": lambda a, s: -a,
    "!": lambda a, s: int(not a),
    "~": lambda a, s: ~a,
    "bool": lambda a, s: int(bool(a)),
}

COMPARE = {c.name: c.holds for c in COMPARISONS}  # the vocabulary's, by name (model/vocabulary.py)
CMP_TEXT = {c.name: c.symbol for c in COMPARISONS}

"""Symbolic integer expressions in .sig terms, folded where the operands are known.

A `Sym` is what a C++ integer expression is worth in the skeleton: a literal, a .sig name
(`rank`, a local, a param) or an operator over those. Each carries how it was resolved
(`FULL` from the code alone, `PARTIAL` with a config value or a naming convention, `NONE`
through an assumption param) and whether it reads a signal (a TTEST).
"""

from __future__ import annotations

from dataclasses import dataclass, field

NONE, PARTIAL, FULL = 0, 1, 2
LEVEL_NAMES = {NONE: "none", PARTIAL: "partial", FULL: "full"}

# .sig binary operators and their precedence (docs/language.md section 5.1)
PREC = {"||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7,
        "<": 8, "<=": 8, ">": 8, ">=": 8, "<<": 9, ">>": 9,
        "+": 10, "-": 10, "*": 11, "/": 11, "%": 11}
_ATOM = 13


@dataclass(frozen=True)
class Sym:
    op: str                 # int name bin un cond call text
    args: tuple
    level: int = FULL
    reads: bool = False     # contains a TTEST: evaluating it reads a signal
    # for a bare name: the C++ expression it stands for ("arg:rank", "field:ctx.rankId"), so
    # that evidence found later in the code (the window idiom) can be tied back to it
    origin: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return render(self)


def num(n: int, level: int = FULL) -> Sym:
    return Sym("int", (int(n),), level)


def name(s: str, level: int = FULL, origin: str | None = None) -> Sym:
    return Sym("name", (s,), level, origin=origin)


def text(s: str, level: int = FULL, reads: bool = True, prec: int = _ATOM,
         names: frozenset = frozenset()) -> Sym:
    """An already rendered .sig expression (a TTEST call, an array element) and the .sig
    names it reads."""
    return Sym("text", (s, prec, frozenset(names)), level, reads)


def is_int(s: Sym) -> bool:
    return s.op == "int"


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _fold(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%") and b == 0:
        return None
    if op in ("<<", ">>") and not 0 <= b <= 63:
        return None
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "/": lambda: _c_div(a, b), "%": lambda: a - _c_div(a, b) * b,
        "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
        "|": lambda: a | b, "^": lambda: a ^ b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }[op]()


def binop(op: str, a: Sym, b: Sym) -> Sym:
    level, reads = min(a.level, b.level), a.reads or b.reads
    if is_int(a) and is_int(b):
        v = _fold(op, a.args[0], b.args[0])
        if v is not None:
            return num(v, level)
    if not reads:
        if op == "+" and is_int(b) and b.args[0] == 0:
            return a
        if op == "+" and is_int(a) and a.args[0] == 0:
            return b
        if op == "-" and is_int(b) and b.args[0] == 0:
            return a
        if op in ("*", "/") and is_int(b) and b.args[0] == 1:
            return a
        if op == "*" and is_int(a) and a.args[0] == 1:
            return b
        if op == "*" and ((is_int(a) and a.args[0] == 0) or (is_int(b) and b.args[0] == 0)):
            return num(0, level)
        if op == "&&" and is_int(a):
            return b if a.args[0] else num(0, level)
        if op == "||" and is_int(a):
            return num(1, level) if a.args[0] else b
        if op == "-" and a == b:
            return num(0, level)
    return Sym("bin", (op, a, b), level, reads)


def unop(op: str, a: Sym) -> Sym:
    if is_int(a):
        v = a.args[0]
        return num({"-": -v, "+": v, "!": int(not v), "~": ~v}[op], a.level)
    if op == "+":
        return a
    return Sym("un", (op, a), a.level, a.reads)


def cond(c: Sym, a: Sym, b: Sym) -> Sym:
    if is_int(c):
        return a if c.args[0] else b
    return Sym("cond", (c, a, b), min(c.level, a.level, b.level), c.reads or a.reads or b.reads)


def call(fn: str, a: Sym, b: Sym) -> Sym:
    if is_int(a) and is_int(b):
        return num((min if fn == "min" else max)(a.args[0], b.args[0]), min(a.level, b.level))
    return Sym("call", (fn, a, b), min(a.level, b.level), a.reads or b.reads)


def with_level(s: Sym, level: int) -> Sym:
    return Sym(s.op, s.args, min(s.level, level), s.reads)


def prec(s: Sym) -> int:
    if s.op == "bin":
        return PREC[s.args[0]]
    if s.op == "un":
        return 12
    if s.op == "cond":
        return 1
    if s.op == "text":
        return s.args[1]
    if s.op == "int" and s.args[0] < 0:
        return 12
    return _ATOM


def render(s: Sym) -> str:
    if s.op == "int":
        return str(s.args[0])
    if s.op in ("name",):
        return s.args[0]
    if s.op == "text":
        return s.args[0]
    if s.op == "bin":
        op, a, b = s.args
        p = PREC[op]
        left = render(a) if prec(a) >= p else f"({render(a)})"
        right = render(b) if prec(b) > p else f"({render(b)})"
        return f"{left} {op} {right}"
    if s.op == "un":
        op, a = s.args
        inner = render(a)
        return f"{op}{inner}" if prec(a) >= 12 and not inner.startswith(op) else f"{op}({inner})"
    if s.op == "cond":
        c, a, b = s.args
        cs = render(c) if prec(c) > 1 else f"({render(c)})"
        return f"{cs} ? {render(a)} : {render(b)}"
    if s.op == "call":
        fn, a, b = s.args
        return f"{fn}({render(a)}, {render(b)})"
    raise AssertionError(s.op)


def names(s: Sym) -> set[str]:
    """Every .sig name the expression refers to (TTEST texts excluded)."""
    if s.op == "name":
        return {s.args[0]}
    out: set[str] = set()
    for a in s.args:
        if isinstance(a, Sym):
            out |= names(a)
    return out


def uses(s: Sym) -> frozenset:
    """Every .sig name evaluating the expression reads, those inside TTEST and array texts
    included (what the skeleton's pruning follows)."""
    if s.op == "name":
        return frozenset((s.args[0],))
    if s.op == "text":
        return s.args[2]
    out: frozenset = frozenset()
    for a in s.args:
        if isinstance(a, Sym):
            out |= uses(a)
    return out


def substitute(s: Sym, env: dict[str, Sym]) -> Sym:
    """Replace names by expressions (used to evaluate declaration-context sizes)."""
    if s.op == "name":
        return env.get(s.args[0], s)
    if s.op == "bin":
        return binop(s.args[0], substitute(s.args[1], env), substitute(s.args[2], env))
    if s.op == "un":
        return unop(s.args[0], substitute(s.args[1], env))
    if s.op == "cond":
        return cond(*(substitute(a, env) for a in s.args))
    if s.op == "call":
        return call(s.args[0], substitute(s.args[1], env), substitute(s.args[2], env))
    return s


# ---- linear forms: sum of coefficient * monomial, used to split a flat offset into indices

Mono = tuple[str, ...]           # sorted factor texts; () is the constant term


def linear(s: Sym) -> dict[Mono, int] | None:
    """The expression as {monomial: coefficient}, or None if it is not a polynomial."""
    if s.op == "int":
        return {(): s.args[0]} if s.args[0] else {}
    if s.op == "name":
        return {(s.args[0],): 1}
    if s.op == "un" and s.args[0] == "-":
        inner = linear(s.args[1])
        return None if inner is None else {m: -c for m, c in inner.items()}
    if s.op == "bin" and s.args[0] in "+-*" and len(s.args[0]) == 1:
        a, b = linear(s.args[1]), linear(s.args[2])
        if a is None or b is None:
            return None
        if s.args[0] == "*":
            out: dict[Mono, int] = {}
            for ma, ca in a.items():
                for mb, cb in b.items():
                    m = tuple(sorted(ma + mb))
                    out[m] = out.get(m, 0) + ca * cb
            return {m: c for m, c in out.items() if c}
        sign = 1 if s.args[0] == "+" else -1
        out = dict(a)
        for m, c in b.items():
            out[m] = out.get(m, 0) + sign * c
        return {m: c for m, c in out.items() if c}
    if s.reads:
        return None
    return {("(" + render(s) + ")",): 1}


def from_linear(form: dict[Mono, int], level: int = FULL) -> Sym:
    """Rebuild an expression from a linear form, in a stable order (constant last)."""
    out: Sym | None = None
    for mono in sorted(form, key=lambda m: (m == (), m)):
        c = form[mono]
        term: Sym = num(abs(c), level)
        for f in mono:
            fs = text(f, level, reads=False) if f.startswith("(") else name(f, level)
            term = fs if (is_int(term) and term.args[0] == 1) else binop("*", term, fs)
        if out is None:
            out = term if c > 0 else unop("-", term)
        else:
            out = binop("+" if c > 0 else "-", out, term)
    return out if out is not None else num(0, level)


def div_exact(s: Sym, k: int) -> Sym | None:
    """`s / k` pushed through + - * when every term is a multiple of k, else None."""
    if s.op == "int":
        return num(s.args[0] // k, s.level) if s.args[0] % k == 0 else None
    if s.op == "bin" and s.args[0] in ("+", "-"):
        a, b = div_exact(s.args[1], k), div_exact(s.args[2], k)
        return None if a is None or b is None else binop(s.args[0], a, b)
    if s.op == "bin" and s.args[0] == "*":
        a, b = s.args[1], s.args[2]
        if is_int(b) and b.args[0] % k == 0:
            return binop("*", a, num(b.args[0] // k, b.level))
        if is_int(a) and a.args[0] % k == 0:
            return binop("*", num(a.args[0] // k, a.level), b)
        da = div_exact(a, k)
        if da is not None:
            return binop("*", da, b)
    if s.op == "un" and s.args[0] == "-":
        a = div_exact(s.args[1], k)
        return None if a is None else unop("-", a)
    return None


def ring_step(peer: Sym, own: str) -> Sym | None:
    """n when `peer` is the ring step `(own + k) % n`: k a constant or a multiple of n plus a
    constant (`(me + n - 1) % n`), n a name other than own; else None. Every rank's peer
    then lies in [0, n), and the ring visits each of n ranks (docs/frontends.md)."""
    if peer.op != "bin" or peer.args[0] != "%":
        return None
    x, n = peer.args[1], peer.args[2]
    if n.op != "name" or n.args[0] == own:
        return None
    form = linear(x)
    if form is None or form.get((own,)) != 1:
        return None
    if any(m not in ((), (own,), (n.args[0],)) for m in form):
        return None
    return n

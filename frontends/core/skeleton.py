"""The skeleton's statements before they are printed, pruning, and printing with a source map.

The interpreter builds `Line`s and `Block`s, each with its text and the .sig names it reads
(from the `Sym` values it was built from: no analysis of the text); `prune` keeps what the
synchronization needs (signal operations, returns, and whatever locals and control flow they
depend on); `render` prints .sig text and records which C++ range each printed line comes from.
Builders: `decl`, `assign`, `sync`, `jump`, `ret`, `comment`, `if_`, `while_`, `for_`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from frontends.core import sym as S
from frontends.core.errors import Loc


@dataclass
class Line:
    text: str
    loc: Loc | None
    kind: str                   # sync, decl, assign, jump, return, comment
    defines: str | None = None  # the local a decl/assign writes
    buffer: str | None = None   # a READ / WRITE of this buffer key: kept only if a TPUT/TGET declares it
    reads: frozenset = frozenset()   # the .sig names the statement reads

    def uses(self) -> frozenset:
        return self.reads


@dataclass
class Block:
    kind: str                   # if, for, while
    head: str                   # the text inside the parentheses
    loc: Loc | None
    body: list = field(default_factory=list)
    orelse: list | None = None
    defines: str | None = None  # a for loop's variable
    tests: bool = False         # the condition contains a TTEST
    reads: frozenset = frozenset()   # the .sig names the head reads

    def uses(self) -> frozenset:
        return self.reads


def names(*values) -> frozenset:
    """The .sig names read by `Sym` values (TTEST and array texts included) and by plain
    names given as strings; None is skipped."""
    out: set[str] = set()
    for v in values:
        if v is None:
            continue
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, (set, frozenset)):
            out |= v
        else:
            out |= S.uses(v)
    return frozenset(out)


def decl(name: str, value=None, loc: Loc | None = None, ctype: str = "int", text: str | None = None,
         size: int | None = None) -> Line:
    """`int name = value;` (0 when value is None), `int name[size] = ...` for an array;
    `text` for an initializer rendered by the caller (an array literal, `any(lo, hi)`)
    whose names `value` (a Sym, or a tuple of Syms) gives."""
    rhs = text if text is not None else ("0" if value is None else S.render(value))
    vals = value if isinstance(value, tuple) else (value,)
    dims = "" if size is None else f"[{size}]"
    return Line(f"{ctype} {name}{dims} = {rhs};", loc, "decl", name, reads=names(*vals))


def assign(target: str, text: str, loc: Loc | None, *reads) -> Line:
    """An assignment to local `target` (`text` is the whole statement); `reads` are the Syms
    or names it reads (the target itself for `x++`, `x += v` and an indexed store)."""
    return Line(text, loc, "assign", target, reads=names(*reads))


def sync(text: str, loc: Loc | None, *reads, defines: str | None = None, buffer: str | None = None) -> Line:
    """A signal or data operation (TNOTIFY, TWAIT, TTEST, TPUT, READ, ...)."""
    return Line(text, loc, "sync", defines, buffer, names(*reads))


def jump(word: str, loc: Loc | None) -> Line:
    return Line(f"{word};", loc, "jump")


def ret(loc: Loc | None) -> Line:
    return Line("return;", loc, "return")


def comment(text: str, loc: Loc | None) -> Line:
    return Line(text, loc, "comment")


def if_(c, loc: Loc | None, body: list | None = None, orelse: list | None = None) -> Block:
    """`if (c)`: c a Sym (its text and names) or a (text, names) pair."""
    head, reads, tests = _head(c)
    return Block("if", head, loc, body if body is not None else [], orelse, None, tests, reads)


def while_(c, loc: Loc | None, body: list | None = None) -> Block:
    head, reads, tests = _head(c)
    return Block("while", head, loc, body if body is not None else [], None, None, tests, reads)


def for_(var: str, head: str, loc: Loc | None, *reads, body: list | None = None, tests: bool = False) -> Block:
    """`for (head)` over `var`; `reads`: what the bounds and step read (the variable itself
    is added)."""
    return Block("for", head, loc, body if body is not None else [], None, var, tests, names(var, *reads))


def _head(c) -> tuple[str, frozenset, bool]:
    if isinstance(c, tuple):
        return c[0], names(c[1]), False
    return S.render(c), names(c), c.reads


def _walk_keep(stmts: list, relevant: set[str], in_kept_loop: bool, keep: dict[int, bool]) -> bool:
    """Mark statements kept; returns whether any statement of the list is kept."""
    any_kept = False
    for s in stmts:
        if isinstance(s, Line):
            k = (s.kind in ("sync", "return", "comment")
                 or (s.kind == "jump" and in_kept_loop)
                 or (s.kind in ("decl", "assign") and s.defines in relevant))
        else:
            loop = s.kind in ("for", "while")
            inner_loop = keep.get(id(s), False) if loop else in_kept_loop
            k_body = _walk_keep(s.body, relevant, inner_loop, keep)
            k_else = _walk_keep(s.orelse or [], relevant, in_kept_loop, keep)
            k = k_body or k_else or s.tests or (s.defines in relevant if loop and s.defines else False)
        if k:
            keep[id(s)] = True
            relevant |= s.uses()
            any_kept = True
    return any_kept


def _filter(stmts: list, keep: dict[int, bool]) -> list:
    out = []
    for s in stmts:
        if not keep.get(id(s)):
            continue
        if isinstance(s, Block):
            s.body = _filter(s.body, keep)
            s.orelse = _filter(s.orelse, keep) if s.orelse else None
        out.append(s)
    return out


def prune(stmts: list) -> list:
    """Drop data-only code: keep signal operations, returns and what they depend on."""
    relevant: set[str] = set()
    keep: dict[int, bool] = {}
    while True:
        before = (len(relevant), len(keep))
        _walk_keep(stmts, relevant, False, keep)
        if (len(relevant), len(keep)) == before:
            break
    return _filter(stmts, keep)


@dataclass
class Printer:
    lines: list[str] = field(default_factory=list)
    origins: list[Loc | None] = field(default_factory=list)

    def add(self, text: str, loc: Loc | None = None) -> None:
        self.lines.append(text)
        self.origins.append(loc)

    def body(self, stmts: list, depth: int) -> None:
        pad = "    " * depth
        for s in stmts:
            if isinstance(s, Line):
                self.add(pad + s.text, s.loc)
                continue
            kw = s.kind
            self.add(f"{pad}{kw} ({s.head}) {{", s.loc)
            self.body(s.body, depth + 1)
            if s.orelse:
                self.add(pad + "} else {", s.loc)
                self.body(s.orelse, depth + 1)
            self.add(pad + "}", None)


def as_scalar(stmts: list, name: str) -> None:
    """Print the one-element signal `name`, used only at element 0, as a scalar signal: its
    references `name[0]` and `name[0:1]` become `name` (the one rewrite of printed text;
    what each statement reads is unchanged)."""
    _as_scalar(stmts, re.compile(rf"\b{re.escape(name)}\[0(:1)?\]"), name)


def _as_scalar(stmts: list, element, name: str) -> None:
    for st in stmts:
        if isinstance(st, Line):
            st.text = element.sub(name, st.text)
        else:
            st.head = element.sub(name, st.head)
            _as_scalar(st.body, element, name)
            _as_scalar(st.orelse or [], element, name)


def read_names(stmts: list) -> set[str]:
    """Every name the statements read (heads of blocks included)."""
    out: set[str] = set()
    for st in stmts:
        out |= st.uses()
        if isinstance(st, Block):
            out |= read_names(st.body)
            out |= read_names(st.orelse or [])
    return out


def drop_unused_params(interp, stmts: list, decl_reads: set[str]) -> None:
    """A param the pruned skeleton never reads (nor a declaration's size, `decl_reads`) is
    left out, with its assumption (`interp`: either frontend's interpreter, with `params`,
    `param_notes` and `assumptions`)."""
    used = read_names(stmts) | set(decl_reads)
    for pname in list(interp.params):
        if pname not in used:
            del interp.params[pname]
            for note in interp.param_notes.get(pname, []):
                if note in interp.assumptions:
                    interp.assumptions.remove(note)

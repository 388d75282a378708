"""The skeleton's statements before they are printed, pruning, and printing with a source map.

The interpreter builds `Line`s and `Block`s; `prune` keeps what the synchronization needs
(signal operations, returns, and whatever locals and control flow they depend on);
`render` prints .sig text and records which C++ range each printed line comes from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from frontends.core.errors import Loc

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Line:
    text: str
    loc: Loc | None
    kind: str                   # sync, decl, assign, jump, return, comment
    defines: str | None = None  # the local a decl/assign writes
    buffer: str | None = None   # a READ / WRITE of this buffer key: kept only if a TPUT/TGET declares it

    def uses(self) -> set[str]:
        t = self.text
        if self.kind == "assign" and self.defines and "=" in t and not t.endswith(("++;", "--;")):
            lhs, _, rhs = t.partition("=")
            if lhs.rstrip().endswith(("+", "-")) or "[" in lhs:   # a compound op, or an array index
                return set(_IDENT.findall(t))
            return set(_IDENT.findall(rhs))
        if self.kind == "decl":
            return set(_IDENT.findall(t.partition("=")[2]))
        return set(_IDENT.findall(t))


@dataclass
class Block:
    kind: str                   # if, for, while
    head: str                   # the text inside the parentheses
    loc: Loc | None
    body: list = field(default_factory=list)
    orelse: list | None = None
    defines: str | None = None  # a for loop's variable
    reads: bool = False         # the condition contains a TTEST

    def uses(self) -> set[str]:
        return set(_IDENT.findall(self.head))


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
            k = k_body or k_else or s.reads or (s.defines in relevant if loop and s.defines else False)
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


def texts(stmts: list):
    """Every line of a skeleton's statements (heads of blocks included)."""
    for st in stmts:
        if isinstance(st, Line):
            yield st.text
        else:
            yield st.head
            yield from texts(st.body)
            yield from texts(st.orelse or [])


def drop_unused_params(interp, stmts: list, decls: list[str]) -> None:
    """A param the pruned skeleton never reads is left out, with its assumption (`interp`:
    either frontend's interpreter, with `params`, `param_notes` and `assumptions`)."""
    used = set(re.findall(r"[A-Za-z_]\w*", " ".join([*texts(stmts), *decls])))
    for pname in list(interp.params):
        if pname not in used:
            del interp.params[pname]
            for note in interp.param_notes.get(pname, []):
                if note in interp.assumptions:
                    interp.assumptions.remove(note)

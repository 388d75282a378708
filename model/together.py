"""Kernels checked together: several specs as one protocol. Entry point: `together`.

`sigproof check push.cpp wait.cpp --together` (and `together = true` in a kernel's
sigproof.toml) hands the skeletons of the kernels here. On every rank the kernels run at the
same time, launched together by the host: member k's kernel is blocks
[B_0 + ... + B_(k-1), B_0 + ... + B_k) of one kernel, whose code picks the member by
`block`; inside it `block` and `nblocks` mean what they meant in the member. Signals and
buffers are shared by name (the host hands both kernels the same memory); params, consts and
views that differ are renamed apart. What cannot be combined is a spec error at its place:
a signal or buffer of one name with different shapes, different rank counts, different host
code, a `block_barrier` (it synchronizes one kernel's blocks), different `expect` lines. The
one exception: a signal or buffer whose size every member's extraction chose for the indices
it uses (`widen`) takes the larger size, dimension by dimension.

The combined source is the members' texts one after the other, and every span is moved to
its line there, so that statement texts, errors and `Together.member_line` find each line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from model import syntax as S
from model.errors import Span, SpecError, SpecErrors

_NAMED = ("param", "const", "signal", "buffer", "view")
_SHARED = ("signal", "buffer")  # the same memory when the name is the same


@dataclass(frozen=True)
class Together:
    spec: S.Spec  # the combined spec
    offsets: tuple[int, ...]  # member k's line L is line offsets[k] + L of the combined source
    notes: tuple[str, ...]  # what the combination assumed, to show beside the extraction's assumptions

    def member_line(self, line: int) -> tuple[int, int]:
        """(member, its line) of a line of the combined source."""
        k = max(i for i, off in enumerate(self.offsets) if off < line) if line > self.offsets[0] else 0
        return k, line - self.offsets[k]


def together(specs: list[S.Spec], file: str, names: list[str] | None = None,
             widen: frozenset[str] = frozenset()) -> Together:
    """One spec in which each rank runs the kernels of `specs` at the same time (see the
    module's docstring); `names` name the members in notes and errors (default: their
    protocol names). `widen`: the signals and buffers whose declared sizes are only what
    each member's own indices need (an extraction that sized them to cover the indices it
    uses): of different sizes, the shared one takes the larger per dimension (`max`),
    instead of the error. Raises SpecErrors at the members' places (in the combined source)."""
    names = names or [_protocol(s) or s.file for s in specs]
    offsets, texts, line = [], [], 0
    for s in specs:
        text = s.source if s.source.endswith("\n") else s.source + "\n"
        offsets.append(line)
        texts.append(text)
        line += text.count("\n")
    source = "".join(texts)
    moved = [_move(s, off, file) for s, off in zip(specs, offsets)]
    errors: list[SpecError] = []
    notes: list[str] = []
    table: dict[str, tuple[str, object, int]] = {}  # name -> (kind, shape, member)
    first: dict[str, S.Decl] = {}  # a shared name -> its declaration as kept (widened when it is)
    renames: list[dict[str, str]] = []
    kept: list[list[S.Decl]] = []
    taken = {d.name for s in moved for d in s.decls if d.kind in _NAMED} | {n for s in moved for n in _locals(s)}
    for k, s in enumerate(moved):
        mapping: dict[str, str] = {}
        decls = []
        for kind in _NAMED:
            for d in (d for d in s.decls if d.kind == kind):
                shape = _shape(_rename(d, mapping))
                if d.name not in table:
                    table[d.name] = (kind, shape, k)
                    first[d.name] = _rename(d, mapping)
                    decls.append(d)
                    continue
                kind0, shape0, k0 = table[d.name]
                if kind0 == kind and shape0 == shape:
                    if kind in _SHARED:
                        notes.append(f"{kind} {d.name} of {names[k]} is the same memory as that of {names[k0]} "
                                     f"(same name, same shape)")
                    continue  # the same declaration: one for both
                mine = _rename(d, mapping)
                if kind in _SHARED and kind0 == kind and d.name in widen and len(mine.dims) == len(first[d.name].dims):
                    was = first[d.name]
                    wide = dataclasses.replace(was, dims=tuple(S.MinMax(a.span, "max", a, b)
                                                               for a, b in zip(was.dims, mine.dims)))
                    first[d.name] = wide
                    table[d.name] = (kind, _shape(wide), k0)
                    notes.append(f"{kind} {d.name} of {names[k]} is the same memory as that of {names[k0]}; each "
                                 f"kernel sized it for the indices it uses, so it has the larger size of the two")
                    continue
                if kind in _SHARED and kind0 == kind:
                    errors.append(SpecError(
                        f"{kind} '{d.name}' of {names[k]} is declared with another shape than in {names[k0]}: kernels "
                        f"checked together share {kind}s by name, so give both the same dimensions", d.span))
                    continue
                new = _fresh(d.name, taken)
                mapping[d.name] = new
                decls.append(d)
                if kind == "param":
                    notes.append(f"param {d.name} of {names[k]} is {new} in the combined protocol "
                                 f"({names[k0]} gives {d.name} another value)")
        renames.append(mapping)
        kept.append([_rename(d, mapping) for d in decls])
    kept = [[first[d.name] if d.kind in _SHARED and d.name in first else d for d in ds] for ds in kept]
    for k, s in enumerate(moved):  # a local of one member named like another's declaration
        for local in sorted(_locals(s)):
            if local in table and table[local][2] != k and local not in renames[k]:
                renames[k][local] = _fresh(local, taken)
    singles = [{d.kind: _rename(d, m) for d in s.decls if d.kind in ("protocol", "ranks", "blocks", "kernel", "host")}
               for s, m in zip(moved, renames)]
    first = singles[0]
    for k, one in enumerate(singles[1:], 1):
        if "ranks" in one and "ranks" in first and _shape(one["ranks"].value) != _shape(first["ranks"].value):
            errors.append(SpecError(f"{names[k]} runs on another rank count than {names[0]} (at "
                                    f"{first['ranks'].span}): kernels checked together run on the same ranks",
                                    one["ranks"].span))
        if _host_shape(one.get("host")) != _host_shape(first.get("host")):
            at = one.get("host") or one.get("kernel")
            errors.append(SpecError(f"the host code of {names[k]} differs from that of {names[0]}: kernels checked "
                                    f"together are launched together, so they need the same host code",
                                    at.span if at is not None else None, file))
    for s in moved:
        for st in _walk(s):
            if isinstance(st, S.BlockBarrier):
                errors.append(SpecError("block_barrier synchronizes the blocks of one kernel: a kernel with one cannot "
                                        "be checked together with another yet", st.span))
    expects = [[_shape(d) for d in s.decls if d.kind == "expect"] for s in moved]
    if any(e != expects[0] for e in expects):
        errors.append(SpecError("the specs checked together expect different verdicts", None, file))
    if errors:
        raise SpecErrors(errors, source)
    kernels = [(one.get("kernel"), one.get("blocks")) for one in singles]
    decls = _protocol_decl(first, names) + ([first["ranks"]] if "ranks" in first else [])
    counts = [b.value if b is not None else S.IntLit(k.span if k is not None else _nowhere(file), 1)
              for k, b in kernels]
    at = next(k for k, _ in kernels if k is not None).span if any(k for k, _ in kernels) else _nowhere(file)
    decls.append(S.Decl(at, "blocks", value=_sum(counts, at)))
    decls += [d for ds in kept for d in ds]
    decls.append(S.Decl(at, "kernel", body=_dispatch(kernels, counts, at)))
    if "host" in first:
        decls.append(first["host"])
    decls += [d for d in moved[0].decls if d.kind == "expect"]
    checks = {d.name: d for s in moved for d in s.decls if d.kind == "check"}
    decls += list(checks.values())
    notes.insert(0, "the kernels " + ", ".join(names) + " run at the same time on every rank, launched together "
                    "(each its own blocks: " + ", ".join(f"{n} {_shown(c)}" for n, c in zip(names, counts)) + ")")
    return Together(S.Spec(file, source, tuple(decls)), tuple(offsets), tuple(notes))


# ---------------------------------------------------------------- the kernel


def _dispatch(kernels, counts, at: Span) -> S.Block:
    """if (block < B0) { member 0 } else if (block < B0 + B1) { member 1 } ... with `block`
    and `nblocks` of member k as the member means them."""
    branches = []
    for k, ((kernel, _), count) in enumerate(zip(kernels, counts)):
        base = _sum(counts[:k], at) if k else None
        body = kernel.body if kernel is not None else S.Block(at, ())
        branches.append(_builtins(body, base, count))
    out: S.Stmt | None = None
    for k in range(len(branches) - 1, -1, -1):
        if out is None:
            out = branches[k]
            continue
        limit = _sum(counts[:k + 1], at)
        out = S.If(at, S.BinOp(at, "<", S.Name(at, "block"), limit), branches[k], out)
    return S.Block(at, (out,))


def _builtins(node, base, count):
    """`block` as `block - base` (none for member 0) and `nblocks` as the member's count."""
    if isinstance(node, S.Name):
        if node.id == "block" and base is not None:
            return S.BinOp(node.span, "-", node, base)
        if node.id == "nblocks":
            return count
        return node
    if isinstance(node, tuple):
        return tuple(_builtins(x, base, count) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return dataclasses.replace(node, **{f.name: _builtins(getattr(node, f.name), base, count)
                                            for f in dataclasses.fields(node) if f.name != "span"})
    return node


def _sum(counts: list, at: Span):
    if not counts:
        return S.IntLit(at, 0)
    out = counts[0]
    for c in counts[1:]:
        out = S.BinOp(at, "+", out, c)
    return out


# ---------------------------------------------------------------- names and shapes


def _rename(node, mapping: dict[str, str]):
    """Every name of `mapping` renamed: references, declarations, views' signals, events."""
    if not mapping:
        return node
    if isinstance(node, str):
        return node
    if isinstance(node, tuple):
        return tuple(_rename(x, mapping) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            if f.name in ("id", "name", "event") and isinstance(v, str) and not isinstance(node, S.Spec):
                changes[f.name] = mapping.get(v, v)
            elif f.name != "span":
                changes[f.name] = _rename(v, mapping)
        return dataclasses.replace(node, **changes)
    return node


def _shape(node):
    """A node without its spans (and names of declarations): what two declarations share."""
    if isinstance(node, Span):
        return None
    if isinstance(node, tuple):
        return tuple(_shape(x) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(_shape(getattr(node, f.name)) for f in dataclasses.fields(node)
                                              if f.name != "span")
    return node


def _host_shape(host: S.Decl | None):
    """The host code's shape; no host is the default `host { launch; }`."""
    if host is None or host.body is None:
        return ("default",)
    body = host.body.body
    if len(body) == 1 and isinstance(body[0], S.Launch):
        return ("default",)
    return _shape(host.body)


def _locals(spec: S.Spec) -> set[str]:
    out = set()
    for st in _walk(spec):
        if isinstance(st, (S.VarDecl, S.ArrayDecl)):
            out.add(st.name)
        elif isinstance(st, S.Copy) and st.event:
            out.add(st.event)
    return out


def _walk(node):
    if isinstance(node, tuple):
        for x in node:
            yield from _walk(x)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        yield node
        for f in dataclasses.fields(node):
            if f.name != "span":
                yield from _walk(getattr(node, f.name))


def _fresh(name: str, taken: set[str]) -> str:
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    taken.add(f"{name}_{k}")
    return f"{name}_{k}"


def _move(spec: S.Spec, offset: int, file: str) -> S.Spec:
    """The spec with every span moved down `offset` lines, into `file`."""
    def walk(x):
        if isinstance(x, Span):
            return Span(file, x.line + offset, x.col, x.end_line + offset, x.end_col)
        if isinstance(x, tuple):
            return tuple(walk(y) for y in x)
        if dataclasses.is_dataclass(x) and not isinstance(x, type) and not isinstance(x, S.Spec):
            return dataclasses.replace(x, **{f.name: walk(getattr(x, f.name)) for f in dataclasses.fields(x)})
        return x
    return S.Spec(file, spec.source, walk(spec.decls))


def _protocol(spec: S.Spec) -> str | None:
    return next((d.name for d in spec.decls if d.kind == "protocol"), None)


def _protocol_decl(first: dict, names: list[str]) -> list[S.Decl]:
    at = (first.get("protocol") or first.get("kernel") or first.get("ranks")).span
    return [S.Decl(at, "protocol", name="_".join(_ident(n) for n in names))]


def _ident(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out and not out[0].isdigit() else "k_" + out


def _nowhere(file: str) -> Span:
    return Span(file, 1, 1, 1, 2)


def _shown(count) -> str:
    if isinstance(count, S.IntLit):
        return f"{count.value} block{'s' if count.value != 1 else ''}"
    if isinstance(count, S.Name):
        return f"{count.id} blocks"
    return "its blocks"

"""PTO MLIR / PTO-AS text as operations: tree-sitter-mlir's syntax tree, cut into `Op`s.

tree-sitter-mlir parses the generic form, `func.func`, `module`, regions, blocks, attributes
and types exactly. A custom-form operation (`arith.addi %a, %b : i32`) is a run of tokens in
its grammar, and the run does not stop at the end of the operation: it goes on with the
result list of the next one (`%c =`), a generic operation written after it
(`"pto.twait"(...)`) or a bare PTO-AS mnemonic (`twait %s, %v ...`). `Block` cuts such runs
where a new operation starts on a new source line, outside brackets: a result list ending
in `=`, a quoted operation name followed by `(`, or a bare mnemonic of `BARE_OPS`. So one
operation per line is assumed for custom forms (the way MLIR prints them); an operation
may continue over several lines as long as no continuation line starts like an operation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter as ts
import tree_sitter_mlir as tsm

from frontends.core.errors import ExtractError, Loc

_LANGUAGE = ts.Language(tsm.language())
# PTO-AS mnemonics written without a dialect prefix (pto-isa docs/isa/comm/*.md)
BARE_OPS = ("tnotify", "twait", "ttest", "return")
_OPEN, _CLOSE = {"(", "[", "<", "{", "<{"}, {")", "]", ">", "}", "}>"}


@dataclass
class Token:
    """A leaf or an atomic subtree of an operation: a value, a type, an attribute, a word."""

    kind: str          # the tree-sitter node type (value_use, bare_id, type, attribute, ...)
    text: str
    node: ts.Node


@dataclass
class Op:
    name: str                       # pto.comm.tnotify, arith.addi, twait, ...
    results: list[str]              # %names, a `%x:2` pack as %x#0, %x#1
    tokens: list[Token]             # everything but the name, the results and the regions
    regions: list["Region"]
    loc: Loc                        # from the first result (or the name) to the last token

    @property
    def operands(self) -> list[str]:
        """The values used, in order, before the type annotation (a top-level `:`)."""
        out, depth = [], 0
        for t in self.tokens:
            if t.kind in _OPEN or t.text in _OPEN:
                depth += 1
            elif t.kind in _CLOSE or t.text in _CLOSE:
                depth -= 1
            elif t.text == ":" and depth == 0:
                break
            elif t.kind == "value_use":
                out.append(t.text)
        return out

    def words(self) -> list[str]:
        return [t.text for t in self.tokens if t.kind == "bare_id"]

    def attrs(self) -> dict[str, ts.Node]:
        """`key = value` entries of the op's attribute dictionaries and properties."""
        out: dict[str, ts.Node] = {}
        for t in self.tokens:
            stack = [t.node]
            while stack:
                n = stack.pop()
                if n.type == "attribute_entry":
                    key, value = n.named_children[0], n.named_children[-1]
                    out[key.text.decode()] = value
                    continue
                if n.type == "region":
                    continue
                stack.extend(n.children)
        return out


@dataclass
class Block:
    args: list[tuple[str, str]]     # (%name, type text)
    ops: list[Op] = field(default_factory=list)


@dataclass
class Region:
    blocks: list[Block]
    loc: Loc


@dataclass
class Func:
    name: str                       # without @
    args: list[tuple[str, str, Loc]]  # (%name, type text, location)
    body: Region | None             # None for a declaration
    loc: Loc                        # the @name
    private: bool


@dataclass
class Module:
    path: str
    funcs: dict[str, Func]
    pragmas: list[tuple[str, Loc]]  # the TOML text after `// sigproof:` and where it is


def _loc(path: str, start: ts.Node, end: ts.Node | None = None) -> Loc:
    end = end or start
    return Loc(path, start.start_point.row + 1, start.start_point.column + 1,
               end.end_point.row + 1, end.end_point.column + 1)


def _char_loc(path: str, text: str, node: ts.Node) -> Loc:
    """Columns in characters, not bytes (a non-ASCII comment before a token on its line)."""
    def col(row: int, byte_col: int) -> int:
        line = text.encode("utf-8").split(b"\n")[row] if row < text.count("\n") + 1 else b""
        return len(line[:byte_col].decode("utf-8", "replace")) + 1
    return Loc(path, node.start_point.row + 1, col(node.start_point.row, node.start_point.column),
               node.end_point.row + 1, col(node.end_point.row, node.end_point.column))


class _Reader:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.ascii = text.isascii()

    def loc(self, start: ts.Node, end: ts.Node | None = None) -> Loc:
        if self.ascii:
            return _loc(self.path, start, end)
        a, b = _char_loc(self.path, self.text, start), _char_loc(self.path, self.text, end or start)
        return Loc(self.path, a.line, a.col, b.end_line, b.end_col)

    # ---------------------------------------------------------------- items of a block

    def _items(self, op_node: ts.Node, out: list) -> None:
        """The operation node as a flat list of tokens, regions as subtrees."""
        for child in op_node.children:
            if child.type == "op_result":
                out.append(Token("value_use", child.named_children[0].text.decode(), child.named_children[0]))
            elif child.type in ("custom_operation",):
                inner = child.children[0] if child.children and child.children[0].type in (
                    "func_operation", "module_operation") else None
                if inner is not None:
                    out.append(Token(inner.type, "", inner))
                    continue
                for c in child.children:
                    out.append(Token("name" if c.type == "custom_op_name" else c.type,
                                     c.text.decode("utf-8", "replace"), c))
            elif child.type == "generic_operation":
                for c in child.children:
                    out.append(Token("generic_name" if c.type == "string_literal" else c.type,
                                     c.text.decode("utf-8", "replace"), c))
            else:
                out.append(Token(child.type, child.text.decode("utf-8", "replace"), child))

    def block(self, node: ts.Node, args: list[tuple[str, str]]) -> Block:
        items: list[Token] = []
        for op_node in (c for c in node.named_children if c.type == "operation"):
            self._items(op_node, items)
        return Block(args, self._cut(items))

    def _cut(self, items: list[Token]) -> list[Op]:
        ops: list[Op] = []
        i, n = 0, len(items)
        while i < n:
            start = i
            results: list[str] = []
            while i < n and items[i].kind == "value_use":
                results.append(items[i].text)
                i += 1
                if i < n and items[i].text == ",":
                    i += 1
            if results:
                if i >= n or items[i].text != "=":
                    raise ExtractError(self.loc(items[start].node), "expected `=` after the result list of an operation")
                i += 1
            if i >= n:
                raise ExtractError(self.loc(items[start].node), "a result list with no operation after it")
            head = items[i]
            if head.kind in ("func_operation", "module_operation"):
                ops.append(Op(head.kind, [], [head], [], self.loc(head.node)))
                i += 1
                continue
            if head.kind in ("name", "generic_name", "string_literal") or (head.kind == "bare_id" and head.text in BARE_OPS):
                name = head.text.strip('"')
            else:
                raise ExtractError(self.loc(head.node), f"expected an operation, found {head.text!r}")
            i += 1
            tokens, regions, depth = [], [], 0
            last = head
            while i < n and not (depth == 0 and self._starts_op(items, i, last)):
                t = items[i]
                if t.kind == "region":
                    regions.append(self.region(t.node))
                else:
                    if t.text in _OPEN:
                        depth += 1
                    elif t.text in _CLOSE:
                        depth = max(0, depth - 1)
                    tokens.append(t)
                last = t
                i += 1
            first = items[start].node
            ops.append(Op(name, _unpack(results), tokens, regions, self.loc(first, last.node)))
        return ops

    @staticmethod
    def _starts_op(items: list[Token], i: int, last: Token) -> bool:
        t = items[i]
        if t.node.start_point.row <= last.node.end_point.row:
            return False  # not at the start of a new line
        if t.kind in ("name", "func_operation", "module_operation", "generic_name"):
            return True
        if t.kind == "string_literal":
            return i + 1 < len(items) and items[i + 1].text == "("
        if t.kind == "bare_id":
            return t.text in BARE_OPS and not (i + 1 < len(items) and items[i + 1].text == "=")
        if t.kind == "value_use":
            j = i
            while j < len(items) and items[j].kind == "value_use":
                j += 1
                if j < len(items) and items[j].text == ",":
                    j += 1
            return j < len(items) and items[j].text == "="
        return False

    def region(self, node: ts.Node) -> Region:
        blocks = []
        for b in node.named_children:
            if b.type == "entry_block":
                blocks.append(self.block(b, []))
            elif b.type == "block":
                label = next((c for c in b.named_children if c.type == "block_label"), None)
                args: list[tuple[str, str]] = []
                if label is not None:
                    arglist = next((c for c in label.named_children if c.type == "block_arg_list"), None)
                    if arglist is not None:
                        args = _pairs(arglist)
                blocks.append(self.block(b, args))
        return Region(blocks, self.loc(node))

    def func(self, node: ts.Node) -> Func:
        sym = next(c for c in node.named_children if c.type == "symbol_ref_id")
        arglist = next((c for c in node.named_children if c.type == "func_arg_list"), None)
        body = next((c for c in node.named_children if c.type == "region"), None)
        args = []
        if arglist is not None:
            kids = arglist.named_children
            for k, c in enumerate(kids):
                if c.type == "value_use":
                    ty = kids[k + 1].text.decode() if k + 1 < len(kids) and kids[k + 1].type == "type" else ""
                    args.append((c.text.decode(), ty, self.loc(c)))
        private = any(c.type == "bare_id" and c.text == b"private" or c.text == b"private" for c in node.children)
        return Func(sym.text.decode()[1:], args, self.region(body) if body is not None else None, self.loc(sym), private)


def _pairs(arglist: ts.Node) -> list[tuple[str, str]]:
    kids, out = arglist.named_children, []
    for k, c in enumerate(kids):
        if c.type == "value_use":
            ty = kids[k + 1].text.decode() if k + 1 < len(kids) and kids[k + 1].type == "type" else ""
            out.append((c.text.decode(), ty))
    return out


def _unpack(results: list[str]) -> list[str]:
    out = []
    for r in results:
        name, _, count = r.partition(":")
        if count.isdigit():
            out += [f"{name}#{k}" for k in range(int(count))]
        else:
            out.append(r)
    return out


def _first_error(node: ts.Node) -> ts.Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for c in node.children:
        e = _first_error(c)
        if e is not None:
            return e
    return node


def parse(path: str, text: str) -> Module:
    """The functions of a .pto / .mlir file, or an ExtractError at the first syntax error."""
    tree = ts.Parser(_LANGUAGE).parse(text.encode("utf-8"))
    reader = _Reader(path, text)
    bad = _first_error(tree.root_node)
    if bad is not None:
        if bad.end_byte >= len(text.encode("utf-8").rstrip()) and bad.child_count > 1:
            end = Loc(path, bad.end_point.row + 1, bad.end_point.column + 1, bad.end_point.row + 1, bad.end_point.column + 1)
            raise ExtractError(end, "syntax error: the input ends inside an operation or region (a `}` missing?)")
        what = f"missing {bad.type}" if bad.is_missing else f"unexpected {bad.text.decode('utf-8', 'replace')[:30]!r}"
        raise ExtractError(reader.loc(bad), f"syntax error: {what}".replace("\n", " "))
    funcs: dict[str, Func] = {}
    pragmas: list[tuple[str, Loc]] = []
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "comment":
            body = n.text.decode("utf-8", "replace").lstrip("/").strip()
            if body.startswith("sigproof:"):
                pragmas.append((body[len("sigproof:"):].strip(), reader.loc(n)))
            continue
        if n.type == "func_operation":
            f = reader.func(n)
            if f.name in funcs and funcs[f.name].body is not None and f.body is not None:
                raise ExtractError(f.loc, f"function @{f.name} is defined twice")
            if f.name not in funcs or f.body is not None:
                funcs[f.name] = f
            continue
        stack.extend(reversed(n.children))
    pragmas.sort(key=lambda p: (p[1].line, p[1].col))
    return Module(path, funcs, pragmas)

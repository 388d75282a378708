"""Read C++ files and the local headers they include; index their top-level entities.

Files are pre-passed (prepass.py) and parsed with tree-sitter's C++ grammar. The index
holds functions, object-like `#define`s, `const`/`constexpr` globals, enumerators,
struct fields and type aliases, found through namespaces, `extern "C"` and templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter
import tree_sitter_cpp

from frontends.cpp import conditionals
from frontends.core.errors import ExtractError, Loc
from frontends.cpp.prepass import Mark, prepass

_LANGUAGE = tree_sitter.Language(tree_sitter_cpp.language())
MAX_FILE_BYTES = 4 << 20


def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_LANGUAGE)


@dataclass
class SourceFile:
    path: str                   # as given (or as resolved for an include)
    text: str                   # the original text
    data: bytes                 # the pre-passed text, utf-8
    marks: tuple[Mark, ...]
    tree: tree_sitter.Tree
    line_starts: list[int] = field(default_factory=list)   # byte offsets
    errors: list = field(default_factory=list)              # ERROR / MISSING nodes
    base: tuple[int, int, int] = (0, 0, 0)                  # a snippet: its row, col, prefix
    fixed: Loc | None = None                                # a config snippet: one location
    # the pre-passed text before any conditional was blanked: its bytes sit where `data`'s do
    # and its characters where the original text's do (a blanked `#if` region may have held
    # multi-byte characters, which `data` no longer has), so character offsets and columns
    # are counted in it
    chars: bytes | None = None

    def loc(self, node) -> Loc:
        if self.fixed is not None:
            return self.fixed
        (r1, c1), (r2, c2) = node.start_point, node.end_point
        row0, col0, prefix = self.base
        def col(r: int, c: int) -> int:
            return self._col(r, c) + (col0 - prefix if r == 0 else 0)
        return Loc(self.path, row0 + r1 + 1, col(r1, c1), row0 + r2 + 1, col(r2, c2))

    def _col(self, row: int, byte_col: int) -> int:
        start = self.line_starts[row] if row < len(self.line_starts) else 0
        return len(self._chars()[start:start + byte_col].decode("utf-8", "replace")) + 1

    def _chars(self) -> bytes:
        return self.data if self.chars is None else self.chars

    def text_of(self, node) -> str:
        return " ".join(self.data[node.start_byte:node.end_byte].decode("utf-8", "replace").split())

    def char_offset(self, node) -> int:
        return self.char_at(node.start_byte)

    def char_at(self, byte: int) -> int:
        """The character offset in the original text of a byte offset of `data`."""
        return len(self._chars()[:byte].decode("utf-8", "replace"))


@dataclass
class Function:
    name: str
    node: object                # function_definition
    file: SourceFile
    template: object | None     # template_parameter_list
    is_kernel: bool


@dataclass
class Index:
    files: list[SourceFile] = field(default_factory=list)
    functions: dict[str, list[Function]] = field(default_factory=dict)
    defines: dict[str, tuple[str, SourceFile, object]] = field(default_factory=dict)
    globals: dict[str, tuple[object, SourceFile]] = field(default_factory=dict)
    structs: dict[str, dict[str, str]] = field(default_factory=dict)   # field -> type text
    aliases: dict[str, tuple[object, SourceFile]] = field(default_factory=dict)
    pragmas: list[tuple[str, Loc]] = field(default_factory=list)
    notes: list[tuple[Loc, str]] = field(default_factory=list)   # what the preprocessor pass assumed
    core: str | None = None            # the core pass read ("vector", "cube"; see conditionals)
    vector_pass: "Index | None" = None  # a mixed kernel's vector cores' pass (this index is its cube pass)


def _read(path: Path, shown: str, where: Loc | None) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ExtractError(where, f"cannot read {shown}: {e.strerror}", shown) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ExtractError(where, f"{shown} is larger than {MAX_FILE_BYTES} bytes", shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ExtractError(Loc(shown, line, 1, line, 1), "the file is not UTF-8 text") from None
    if "\0" in text:
        line = text[:text.index("\0")].count("\n") + 1
        raise ExtractError(Loc(shown, line, 1, line, 1), "the file contains a NUL byte")
    return text.removeprefix("\ufeff")


def _load(path: Path, shown: str, where: Loc | None) -> SourceFile:
    text = _read(path, shown, where)
    blanked, marks = prepass(text)
    data = blanked.encode("utf-8")
    starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]
    sf = SourceFile(shown, text, data, marks, None, starts, chars=data)
    _reparse(sf, data)
    return sf


def _reparse(sf: SourceFile, data: bytes) -> None:
    """Give the file the tree of `data` (its bytes, blanked keeping lengths) and its errors."""
    sf.data, sf.tree, sf.errors = data, parser().parse(data), []
    stack = [sf.tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            sf.errors.append(n)
        elif n.has_error:
            stack.extend(n.children)
    sf.errors.sort(key=lambda n: n.start_byte)


_PRAGMA = re.compile(r"//\s*sigproof:\s*(.*)$")


def load(paths: list[str], defines: dict[str, str] | None = None, include_dirs=(), core: str | None = None) -> Index:
    """Parse the given files and, transitively, the headers they include with quotes (from
    the including file's folder, else from the first of `include_dirs` that holds it), with
    their preprocessor conditionals decided (frontends.cpp.conditionals; `defines` as on a
    compile line; `core` reads that pass of a mixed kernel). A mixed kernel's files (both
    core passes hold signal or data operations of their own) give the cube cores' pass with
    the vector cores' as its `vector_pass`."""
    index = Index()
    seen: set[Path] = set()
    todo: list[tuple[Path, str, Loc | None]] = [(Path(p), p, None) for p in paths]
    while todo:
        path, shown, where = todo.pop(0)
        key = path.resolve()
        if key in seen:
            continue
        seen.add(key)
        sf = _load(path, shown, where)
        index.files.append(sf)
        for lineno, line in enumerate(sf.text.splitlines(), 1):
            m = _PRAGMA.search(line)
            if m:
                col = m.start() + 1
                index.pragmas.append((m.group(1).strip(), Loc(shown, lineno, col, lineno, len(line) + 1)))
        for inc, node in _includes(sf.tree.root_node):
            target = path.parent / inc
            if target.is_file():
                todo.append((target, (Path(shown).parent / inc).as_posix(), sf.loc(node)))
                continue
            found = next((Path(d) / inc for d in include_dirs if (Path(d) / inc).is_file()), None)
            if found is not None:
                todo.append((found, found.as_posix(), sf.loc(node)))
    index.notes, index.core = conditionals.evaluate(index.files, defines or {}, _reparse, core)
    if index.core == conditionals.MIXED:
        cube = load(paths, defines, include_dirs, "cube")
        cube.vector_pass = load(paths, defines, include_dirs, "vector")
        return cube
    for sf in index.files:
        _index(sf, sf.tree.root_node, index, None)
    for name, value in (defines or {}).items():
        if name not in index.defines:        # -D NAME=VALUE: a macro unless a file defines it
            snip_sf, expr = snippet(value, "sigproof.toml (defines)", None)
            index.defines[name] = (value, snip_sf, expr)
    return index


def _includes(root):
    stack = [root]
    while stack:
        n = stack.pop(0)
        if n.type == "preproc_include":
            p = n.child_by_field_name("path")
            if p is not None and p.type == "string_literal":
                yield p.text.decode("utf-8", "replace").strip('"'), n
        elif n.type in ("translation_unit", "preproc_ifdef", "preproc_if", "preproc_else",
                        "preproc_elif", "namespace_definition", "declaration_list",
                        "linkage_specification"):
            stack.extend(n.children)


def parameters(fn_node) -> list:
    """The parameter declarations of a function definition."""
    decl = fn_node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    if plist is None:
        return []
    return [p for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")]


def declarator_name(node) -> str | None:
    """The declared identifier of a (possibly pointer/reference/array) declarator."""
    while node is not None:
        if node.type in ("identifier", "field_identifier", "type_identifier", "operator_name"):
            return node.text.decode()
        if node.type in ("qualified_identifier",):
            node = node.child_by_field_name("name")
            continue
        if node.type == "destructor_name":
            return None
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type not in ("type_qualifier",)), None)
        node = inner
    return None


def _is_entry(sf: SourceFile, fn, char_lo: int, char_hi: int, extern_c: bool) -> bool:
    """A kernel entry: `__global__` before its name; or, with C linkage, `__aicore__` (or
    pto-isa's AICORE) and neither `inline` nor `static`: `extern "C" __aicore__ void
    kernel_entry(...)`, the entry pypto and simpler's runtime call. An `AICORE inline`
    device function is a helper, whatever its linkage."""
    kinds = {m.kind for m in sf.marks if char_lo <= m.start < char_hi}
    if "__global__" in kinds:
        return True
    if not extern_c or not kinds & {"__aicore__", "AICORE"}:
        return False
    return not any(c.type == "storage_class_specifier" and c.text in (b"inline", b"static") for c in fn.children)


def _extern_c(node) -> bool:
    return node.type == "linkage_specification" and any(c.type == "string_literal" and c.text == b'"C"' for c in node.children)


def _index(sf: SourceFile, node, index: Index, template, start: int = 0, extern_c: bool = False) -> None:
    prev_end = start
    for child in node.named_children:
        t = child.type
        if t == "function_definition":
            decl = child.child_by_field_name("declarator")
            fname = declarator_name(decl)
            if fname:
                body = child.child_by_field_name("body")
                name_start = decl.start_byte if decl is not None else child.start_byte
                lo = prev_end if template is None else template.start_byte
                char_lo, char_hi = sf.char_at(lo), sf.char_at(name_start)
                kernel = _is_entry(sf, child, char_lo, char_hi, extern_c)
                if body is not None:
                    index.functions.setdefault(fname, []).append(
                        Function(fname, child, sf, template, kernel))
        elif t == "template_declaration":
            params = child.child_by_field_name("parameters")
            _index_template(sf, child, params, index, prev_end)
        elif t in ("namespace_definition", "linkage_specification"):
            body = child.child_by_field_name("body")
            if body is not None:
                c_linkage = extern_c or _extern_c(child)
                if body.type == "function_definition":
                    _index(sf, child, index, template, prev_end, c_linkage)
                else:
                    _index(sf, body, index, template, body.start_byte, c_linkage)
        elif t in ("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "declaration_list"):
            _index(sf, child, index, template, prev_end, extern_c)
        elif t == "preproc_def":
            n, v = child.child_by_field_name("name"), child.child_by_field_name("value")
            if n is not None and v is not None:
                index.defines.setdefault(n.text.decode(), (v.text.decode().strip(), sf, v))
        elif t == "declaration":
            _index_global(sf, child, index)
        elif t in ("struct_specifier", "class_specifier"):
            _index_struct(child, index)
        elif t == "alias_declaration":
            n, ty = child.child_by_field_name("name"), child.child_by_field_name("type")
            if n is not None and ty is not None:
                index.aliases[n.text.decode()] = (ty, sf)
        elif t == "type_definition":
            ty = child.child_by_field_name("type")
            for d in child.children_by_field_name("declarator"):
                nm = declarator_name(d)
                if nm and ty is not None:
                    if ty.type in ("struct_specifier", "class_specifier"):
                        _index_struct(ty, index, nm)
                    else:
                        index.aliases[nm] = (ty, sf)
        elif t == "enum_specifier":
            _index_enum(child, index, sf)
        if t != "comment":
            prev_end = child.end_byte
    return None


def _index_template(sf, tdecl, params, index, prev_end) -> None:
    for c in tdecl.named_children:
        if c.type == "function_definition":
            _index_one(sf, c, index, tdecl, params)
        elif c.type in ("struct_specifier", "class_specifier"):
            _index_struct(c, index)


def _index_one(sf, fn, index, tdecl, params) -> None:
    decl = fn.child_by_field_name("declarator")
    fname = declarator_name(decl)
    if not fname or fn.child_by_field_name("body") is None:
        return
    lo, hi = sf.char_at(tdecl.start_byte), sf.char_at(decl.start_byte)
    kernel = any(m.kind == "__global__" and lo <= m.start < hi for m in sf.marks)
    index.functions.setdefault(fname, []).append(Function(fname, fn, sf, params, kernel))


def _index_global(sf, decl, index) -> None:
    for d in decl.children_by_field_name("declarator"):
        if d.type == "init_declarator":
            nm = declarator_name(d.child_by_field_name("declarator"))
            val = d.child_by_field_name("value")
            if nm and val is not None:
                index.globals.setdefault(nm, (val, sf))


def _index_struct(spec, index, alias: str | None = None) -> None:
    n, body = spec.child_by_field_name("name"), spec.child_by_field_name("body")
    if body is None:
        return
    fields: dict[str, str] = {}
    for f in body.named_children:
        if f.type != "field_declaration":
            continue
        ty = f.child_by_field_name("type")
        for d in f.children_by_field_name("declarator"):
            nm = declarator_name(d)
            if nm and ty is not None:
                stars = d.text.decode().count("*") if d.type in ("pointer_declarator",) else 0
                arr = "[]" if d.type == "array_declarator" else ""
                fields[nm] = ty.text.decode() + "*" * stars + arr
    for key in (n.text.decode() if n is not None else None, alias):
        if key:
            index.structs[key] = fields


def _index_enum(spec, index, sf) -> None:
    body = spec.child_by_field_name("body")
    if body is None:
        return
    nxt = 0
    for e in body.named_children:
        if e.type != "enumerator":
            continue
        n, v = e.child_by_field_name("name"), e.child_by_field_name("value")
        if v is not None:
            index.globals.setdefault(n.text.decode(), (v, sf))
            try:
                nxt = int(v.text.decode(), 0) + 1
            except ValueError:
                nxt = None
        elif nxt is not None:
            index.defines.setdefault(n.text.decode(), (str(nxt), sf, e))
            nxt += 1


def snippet(expr: str, shown: str, loc: Loc | None, at: Loc | None = None):
    """Parse a C++ expression (from the config, a macro, or a re-read declaration).

    With `at`, locations inside the snippet are those of the text at `at` in its file.
    Returns (SourceFile, expression node).
    """
    prefix = "int __sigproof_value = ("
    data = (prefix + expr + ");\n").encode("utf-8")
    tree = parser().parse(data)
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    base = (at.line - 1, at.col - 1, len(prefix)) if at is not None else (0, 0, 0)
    sf = SourceFile(shown, expr, data, (), tree, starts, [], base, None if at is not None else loc)
    node = tree.root_node
    decl = node.named_children[0] if node.named_children else None
    init = decl.child_by_field_name("declarator") if decl is not None else None
    value = init.child_by_field_name("value") if init is not None and init.type == "init_declarator" else None
    if tree.root_node.has_error or value is None or value.type != "parenthesized_expression":
        raise ExtractError(loc, f"config value {expr!r} is not a C++ expression", shown)
    return sf, value.named_children[0]

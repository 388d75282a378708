"""`#if` / `#ifdef` / `#ifndef` / `#elif` / `#else` evaluated, keeping lines and columns.

A kernel compiled for the device sees one branch of each conditional; the extraction must
see the same one. `evaluate(files, defines)` decides every conditional whose condition it
can evaluate and blanks (with spaces, newlines kept) its directive lines and the branches
not taken, then re-parses the file: every location stays the one in the source.

What a macro is, in this order:
- the config's `defines` (`"NAME"` or `"NAME=VALUE"`, as `-D` on a compile line);
- `#define` / `#undef` in the given files: in the file itself, those before the directive;
  from the other files, their unconditional ones (include guards count as unconditional);
- the device pass: `__CCE_AICORE__` = 220 (DEVICE_DEFINES), since the kernel that runs on
  the NPU is the one compiled with it;
- otherwise not defined, as on a compile line that does not name it (an `#if` on an
  undefined name reads 0, as in C).

The core macros (`__DAV_VEC__`, `__DAV_CUBE__` and their `__DAV_C220_` forms) name the pass a
mixed kernel is compiled in: the vector cores run one, the cube cores the other. When the
config and the files define none of them, both passes are tried: if the signal and data
operations are all in one pass's code (the other keeps none), the file is read as that
pass (its macros defined, and the note says so), since the other cores then take no part
in the protocol; else (both passes hold some, or neither) they stay undefined.

A conditional whose branches hold a signal or data operation, and that consulted a macro
from none of the first two sources, gives a note (an assumption of the extraction) with
its location. A condition that cannot be evaluated (a function-like macro, a macro whose
value is not an integer expression) is left alone: the extraction then refuses it where it
surrounds a signal operation, as before.
"""

from __future__ import annotations

import re

from frontends.core.errors import Loc

DEVICE_DEFINES = {"__CCE_AICORE__": "220"}
CORE_PASSES = {"vector": ("__DAV_VEC__", "__DAV_C220_VEC__"), "cube": ("__DAV_CUBE__", "__DAV_C220_CUBE__")}
MIXED = "mixed"  # both passes hold signal or data operations of their own: checked together (frontends.cpp)
_CORE = re.compile(rb"\b(__DAV_(C220_)?(VEC|CUBE)__|ASCEND_IS_AI[VC])\b")
_RELEVANT = re.compile(rb"\b(TNOTIFY|TWAIT|TTEST|TPUT|TGET|TPUT_ASYNC|TGET_ASYNC|SyncAll)\b")
_OPS = re.compile(rb"\b(TNOTIFY|TWAIT|TTEST|TPUT|TGET|TPUT_ASYNC|TGET_ASYNC)\b")
# AscendC's `if ASCEND_IS_AIV { ... }` / `if ASCEND_IS_AIC { ... }` (a macro for
# `constexpr(g_coreType == AIV)`): in a known pass, the macro is read as (1) or (0)
_IS_CORE = re.compile(rb"\bASCEND_IS_(AIV|AIC)\b")
_IS_CORE_PASS = {b"AIV": "vector", b"AIC": "cube"}
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*$")
MAX_DEPTH = 32
MAX_NESTING = 200      # conditionals nested deeper are left alone (and refused around signals)


class Unknown(Exception):
    """A condition the evaluation cannot decide."""


def parse_defines(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, _, value = str(item).partition("=")
        out[name.strip()] = value.strip() if value else "1"
    return out


def _line_end(data: bytes, pos: int) -> int:
    """The end of the (possibly backslash-continued) line at pos, newline excluded."""
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return len(data)
        if data[max(end - 1, 0):end] != b"\\" and data[max(end - 2, 0):end] != b"\\\r":
            return end
        pos = end + 1


def _kind(node) -> str:
    first = node.children[0] if node.children else None
    return first.type if first is not None else ""


def unconditional_defines(sf) -> dict[str, str]:
    """The file's `#define`s outside conditionals, include guards looked through."""
    out: dict[str, str] = {}

    def visit(node) -> None:
        for c in node.named_children:
            if c.type == "preproc_def":
                name, value = c.child_by_field_name("name"), c.child_by_field_name("value")
                if name is not None:
                    out[name.text.decode()] = value.text.decode().strip() if value is not None else ""
            elif c.type == "preproc_ifdef" and _is_guard(c):
                visit(c)
    visit(sf.tree.root_node)
    return out


def _is_guard(node) -> bool:
    """`#ifndef X` whose first item is `#define X`, with no #else: an include guard."""
    if node.type != "preproc_ifdef" or _kind(node) != "#ifndef" or node.child_by_field_name("alternative") is not None:
        return False
    name = node.child_by_field_name("name")
    body = [c for c in node.named_children if c.type != "comment" and c is not name]
    return bool(body) and body[0].type == "preproc_def" and body[0].child_by_field_name("name") is not None \
        and body[0].child_by_field_name("name").text == name.text


class _File:
    def __init__(self, sf, outside: dict[str, str], config: dict[str, str], core: str | None = None,
                 mixed: bool = False):
        self.sf, self.config, self.core, self.mixed = sf, config, core, mixed
        chosen = {n: "" for n in CORE_PASSES[core]} if core else {}
        self.defines = {**DEVICE_DEFINES, **chosen, **outside, **config}
        self.from_files = set(outside)
        self.blank: list[tuple[int, int]] = []
        self.notes: list[tuple[Loc, str]] = []
        self.consulted: set[str] = set()
        self.nesting = 0

    # ---- conditions

    def value(self, node, depth: int = 0) -> int:
        if depth > MAX_DEPTH:
            raise Unknown
        t = node.type
        if t == "number_literal":
            text = node.text.decode()
            if not _INT.match(text):
                raise Unknown
            return int(text.rstrip("uUlL"), 0) if not re.match(r"^0[0-7]+", text) else int(text.rstrip("uUlL"), 8)
        if t == "identifier":
            return self.macro(node.text.decode(), depth)
        if t == "preproc_defined":
            ident = next((c for c in node.named_children if c.type == "identifier"), None)
            if ident is None:
                raise Unknown
            self.consulted.add(ident.text.decode())
            return int(ident.text.decode() in self.defines)
        if t == "parenthesized_expression" and node.named_child_count == 1:
            return self.value(node.named_children[0], depth + 1)
        if t == "unary_expression":
            op, arg = node.child_by_field_name("operator").text.decode(), node.child_by_field_name("argument")
            v = self.value(arg, depth + 1)
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[op]
        if t == "binary_expression":
            op = node.child_by_field_name("operator").text.decode()
            a = self.value(node.child_by_field_name("left"), depth + 1)
            if op == "&&" and not a:
                return 0
            if op == "||" and a:
                return 1
            b = self.value(node.child_by_field_name("right"), depth + 1)
            if op in ("/", "%") and b == 0:
                raise Unknown
            ops = {"&&": lambda: int(bool(b)), "||": lambda: int(bool(b)), "==": lambda: int(a == b),
                   "!=": lambda: int(a != b), "<": lambda: int(a < b), ">": lambda: int(a > b),
                   "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "+": lambda: a + b,
                   "-": lambda: a - b, "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a - int(a / b) * b,
                   "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
                   "<<": lambda: a << b if 0 <= b < 64 else 0, ">>": lambda: a >> b if 0 <= b < 64 else 0}
            if op not in ops:
                raise Unknown
            return ops[op]()
        if t == "conditional_expression":
            c = self.value(node.child_by_field_name("condition"), depth + 1)
            return self.value(node.child_by_field_name("consequence" if c else "alternative"), depth + 1)
        raise Unknown

    def macro(self, name: str, depth: int) -> int:
        self.consulted.add(name)
        if name not in self.defines:
            return 0
        text = self.defines[name].strip()
        if _INT.match(text):
            return int(text.rstrip("uUlL"), 0) if not re.match(r"^0[0-7]+", text) else int(text.rstrip("uUlL"), 8)
        if re.fullmatch(r"[A-Za-z_]\w*", text):
            return self.macro(text, depth + 1)
        if re.fullmatch(r"\(\s*-?\d+\s*\)", text):
            return int(text.strip("() "))
        raise Unknown

    def condition(self, node) -> bool:
        t = node.type
        if t == "preproc_ifdef" or t == "preproc_elifdef":
            name = node.child_by_field_name("name")
            if name is None:
                raise Unknown
            self.consulted.add(name.text.decode())
            defined = name.text.decode() in self.defines
            return defined if _kind(node) in ("#ifdef", "#elifdef") else not defined
        if t in ("preproc_if", "preproc_elif"):
            cond = node.child_by_field_name("condition")
            if cond is None:
                raise Unknown
            return bool(self.value(cond))
        if t == "preproc_else":
            return True
        raise Unknown

    # ---- the walk

    def walk(self, node) -> None:
        """Every directive under node, in document order (an explicit stack: no recursion
        on the nesting of the code, only on that of the conditionals)."""
        stack = list(reversed(node.named_children))
        while stack:
            c = stack.pop()
            if c.type in ("preproc_def", "preproc_call", "preproc_if", "preproc_ifdef"):
                self.visit(c)
            else:
                stack.extend(reversed(c.named_children))

    def visit(self, c) -> None:
        t = c.type
        if t == "preproc_def":
            name, value = c.child_by_field_name("name"), c.child_by_field_name("value")
            if name is not None:
                self.defines[name.text.decode()] = value.text.decode().strip() if value is not None else ""
                self.from_files.add(name.text.decode())
        elif t == "preproc_call":
            directive, arg = c.child_by_field_name("directive"), c.child_by_field_name("argument")
            if directive is not None and directive.text == b"#undef" and arg is not None:
                self.defines.pop(arg.text.decode().strip(), None)
        elif t in ("preproc_if", "preproc_ifdef"):
            self.conditional(c)
        else:
            self.walk(c)

    def conditional(self, top) -> None:
        data = self.sf.data
        endif = data.rfind(b"#endif", top.start_byte, top.end_byte)
        self.nesting += 1
        try:
            self.decide(top, data, endif)
        finally:
            self.nesting -= 1

    def decide(self, top, data: bytes, endif: int) -> None:
        if endif < 0 or top.has_error or self.nesting > MAX_NESTING:
            self.walk_branch(top)            # malformed: leave it to the parser as it is
            return
        branches, node = [], top
        while node is not None:
            alt = node.child_by_field_name("alternative")
            start = _line_end(data, node.start_byte) + 1
            branches.append((node, start, alt.start_byte if alt is not None else endif))
            node = alt
        self.consulted = set()
        try:
            taken = None
            for k, (b, _, _) in enumerate(branches):
                if self.condition(b):
                    taken = k
                    break
        except Unknown:
            self.walk_branch(top)
            return
        consulted = self.consulted
        for k, (b, start, end) in enumerate(branches):
            self.blank.append((b.start_byte, _line_end(data, b.start_byte)))
            if k != taken:
                self.blank.append((start, end))
        self.blank.append((endif, _line_end(data, endif)))
        outside = sorted(n for n in consulted if n not in self.from_files and n not in self.config)
        if outside and not _is_guard(top) and _RELEVANT.search(data[top.start_byte:top.end_byte]):
            said = ", ".join(self._said(n) for n in outside)
            self.notes.append((self.sf.loc(top), f"the preprocessor condition here is taken with {said} "
                                                 f"(set defines = [\"NAME\", \"NAME=VALUE\"] in sigproof.toml otherwise)"))
        if taken is not None:
            self.walk_branch(branches[taken][0])

    def _said(self, name: str) -> str:
        if self.core and any(name in names for names in CORE_PASSES.values()):
            other = next(k for k in CORE_PASSES if k != self.core)
            if self.mixed:
                return (f"{name} {'defined' if name in CORE_PASSES[self.core] else 'not defined'} in the {self.core} "
                        f"cores' pass of a mixed kernel (both passes hold signal or data operations of their own; "
                        f"the {other} cores' pass is read with the other branch, and both are checked together)")
            return (f"{name} {'defined' if name in CORE_PASSES[self.core] else 'not defined'} (the {self.core} "
                    f"cores' pass: the signal and data operations are all in its code, the {other} cores' pass "
                    f"has none)")
        return f"{name} = {self.defines[name]}" if name in self.defines else f"{name} not defined"

    def walk_branch(self, node) -> None:
        """The items of one branch (not its condition, name or the branches after it)."""
        skip = {c.id for c in (node.child_by_field_name(f) for f in ("condition", "name", "alternative")) if c is not None}
        for c in node.named_children:
            if c.id not in skip:
                self.visit(c)


def evaluate(files: list, config_defines: dict[str, str], reparse, core: str | None = None) -> tuple[list, str | None]:
    """Decide the conditionals of every file; returns the notes and the core pass read
    ("vector", "cube", MIXED or None). `reparse(sf, data)` gives the file a new tree for its
    blanked bytes. `core` reads that pass of a mixed kernel (the caller reads each); without
    it the pass is chosen as the module says, and MIXED leaves the files as they are (the
    caller then reads them once per pass)."""
    per_file = {id(sf): unconditional_defines(sf) for sf in files}
    outside = {}
    for sf in files:
        outside[id(sf)] = {}
        for other in files:
            if other is not sf:
                outside[id(sf)].update(per_file[id(other)])
    mixed = core is not None
    if core is None:
        core = _core_pass(files, outside, config_defines)
        if core == MIXED:
            return [], MIXED
    notes: list[tuple[Loc, str]] = []
    for sf in files:
        ifs = b"#if" in sf.data or b"#elif" in sf.data
        subs = _core_tests(sf.data) if core else []
        if not ifs and not subs:
            continue
        blank = []
        if ifs:
            f = _File(sf, outside[id(sf)], config_defines, core, mixed)
            f.walk(sf.tree.root_node)
            blank = f.blank
            notes.extend(f.notes)
        if not blank and not subs:
            continue
        reparse(sf, _substituted(_blanked(sf.data, blank), subs, core))
    return notes, core


def _core_tests(data: bytes) -> list:
    """The `ASCEND_IS_AIV` / `ASCEND_IS_AIC` tokens of a file: (start, end, the pass they test)."""
    return [(m.start(), m.end(), _IS_CORE_PASS[m.group(1)]) for m in _IS_CORE.finditer(data)]


def _substituted(data: bytes, subs: list, core: str) -> bytes:
    """Each core test read in pass `core`: `(1)` or `(0)`, padded with spaces to its length
    (every location stays the one in the source). One blanked out stays blank."""
    buf = bytearray(data)
    for start, end, which in subs:
        if buf[start:end].strip() == b"":
            continue
        value = b"(1)" if which == core else b"(0)"
        buf[start:end] = value + b" " * (end - start - len(value))
    return bytes(buf)


def _dead_bodies(data: bytes, core: str) -> list[tuple[int, int]]:
    """The bodies `{ ... }` of `if ASCEND_IS_X` that pass `core` does not run (braces matched
    outside comments and string literals): for counting its operations."""
    out = []
    for start, end, which in _core_tests(data):
        if which == core:
            continue
        k = data.find(b"{", end)
        if k < 0 or data[end:k].strip(b" \t\r\n)"):
            continue
        depth, i = 0, k
        while i < len(data):
            c = data[i:i + 1]
            if data.startswith(b"//", i):
                i = data.find(b"\n", i)
                i = len(data) if i < 0 else i
                continue
            if data.startswith(b"/*", i):
                i = data.find(b"*/", i + 2)
                i = len(data) if i < 0 else i + 2
                continue
            if c in (b'"', b"'"):
                j = i + 1
                while j < len(data) and data[j:j + 1] != c:
                    j += 2 if data[j:j + 1] == b"\\" else 1
                i = j + 1
                continue
            if c == b"{":
                depth += 1
            elif c == b"}":
                depth -= 1
                if depth == 0:
                    out.append((k, i + 1))
                    break
            i += 1
    return out


def _blanked(data: bytes, ranges) -> bytes:
    buf = bytearray(data)
    for start, end in ranges:
        for i in range(start, min(end, len(buf))):
            if buf[i] not in (0x0A, 0x0D):
                buf[i] = 0x20
    return bytes(buf)


def _core_pass(files: list, outside: dict, config_defines: dict[str, str]) -> str | None:
    """"vector" or "cube" when the files test a core macro that neither the config nor the
    files define, and only that pass keeps signal or data operations; MIXED when both keep
    some and they are not the same ones (each pass holds signal or data operations the other
    does not); else None."""
    names = {n for ns in CORE_PASSES.values() for n in ns}
    if names & set(config_defines) or not any(_CORE.search(sf.data) for sf in files):
        return None
    if any(names & set(per) for per in outside.values()) or any(
            names & set(unconditional_defines(sf)) for sf in files):
        return None
    kept, ops = {}, {}
    for core in CORE_PASSES:
        count, where = 0, set()
        for sf in files:
            f = _File(sf, outside[id(sf)], config_defines, core)
            f.walk(sf.tree.root_node)
            data = _blanked(sf.data, f.blank)
            dead = _dead_bodies(data, core)
            live = [m for m in _RELEVANT.finditer(data) if not any(a <= m.start() < b for a, b in dead)]
            count += len(live)
            where |= {(id(sf), m.start()) for m in live if _OPS.fullmatch(m.group(0))}
        kept[core], ops[core] = count, where
    with_ops = [core for core, n in kept.items() if n]
    if len(with_ops) == 1:
        return with_ops[0]
    if len(with_ops) == 2 and all(ops.values()) and ops["vector"] != ops["cube"]:
        return MIXED
    return None

"""Abstract interpretation of a kernel's syntax tree into .sig skeleton statements.

Integers fold to literals where the code determines them (macros, constexpr, template
parameters, launch arguments, config values) and stay symbolic otherwise (`rank`, loop
variables, locals). Pointers are tracked as (signal, byte offset, rank); helper functions
are followed by evaluating their bodies with the argument values. Whatever the code does
not say becomes a param plus an `Assumption` at its C++ location.

Known limitations: loops are not unrolled, so a pointer that changes inside a loop is
refused; a pointer built from a local reads that local's current value; a helper's
`return` inside one of its loops is refused; `goto` and exceptions around signal operations
are refused, and so is a `switch` whose `break` is inside a case's control flow; `do { } while` bodies must not `continue`. docs/frontends.md has
the full list.
"""


from __future__ import annotations

import re

from frontends.core import sym as S
from frontends.core.errors import ExtractError, Loc
from frontends.core import skeleton as K
from frontends.core.builder import Builder
from frontends.cpp.source import Function, Index, SourceFile, declarator_name, snippet
from frontends.core.sym import FULL, NONE, PARTIAL, Sym
from frontends.cpp.values import CMPS, OPS, Elem, Enum, Local, Ptr, Shift, Unknown, View, Windows, pointee
from frontends.cpp.vocabulary import BUILTIN_CALLS, SignalInfo, Site, norm, origin_key
from frontends.cpp.calls import Calls
from frontends.cpp.data import Data
from frontends.cpp.expressions import Expressions
from frontends.cpp.statements import Statements
from frontends.cpp.views import Views
from frontends.cpp.workspace import Workspace

__all__ = ["Interp", "norm"]


class Interp(Expressions, Views, Data, Calls, Statements, Workspace, Builder):
    """Interprets one kernel (and the helpers it calls) into skeleton statements."""

    def __init__(self, index: Index, cfg: dict, kernel: Function, proven: dict | None = None,
                 moving: frozenset = frozenset()):
        super().__init__()
        cfg, self.regions = _regions(cfg, kernel.file.path)
        self.index, self.cfg, self.kernel = index, cfg, kernel
        # C++ expressions (origin keys) the code shows to be the own rank / the rank count,
        # found by a first pass (evidence) and used by the second (proven): see translation()
        self.proven: dict[str, set[str]] = {"rank": set(), "nranks": set(), **(proven or {})}
        self.evidence: dict[str, set[str]] = {"rank": set(), "nranks": set()}
        self.table_reads: dict[str, Elem] = {}  # param -> the 64-bit table entry it was read from (table_read)
        self.sweeps: list[tuple[str, Sym]] = []      # enclosing `for (p = 0; p < n; ++p)`: (p, n)
        self.sf: SourceFile = kernel.file
        self.scopes: list[dict] = [{}]
        self.param_keys: dict[str, str] = {}
        self.signals: dict[str, SignalInfo] = {}
        self.buffers: dict[str, SignalInfo] = {}          # data of TPUT / TGET (and their TLOAD / TSTORE)
        self.transfer_bases: set[str] = set()
        # data tensors rebound inside a loop (found by an earlier pass, and by this one): the
        # transfers through them are left out
        self.moving_views: set = set(moving)
        self.data_sites: dict[tuple, tuple] = {}          # TPUT / TGET: (kind, loc, levels)
        self.sites: dict[tuple, Site] = {}
        self.locals: set[str] = set()
        self.local_values: dict[str, Sym | None] = {}
        # counters: a local that starts at a constant and is only ever increased by constants,
        # -> (its start, [(increment, the for_statement ids around the increment)])
        self.counters: dict[str, tuple[int, list[tuple[int, list[int]]]]] = {}
        # for_statement id -> (loop variable, its first value, its step), None when its trips
        # cannot be bounded (what `counters` multiply by)
        self.loop_trips: dict[int, tuple[str, int, int] | None] = {}
        self.loop_depth = 0
        self.ptr_loop_guard: list[int] = []
        self.depth = 0
        self.ret_ctx: list[dict] = []
        self.uses = {"rank": False, "nranks": False, "block": False, "nblocks": False}
        self.builtin_text: dict[str, tuple[str, int]] = {}
        for b, calls in BUILTIN_CALLS.items():
            for c in calls:
                self.builtin_text[norm(c)] = (b, FULL)
        for b in ("rank", "nranks", "block", "nblocks"):
            for expr in cfg.get(b, []):
                self.builtin_text[norm(expr)] = (b, PARTIAL)
        self.windows = set(cfg.get("windows", [])) | {"windowsIn", "windowsOut"}
        self.plain = set(cfg.get("plain_signals", []))
        self.region_noted: set[str] = set()  # regions whose start was said in the assumptions
        self.region_notes: dict[str, str] = {}  # region -> what its start is (workspace.py), if not the config's
        self.mutated_cache: dict[int, set[str]] = {}
        self.launch_args: dict[str, Sym] = {}
        self.launch_hints: list[str] = []     # what the kernel's launches leave open (extract)
        self.ptr_paths: dict[str, str] = {}   # signal base name -> the untyped pointer path it stands for
        self.untyped: dict[str, tuple[Loc, str]] = {}   # base name -> (where, text) of an untyped pointer path
        self.facts: list[dict[str, Sym]] = []
        self.local_levels: dict[str, int] = {}
        self.conventions_said: set[str] = set()
        self.views: dict[tuple, tuple[str, str, Loc]] = {}     # strided windows: (name, declaration, where)
        # the core pass read ("vector", "cube", None when the code tests no core macro), whether
        # it is one pass of a mixed kernel checked with the other (extract), the vector cores
        # per cube core there, and what `block` / `nblocks` are in this pass's code
        self.core: str | None = index.core
        self.mixed = False
        self.subblocks = 1
        self.block_map: dict[str, Sym] = {}

    def loc(self, node) -> Loc:
        return self.sf.loc(node)

    def text(self, node) -> str:
        return self.sf.text_of(node)

    def error(self, node, message: str) -> ExtractError:
        return ExtractError(self.loc(node) if node is not None else None, message, self.sf.path)

    def param(self, key: str, hint: str, value: int, comment: str, loc: Loc | None) -> Sym:
        origin = origin_key(key) if key.startswith(("arg:", "field:", "elem:")) else None
        if key in self.param_keys:
            return S.name(self.param_keys[key], NONE, origin)
        pname = self.fresh(re.sub(r"\W", "_", hint).upper())
        self.param_keys[key] = pname
        self.params[pname] = (value, comment, loc)
        return S.name(pname, NONE, origin)

    def local_level(self, name: str, level: int) -> None:
        """A local is as resolved as the least resolved value it was given."""
        self.local_levels[name] = min(level, self.local_levels.get(name, FULL))

    def builtin(self, which: str, level: int, origin: str | None = None) -> Sym:
        self.uses[which] = True
        mapped = self.block_map.get(which)
        if mapped is not None:   # a mixed kernel's pass: its cores' own block index and count
            return S.with_level(mapped, level)
        return S.name(which, level, origin)

    def lookup(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, value) -> None:
        self.scopes[-1][name] = value
        self.scopes[-1][("depth", name)] = self.loop_depth  # the loops around its declaration

    def as_int(self, v, node, hint: str = "VALUE") -> Sym:
        if isinstance(v, Sym):
            return v
        if isinstance(v, Shift):
            return v.value
        if isinstance(v, Local):
            return S.name(v.name, self.local_levels.get(v.name, FULL))
        if isinstance(v, Elem) and v.ptr.plain:
            return self.unknown_int(self.text(node), node, hint,
                                    "a plain load of a signal outside a comparison")
        if isinstance(v, Unknown):
            return self.resolve_unknown(v, node, hint)
        if isinstance(v, Elem):
            key = self.elem_key(v)
            for which in ("rank", "nranks"):
                if key and key in self.proven[which]:
                    return self.builtin(which, FULL)
            return self.resolve_unknown(Unknown(self.text(node), self.loc(node), hint, key or ""), node, hint,
                                        "runtime data", ", a load from global memory")
        if isinstance(v, Enum):
            return S.num((OPS if v.kind == "op" else CMPS).index(v.name), v.level)
        return self.unknown_int(self.text(node), node, hint, "a value the extraction cannot follow")

    @staticmethod
    def elem_key(v: Elem) -> str | None:
        """`elem:args@8` for a word read at a constant offset of a kernel argument's own
        memory (`args[1]` of an `int64_t *args`): the same value at every read, so that
        evidence about it (a sweep bound, translation()) can be tied back to it."""
        p = v.ptr
        if p.rank is None and not p.plain and S.is_int(p.offset):
            return f"elem:{p.base}@{p.offset.args[0]}"
        return None

    def unknown_int(self, text: str, node, hint: str, why: str, detail: str = "") -> Sym:
        return self.resolve_unknown(Unknown(text, self.loc(node), hint, ""), node, hint, why, detail)

    def resolve_unknown(self, u: Unknown, node, hint: str, why: str | None = None, detail: str = "") -> Sym:
        key = norm(u.text)
        runtime, bounds = self.cfg.get("runtime", {}), self.cfg.get("bounds", {})
        if key in {norm(k) for k in runtime}:
            expr = next(v for k, v in runtime.items() if norm(k) == key)
            return S.with_level(self.as_int(self.eval_config(str(expr), u.loc), node, hint), PARTIAL)
        hint = u.hint if u.hint != "VALUE" else hint
        line = u.loc.line
        pkey = u.key or f"{key}@{u.loc}"
        # a param is named after what it is in the source: the variable it is read into, else
        # the field, array or call it is read from (`->start_offset`: START_OFFSET), never after
        # its line (fresh() tells two of one name apart)
        pname_hint = hint if u.key.startswith(("arg:", "name:")) or hint != "VALUE" else _source_name(u.text, line)
        if key in {norm(k) for k in bounds}:
            lo, hi = next(v for k, v in bounds.items() if norm(k) == key)
            lo_s, hi_s = (self.config_value(x, u.loc) for x in (lo, hi))
            n = self.fresh(pname_hint.lower())
            self.local_level(n, PARTIAL)
            self.local_values[n] = hi_s
            self.emit(K.decl(n, (lo_s, hi_s), u.loc, text=f"any({S.render(lo_s)}, {S.render(hi_s)})"))
            self.assume(u.loc, f"{u.text} is runtime data in [{S.render(lo_s)}, {S.render(hi_s)}]; modelled as "
                               f"int {n} = any({S.render(lo_s)}, {S.render(hi_s)}): every value is explored")
            return S.name(n, PARTIAL)
        what = why or ("a kernel argument" if u.key.startswith("arg:") else
                       "a name not defined in the given files" if u.key.startswith("name:") else "runtime data")
        p = self.param(pkey, pname_hint, 0, f"assumed: {u.text} ({what})", u.loc)
        self.runtime_params.setdefault(S.render(p), u.loc)
        self.assume(u.loc, f"{hint if hint != 'VALUE' else 'value'} comes from {what} ({u.text}{detail}); modelled as a param {p}", S.render(p))
        return p

    def as_ptr(self, v, node) -> Ptr | None:
        if isinstance(v, Ptr):
            return v
        if isinstance(v, Elem):
            return v.ptr
        if isinstance(v, View):
            return v.ptr
        if isinstance(v, Unknown) and v.key.startswith("unfollowed:"):
            return None  # a struct's address field set in a branch or a loop (Statements.assign_field)
        if isinstance(v, Unknown) and re.fullmatch(r"[A-Za-z_][\w.>-]*", v.text.replace(" ", "")) and (
                v.pointer or "->" in v.text or "." in v.text or v.key.startswith("arg:")):
            base = v.text.split("->")[-1].split(".")[-1]
            path = norm(v.text).replace("->", ".")
            if self.ptr_paths.setdefault(base, path) != path:
                # `a->buffer.addr` and `b->buffer.addr` are two buffers: name the second by its path
                base = re.sub(r"\W+", "_", path).strip("_")
                self.ptr_paths.setdefault(base, path)
            self.untyped.setdefault(base, (v.loc, v.text))      # said by pointer_notes, once its use is known
            return Ptr(base, S.num(0), None, 4, PARTIAL, base in self.plain, v.loc)
        return None

    def pointer_notes(self) -> list[tuple[Loc, str]]:
        """What each untyped pointer path (`t->buffer.addr`) was taken for: a signal, or the data
        of a TPUT / TGET / TLOAD / TSTORE. Known once the kernel is read and the buffers no
        transfer touches are dropped; a path that ended up as neither is not mentioned."""
        out = []
        for base, (loc, text) in self.untyped.items():
            if base in self.signals:
                out.append((loc, f"{text} is used as a signal buffer; its type is not visible, modelled as int32 elements"))
            elif base in self.buffers:
                out.append((loc, f"{text} is used as a data buffer (TPUT / TGET / TLOAD / TSTORE data, not a signal); "
                                 f"its type is not visible, its elements are those of the tensor over it"))
        return out

    def as_view(self, v, node) -> View:
        if isinstance(v, View) and v.data:
            raise self.error(node, f"`{self.text(node)}` is a GlobalTensor of data (not int32): it cannot be a signal")
        if isinstance(v, View):
            return v
        p = self.as_ptr(v, node)
        if p is None:
            raise self.error(node, f"cannot tell which signal `{self.text(node)}` is: give the kernel argument an int32 pointer type or name it in plain_signals")
        return View(p, (), ())

    def as_enum(self, v, node, kind: str) -> Enum | Sym:
        if isinstance(v, Enum) and v.kind == kind:
            return v
        ops = self.cfg.get("ops", {})
        key = norm(self.text(node))
        for k, val in ops.items():
            if norm(k) == key:
                names = OPS if kind == "op" else CMPS
                if val not in names:
                    raise self.error(node, f"config ops value {val!r} is not one of {', '.join(names)}")
                return Enum(kind, val, PARTIAL)
        if isinstance(v, Sym) and S.is_int(v):
            names = OPS if kind == "op" else CMPS
            if 0 <= v.args[0] < len(names):
                return Enum(kind, names[v.args[0]], v.level)
        hint = "OP" if kind == "op" else "CMP"
        names = OPS if kind == "op" else CMPS
        p = self.param(f"{kind}:{key}@{self.loc(node)}", f"{hint}_{self.loc(node).line}", 0,
                       f"assumed: {self.text(node)} picks {' / '.join(f'{i}={n}' for i, n in enumerate(names))}", self.loc(node))
        self.assume(self.loc(node), f"{'notify op' if kind == 'op' else 'wait comparison'} comes from runtime data ({self.text(node)}); modelled as a param {p} choosing among {', '.join(names)}", S.render(p))
        return p

    def eval_config(self, expr: str, loc: Loc | None):
        sf, node = snippet(expr, loc.file if loc else "<config>", loc)
        saved = self.sf
        self.sf = sf
        try:
            return self.eval(node)
        finally:
            self.sf = saved

    def config_value(self, v, loc):
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ExtractError(loc, f"config value {v!r}: an integer or a C++ expression string expected")
        if isinstance(v, int):
            return S.num(v, PARTIAL)
        return S.with_level(self.as_int(self.eval_config(v, loc), None), PARTIAL)

    def run(self, launch_args: dict[str, Sym], launch_template: list) -> list:
        f = self.kernel
        scope: dict = {}
        if f.template is not None:
            self.bind_template(f, launch_template, scope)
        values = self.cfg.get("values", {})
        for p in self.params_of(f):
            d = p.child_by_field_name("declarator")
            pname = declarator_name(d)
            if pname is None:
                continue
            ty = p.child_by_field_name("type")
            ctype = self.text(ty) + ("*" if d is not None and d.type == "pointer_declarator" else "")
            loc = self.sf.loc(p)
            proven = next((w for w in ("rank", "nranks") if origin_key(f"arg:{pname}") in self.proven[w]), None)
            if proven is not None and pointee(ctype) is None:
                scope[pname] = self.builtin(proven, FULL)
            elif norm(pname) in self.builtin_text:
                which, level = self.builtin_text[norm(pname)]
                scope[pname] = self.builtin(which, level, origin_key(f"arg:{pname}") if level < FULL else None)
            elif pname in values:
                scope[pname] = self.config_value(values[pname], loc)
            elif pname in launch_args:
                scope[pname] = launch_args[pname]
            elif pname in self.windows:
                scope[pname] = Windows(origin_key(f"arg:{pname}"))
            elif (conv := self.conventional(pname, pname, loc)) is not None and pointee(ctype) is None:
                scope[pname] = conv
            else:
                scope[pname] = self.value_of_type(ctype, pname, pname, loc, f"arg:{pname}")
        self.scopes = [scope]
        body = f.node.child_by_field_name("body")
        for pname in sorted(self.mutated(body) & set(scope)):
            if isinstance(scope[pname], (Sym, Unknown)):       # an argument the kernel changes
                v = self.as_int(scope[pname], f.node)
                n = self.fresh(pname)
                scope[pname] = Local(n)
                self.local_level(n, v.level)
                self.local_values[n] = None
                self.emit(K.decl(n, v, self.sf.loc(f.node.child_by_field_name("declarator"))))
        for err in f.file.errors:
            if f.node.start_byte <= err.start_byte < f.node.end_byte:
                raise ExtractError(f.file.loc(err), "syntax error: the C++ parser cannot read this part of the kernel")
        self.split_workspaces(body)
        self.s_compound_statement(body)
        return self.out[0]


def _regions(cfg: dict, path: str) -> tuple[dict, dict[str, str]]:
    """The config's `[regions]` (NAME = {base = "C++ address", elems = N}: a signal or buffer
    that starts at that address, typically `workspace + offset` of a byte workspace) as
    {normalized address text: NAME}, and the config with each `elems` as the size of NAME
    (`[signals]` / `[buffers]` given for NAME win)."""
    regions = cfg.get("regions") or {}
    if not regions:
        return cfg, {}
    out, sizes = {}, {}
    for name, spec in regions.items():
        if (not isinstance(spec, dict) or not isinstance(spec.get("base"), str) or set(spec) - {"base", "elems"}
                or not isinstance(spec.get("elems", 1), int) or spec.get("elems", 1) < 1):
            raise ExtractError(None, f"config regions.{name}: write {name} = {{base = \"C++ address\", elems = N}} "
                                     f"(elems, a positive integer, may be left out)", path)
        out[norm(spec["base"])] = name
        if "elems" in spec:
            sizes[name] = spec["elems"]
    if sizes:
        cfg = {**cfg, "signals": {**sizes, **cfg.get("signals", {})}, "buffers": {**sizes, **cfg.get("buffers", {})}}
    return cfg, out


def _source_name(text: str, line: int) -> str:
    """The name a runtime value has in the source: the last field or variable of `text`
    before any index or call (`t->buffer.start_offset` -> start_offset, `route[0]` -> route),
    else VALUE_<line>."""
    head = re.split(r"[\[(]", text.strip(), maxsplit=1)[0]
    names = re.findall(r"[A-Za-z_]\w*", head)
    return names[-1] if names else f"VALUE_{line}"

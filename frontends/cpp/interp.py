"""Abstract interpretation of a kernel's syntax tree into .sig skeleton statements.

Integers fold to literals where the code determines them (macros, constexpr, template
parameters, launch arguments, config values) and stay symbolic otherwise (`rank`, loop
variables, locals). Pointers are tracked as (signal, byte offset, rank); helper functions
are followed by evaluating their bodies with the argument values. Whatever the code does
not say becomes a param plus an `Assumption` at its C++ location.

Known limitations: loops are not unrolled, so a pointer that changes inside a loop is
refused; a helper's `return` inside one of its loops is refused; `switch`, `goto` and
exceptions around signal operations are refused; `do { } while` bodies must not `continue`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from frontends.cpp import sym as S
from frontends.cpp.errors import ExtractError, Loc
from frontends.cpp.skeleton import Block, Line
from frontends.cpp.source import Function, Index, SourceFile, declarator_name, snippet
from frontends.cpp.sym import FULL, NONE, PARTIAL, Sym
from frontends.cpp.values import (CMPS, INT32_TYPES, INT_TYPES, OPS, SIZE_OF, Elem, Enum, Local,
                                  Offset, Ptr, Struct, Unknown, View, Window, Windows, clean_type,
                                  pointee)

SIG_KEYWORDS = {
    "protocol", "param", "const", "ranks", "blocks", "signal", "kernel", "host", "check",
    "expect", "int", "bool", "if", "else", "for", "while", "break", "continue", "return",
    "assert", "TNOTIFY", "TWAIT", "TTEST", "pipe_barrier", "launch", "reset", "host_barrier",
    "true", "false", "min", "max", "rank", "block", "nranks", "nblocks", "launch_id",
    "NRANKS", "NBLOCKS", "any", "block_barrier", "dsb",
}

BUILTIN_CALLS = {
    "rank": ("GetRank()", "get_rank()", "GetRankId()"),
    "nranks": ("GetRankSize()", "get_rank_size()", "GetRankNum()"),
    "block": ("get_block_idx()", "GetBlockIdx()"),
    "nblocks": ("get_block_num()", "GetBlockNum()"),
}
CONVENTIONAL = {
    "rank": ("rank", "myRank", "my_rank", "rankId", "rank_id", "localRank", "me"),
    "nranks": ("nranks", "nRanks", "rankSize", "rank_size", "worldSize", "world_size",
               "numRanks", "num_ranks", "rankNum"),
    "nblocks": ("nblocks", "blockNum", "block_num", "numBlocks", "num_blocks"),
}
WRAPPERS = ("Signal", "Signal2D", "GlobalTensor")
# intrinsics that move data or order pipes inside a rank: no signal meaning
IGNORED_CALLS = {
    "TPUT", "TGET", "TLOAD", "TSTORE", "TMOV", "TADD", "TMUL", "TASSIGN", "TCOPY", "TEXP",
    "TSUB", "TDIV", "TMAX", "TMIN", "TCVT", "TGATHER", "TSCATTER", "TREDUCE", "TBROADCAST",
    "DataCopy", "dcci", "set_flag", "wait_flag", "SetFlag", "WaitFlag", "printf", "assert",
    "PipeBarrier", "static_assert", "memcpy", "memset",
}
BLOCK_BARRIERS = ("SyncAll", "block_barrier")
MAX_INLINE_DEPTH = 32


def norm(text: str) -> str:
    return re.sub(r"\s+", "", text).removeprefix("::")


@dataclass
class SignalInfo:
    name: str
    key: str
    loc: Loc | None
    level: int
    dims: tuple[Sym, ...] | None = None        # kernel-context, from the config
    spans: list = field(default_factory=list)  # (first element, last element) used


@dataclass
class Site:
    kind: str
    loc: Loc
    levels: dict


class Interp:
    """Interprets one kernel (and the helpers it calls) into skeleton statements."""

    def __init__(self, index: Index, cfg: dict, kernel: Function):
        self.index, self.cfg, self.kernel = index, cfg, kernel
        self.sf: SourceFile = kernel.file
        self.scopes: list[dict] = [{}]
        self.out: list[list] = [[]]
        self.params: dict[str, tuple[int, str, Loc | None]] = {}
        self.param_keys: dict[str, str] = {}
        self.assumptions: list[tuple[Loc, str]] = []
        self.signals: dict[str, SignalInfo] = {}
        self.sites: dict[tuple, Site] = {}
        self.locals: set[str] = set()
        self.local_values: dict[str, Sym | None] = {}
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
        self.mutated_cache: dict[int, set[str]] = {}
        self.launch_args: dict[str, Sym] = {}
        self.used_names: set[str] = set()
        self.facts: list[dict[str, Sym]] = []
        self.param_notes: dict[str, list] = {}
        self.conventions_said: set[str] = set()

    # ---------------------------------------------------------------- bookkeeping

    def loc(self, node) -> Loc:
        return self.sf.loc(node)

    def text(self, node) -> str:
        return self.sf.text_of(node)

    def assume(self, loc: Loc, text: str, param: str | None = None) -> None:
        """Record an assumption; one about a param is dropped if the param ends up unused."""
        if (loc, text) not in self.assumptions:
            self.assumptions.append((loc, text))
            if param is not None:
                self.param_notes.setdefault(param, []).append((loc, text))

    def error(self, node, message: str) -> ExtractError:
        return ExtractError(self.loc(node) if node is not None else None, message, self.sf.path)

    def emit(self, stmt) -> None:
        self.out[-1].append(stmt)

    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 1
        while name in SIG_KEYWORDS or name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        return name

    def param(self, key: str, hint: str, value: int, comment: str, loc: Loc | None) -> Sym:
        if key in self.param_keys:
            return S.name(self.param_keys[key], NONE)
        pname = self.fresh(re.sub(r"\W", "_", hint).upper())
        self.param_keys[key] = pname
        self.params[pname] = (value, comment, loc)
        return S.name(pname, NONE)

    def builtin(self, which: str, level: int) -> Sym:
        self.uses[which] = True
        return S.name(which, level)

    def lookup(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, value) -> None:
        self.scopes[-1][name] = value

    # ---------------------------------------------------------------- conversions

    def as_int(self, v, node, hint: str = "VALUE") -> Sym:
        if isinstance(v, Sym):
            return v
        if isinstance(v, Local):
            return S.name(v.name)
        if isinstance(v, Elem) and v.ptr.plain:
            return self.unknown_int(self.text(node), node, hint,
                                    "a plain load of a signal outside a comparison")
        if isinstance(v, Unknown):
            return self.resolve_unknown(v, node, hint)
        if isinstance(v, Elem):
            return self.unknown_int(self.text(node), node, hint, "runtime data (a load from global memory)")
        if isinstance(v, Enum):
            return S.num((OPS if v.kind == "op" else CMPS).index(v.name), v.level)
        return self.unknown_int(self.text(node), node, hint, "a value the extraction cannot follow")

    def unknown_int(self, text: str, node, hint: str, why: str) -> Sym:
        return self.resolve_unknown(Unknown(text, self.loc(node), hint, ""), node, hint, why)

    def resolve_unknown(self, u: Unknown, node, hint: str, why: str | None = None) -> Sym:
        key = norm(u.text)
        runtime, bounds = self.cfg.get("runtime", {}), self.cfg.get("bounds", {})
        if key in {norm(k) for k in runtime}:
            expr = next(v for k, v in runtime.items() if norm(k) == key)
            return S.with_level(self.as_int(self.eval_config(str(expr), u.loc), node, hint), PARTIAL)
        hint = u.hint if u.hint != "VALUE" else hint
        line = u.loc.line
        pkey = u.key or f"{key}@{u.loc}"
        pname_hint = hint if u.key.startswith(("arg:", "name:")) else f"{hint}_{line}"
        if key in {norm(k) for k in bounds}:
            lo, hi = next(v for k, v in bounds.items() if norm(k) == key)
            p = self.param(pkey, pname_hint, int(lo), f"TODO(any): any({lo}, {hi}); one value of the range, sweep it with --sweep", u.loc)
            self.assume(u.loc, f"{u.text} is runtime data in [{lo}, {hi}]; modelled as a param {p} = {lo} (TODO(any): int x = any({lo}, {hi}) once the language has it)", S.render(p))
            return S.with_level(p, PARTIAL)
        what = why or ("a kernel argument" if u.key.startswith("arg:") else
                       "a name not defined in the given files" if u.key.startswith("name:") else "runtime data")
        p = self.param(pkey, pname_hint, 0, f"assumed: {u.text} ({what})", u.loc)
        self.assume(u.loc, f"{hint if hint != 'VALUE' else 'value'} comes from {what} ({u.text}); modelled as a param {p}", S.render(p))
        return p

    def as_ptr(self, v, node) -> Ptr | None:
        if isinstance(v, Ptr):
            return v
        if isinstance(v, Elem):
            return v.ptr
        if isinstance(v, View):
            return v.ptr
        if isinstance(v, Unknown) and re.fullmatch(r"[A-Za-z_][\w.>-]*", v.text.replace(" ", "")) and (
                v.pointer or "->" in v.text or "." in v.text or v.key.startswith("arg:")):
            base = v.text.split("->")[-1].split(".")[-1]
            self.assume(v.loc, f"{v.text} is used as a signal buffer; its type is not visible, modelled as int32 elements")
            return Ptr(base, S.num(0), None, 4, PARTIAL, base in self.plain, v.loc)
        return None

    def as_view(self, v, node) -> View:
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

    # ---------------------------------------------------------------- signals and views

    def signal(self, ptr: Ptr) -> SignalInfo:
        info = self.signals.get(ptr.base)
        if info is None:
            name = self.fresh(ptr.base)
            dims = None
            sizes = self.cfg.get("signals", {})
            spec = sizes.get(ptr.base, sizes.get(name))
            level = ptr.level
            if spec is not None:
                items = spec if isinstance(spec, list) else [spec]
                dims = tuple(self.as_int(self.eval_config(str(d), ptr.origin), None) if isinstance(d, str)
                             else S.num(int(d)) for d in items)
                if not 1 <= len(dims) <= 5:
                    raise ExtractError(ptr.origin, f"signal {ptr.base}: 1 to 5 dimensions expected in the config")
            info = SignalInfo(name, ptr.base, ptr.origin, level, dims)
            self.signals[ptr.base] = info
        return info

    def elements(self, offset: Sym) -> Sym:
        exact = S.div_exact(offset, 4)
        if exact is not None:
            return exact
        lin = S.linear(offset)
        if lin is not None and all(c % 4 == 0 for c in lin.values()):
            return S.from_linear({m: c // 4 for m, c in lin.items()}, offset.level)
        return S.binop("/", offset, S.num(4))

    def view_text(self, view: View, node, single: bool) -> tuple[str, dict]:
        ptr = view.ptr
        info = self.signal(ptr)
        start = self.elements(ptr.offset)
        shape, strides = list(view.shape), list(view.strides)
        dims_used = [(n, s) for n, s in zip(shape, strides) if not (S.is_int(n) and n.args[0] == 1)]
        if single and dims_used:
            self.assume(self.loc(node), "TNOTIFY on a multi-element view writes its element 0 only; modelled so")
            dims_used = []
        last = start
        for n, s in dims_used:
            last = S.binop("+", last, S.binop("*", S.binop("-", n, S.num(1)), s))
        info.spans.append((start, last))
        if info.dims is None:
            sel = self.flat_selector(start, dims_used, node, info)
        else:
            sel = self.dim_selectors(start, dims_used, info, node)
        text = info.name + sel
        at = ""
        if ptr.rank is not None and S.render(ptr.rank) != "rank":
            r = ptr.rank
            at = f" @ {S.render(r)}" if S.prec(r) >= 13 else f" @ ({S.render(r)})"
            self.note_rank_use(r)
        levels = {"signal": ptr.level, "index": start.level,
                  "peer": ptr.rank.level if ptr.rank is not None else FULL}
        return text + at, levels

    def note_rank_use(self, r: Sym) -> None:
        for n in S.names(r):
            if n in self.uses:
                self.uses[n] = True

    def flat_selector(self, start: Sym, dims, node, info) -> str:
        st = S.render(start)
        if not dims:
            return f"[{st}]"
        if len(dims) == 1:
            n, s = dims[0]
            if S.is_int(s) and s.args[0] == 1:
                return f"[{st}:{S.render(S.binop('+', start, n))}]"
            end = S.binop("+", start, S.binop("+", S.binop("*", S.binop("-", n, S.num(1)), s), S.num(1)))
            return f"[{st}:{S.render(end)}:{S.render(s)}]"
        inner = S.num(1)
        total = S.num(1)
        for n, s in reversed(dims):
            if S.linear(s) != S.linear(inner):
                raise self.error(node, f"a strided multi-dimensional view of signal {info.key}: give its dimensions in the config ([signals] {info.key} = [..])")
            inner = S.binop("*", inner, n)
            total = inner
        return f"[{st}:{S.render(S.binop('+', start, total))}]"

    def dim_selectors(self, start: Sym, dims, info: SignalInfo, node) -> str:
        strides = []
        acc = S.num(1)
        for d in reversed(info.dims):
            strides.append(acc)
            acc = S.binop("*", acc, d)
        strides.reverse()
        form = S.linear(start)
        if form is None:
            if len(info.dims) == 1:
                idx = [start]
            else:
                raise self.error(node, f"cannot split the offset {S.render(start)} of signal {info.key} into indices")
        else:
            idx = []
            rest = dict(form)
            for k, st in enumerate(strides):
                sf = S.linear(st)
                if len(sf) != 1 and k < len(strides) - 1:
                    raise self.error(node, f"signal {info.key}: a dimension of the config is not a product of names")
                (smono, scoef), = sf.items() if sf else (((), 1),)
                take: dict = {}
                for mono, c in list(rest.items()):
                    m = list(mono)
                    if all(f in m for f in smono) and c % scoef == 0 and (mono or not smono):
                        for f in smono:
                            m.remove(f)
                        if not mono and k < len(strides) - 1:
                            q = c // scoef
                            take[()] = q
                            rest[()] = c - q * scoef
                            if not rest[()]:
                                del rest[()]
                            continue
                        take[tuple(m)] = take.get(tuple(m), 0) + c // scoef
                        del rest[mono]
                idx.append(S.from_linear(take, start.level))
            if rest:
                raise self.error(node, f"cannot split the offset {S.render(start)} of signal {info.key} into indices")
        sel = [f"[{S.render(i)}]" for i in idx]
        for n, s in dims:
            k = next((k for k, st in enumerate(strides) if S.linear(st) == S.linear(s)), None)
            if k is None:
                raise self.error(node, f"a view of signal {info.key} with stride {S.render(s)} matches no dimension of the config")
            sel[k] = f"[{S.render(idx[k])}:{S.render(S.binop('+', idx[k], n))}]"
        return "".join(sel)

    # ---------------------------------------------------------------- config expressions

    def eval_config(self, expr: str, loc: Loc | None):
        sf, node = snippet(expr, loc.file if loc else "<config>", loc)
        saved = self.sf
        self.sf = sf
        try:
            return self.eval(node)
        finally:
            self.sf = saved

    # ---------------------------------------------------------------- expressions

    def eval(self, node):
        t = node.type
        key = norm(self.text(node))
        if key in self.builtin_text and t not in ("number_literal",):
            which, level = self.builtin_text[key]
            return self.builtin(which, level)
        method = getattr(self, "e_" + t, None)
        if method is None:
            return Unknown(self.text(node), self.loc(node))
        return method(node)

    def e_number_literal(self, node):
        raw = self.text(node).replace("'", "")
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uUlLzZ]*", raw)
        if not m:
            return Unknown(raw, self.loc(node))
        s = m.group(1)
        if s.lower().startswith("0x"):
            return S.num(int(s, 16))
        if s.lower().startswith("0b"):
            return S.num(int(s[2:], 2))
        if len(s) > 1 and s.startswith("0"):
            return S.num(int(s, 8))
        return S.num(int(s))

    def e_true(self, node):
        return S.num(1)

    def e_false(self, node):
        return S.num(0)

    def e_null(self, node):
        return S.num(0)

    def e_nullptr(self, node):
        return S.num(0)

    def e_char_literal(self, node):
        return Unknown(self.text(node), self.loc(node))

    def e_parenthesized_expression(self, node):
        inner = node.named_children
        if len(inner) != 1:
            return Unknown(self.text(node), self.loc(node))
        return self.eval(inner[0])

    def e_identifier(self, node):
        name = self.text(node)
        b = self.lookup(name)
        if b is not None:
            return S.name(b.name) if isinstance(b, Local) else b
        return self.global_value(name, node)

    e_namespace_identifier = e_identifier
    e_type_identifier = e_identifier

    def global_value(self, name: str, node):
        if name in self.index.defines:
            text, sf, vnode = self.index.defines[name]
            if self.depth > MAX_INLINE_DEPTH:
                raise self.error(node, f"macro {name} expands into itself")
            try:
                snip_sf, expr = snippet(text, sf.path, sf.loc(vnode))
            except ExtractError:
                return Unknown(name, self.loc(node), name)
            saved, self.sf = self.sf, snip_sf
            self.depth += 1
            try:
                return self.eval(expr)
            finally:
                self.sf, self.depth = saved, self.depth - 1
        if name in self.index.globals:
            vnode, sf = self.index.globals[name]
            saved, self.sf = self.sf, sf
            saved_scopes, self.scopes = self.scopes, [{}]
            self.depth += 1
            try:
                if self.depth > MAX_INLINE_DEPTH:
                    raise self.error(vnode, f"constant {name} refers to itself")
                return self.eval(vnode)
            finally:
                self.sf, self.scopes, self.depth = saved, saved_scopes, self.depth - 1
        return Unknown(name, self.loc(node), name, f"name:{name}")

    def e_qualified_identifier(self, node):
        parts = [p for p in re.split(r"::", norm(self.text(node))) if p]
        last = parts[-1] if parts else ""
        if len(parts) >= 2 and parts[-2] == "NotifyOp" and last in OPS:
            return Enum("op", last, FULL)
        if len(parts) >= 2 and parts[-2] == "WaitCmp" and last in CMPS:
            return Enum("cmp", last, FULL)
        name_node = node.child_by_field_name("name")
        while name_node is not None and name_node.type == "qualified_identifier":
            name_node = name_node.child_by_field_name("name")
        if name_node is not None and name_node.type == "identifier":
            return self.e_identifier(name_node)
        return Unknown(self.text(node), self.loc(node))

    def e_sizeof_expression(self, node):
        ty = node.child_by_field_name("type")
        t = clean_type(self.text(ty)) if ty is not None else ""
        if t in SIZE_OF:
            return S.num(SIZE_OF[t])
        if t.endswith("*"):
            return S.num(8)
        return Unknown(self.text(node), self.loc(node))

    def e_unary_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        v = self.eval(node.child_by_field_name("argument"))
        return S.unop(op, self.as_int(v, node))

    def e_pointer_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        v = self.eval(node.child_by_field_name("argument"))
        if op == "&":
            if isinstance(v, Elem):
                return v.ptr
            return v
        if isinstance(v, Ptr):
            return Elem(v)
        return Unknown(self.text(node), self.loc(node))

    def e_subscript_expression(self, node):
        arr = self.eval(node.child_by_field_name("argument"))
        idx_nodes = node.child_by_field_name("indices")
        idx_node = idx_nodes.named_children[0] if idx_nodes is not None and idx_nodes.named_children else None
        if idx_node is None:
            return Unknown(self.text(node), self.loc(node))
        if isinstance(arr, Windows):
            return Window(self.as_int(self.eval(idx_node), idx_node, "PEER"))
        if isinstance(arr, Ptr):
            i = self.as_int(self.eval(idx_node), idx_node)
            return Elem(self.ptr_add(arr, i))
        if isinstance(arr, tuple):
            i = self.as_int(self.eval(idx_node), idx_node)
            if S.is_int(i) and 0 <= i.args[0] < len(arr):
                return arr[i.args[0]]
        return Unknown(self.text(node), self.loc(node))

    def ptr_add(self, p: Ptr, i: Sym, sign: int = 1) -> Ptr:
        step = S.binop("*", i, S.num(p.elem))
        off = S.binop("+" if sign > 0 else "-", p.offset, step)
        return Ptr(p.base, off, p.rank, p.elem, p.level, p.plain, p.origin)

    def e_field_expression(self, node):
        base = self.eval(node.child_by_field_name("argument"))
        fname = self.text(node.child_by_field_name("field"))
        path = self.text(node)
        if isinstance(base, Struct):
            return self.field_value(base, fname, path, node)
        if isinstance(base, Unknown):
            return self.field_value(Struct(base.text, None), fname, path, node)
        if isinstance(base, Ptr) and "->" in path:
            return self.field_value(Struct(base.base, None), fname, path, node)
        return Unknown(path, self.loc(node))

    def field_value(self, st: Struct, fname: str, path: str, node):
        loc = self.loc(node)
        for canon in (f"{st.path}->{fname}", f"{st.path}.{fname}"):
            if norm(canon) in self.builtin_text:
                which, level = self.builtin_text[norm(canon)]
                return self.builtin(which, level)
        path = f"{st.path}->{fname}" if "->" in path else f"{st.path}.{fname}"
        if fname in self.windows:
            return Windows()
        if fname in self.plain or path in self.plain:
            return Ptr(fname, S.num(0), None, 4, PARTIAL, True, loc)
        conv = self.conventional(fname, path, loc)
        if conv is not None:
            return conv
        ftype = self.index.structs.get(st.type or "", {}).get(fname) if st.type else None
        if ftype is not None:
            return self.value_of_type(ftype, fname, path, loc, f"field:{path}")
        return Unknown(path, loc, fname, f"field:{norm(path)}", pointer=False)

    def conventional(self, name: str, path: str, loc: Loc) -> Sym | None:
        for which, names in CONVENTIONAL.items():
            if name in names and not any(norm(path) == norm(e) for e in self.cfg.get(which, [])):
                if self.cfg.get(which):
                    continue
                if norm(path) in self.conventions_said:
                    return self.builtin(which, PARTIAL)
                self.conventions_said.add(norm(path))
                self.assume(loc, f"took {path} as the {'own rank' if which == 'rank' else 'rank count' if which == 'nranks' else 'block count'} (a conventional name; set {which} = \"...\" in sigproof.toml otherwise)")
                return self.builtin(which, PARTIAL)
        return None

    def value_of_type(self, ctype: str, name: str, path: str, loc: Loc, key: str):
        t = clean_type(ctype)
        if t.endswith("[]"):
            return Unknown(path, loc, name, key)
        pt = pointee(t)
        if pt is not None and pt[0] in self.index.structs:
            return Struct(path, pt[0])
        if pt is not None:
            plain = name in self.plain or path in self.plain
            return Ptr(name, S.num(0), None, pt[1], PARTIAL if plain else FULL, plain, loc)
        if t in self.index.structs:
            return Struct(path, t)
        return Unknown(path, loc, name, key)

    def e_binary_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&&", "||"):
            a = self.as_int(self.eval(ln), ln)
            if S.is_int(a) and not a.reads:
                if (op == "&&" and not a.args[0]) or (op == "||" and a.args[0]):
                    return S.num(int(op == "||"), a.level)
            return S.binop(op, a, self.as_int(self.eval(rn), rn))
        a, b = self.eval(ln), self.eval(rn)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            plain = self.plain_compare(op, a, b, node, ln, rn)
            if plain is not None:
                return plain
        if op in ("+", "-"):
            r = self.address_arith(op, a, b, node, ln, rn)
            if r is not None:
                return r
        return S.binop(op, self.as_int(a, ln), self.as_int(b, rn))

    def plain_compare(self, op, a, b, node, ln, rn):
        mirror = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
        cmp = {"==": "EQ", "!=": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}
        if isinstance(b, Elem) and b.ptr.plain and not (isinstance(a, Elem) and a.ptr.plain):
            a, b, ln, rn, op = b, a, rn, ln, mirror[op]
        if isinstance(a, Elem) and a.ptr.plain:
            value = self.as_int(b, rn)
            return self.ttest(View(a.ptr, (), ()), value, Enum("cmp", cmp[op], PARTIAL), node, "TTEST")
        return None

    def address_arith(self, op, a, b, node, ln, rn):
        if isinstance(a, Ptr) and isinstance(b, Window) and op == "-":
            own = a.rank if a.rank is not None else S.name("rank")
            if self.same_value(own, b.rank):
                return Offset(a.base, a.offset, a.level, a.plain, a.origin)
            self.assume(self.loc(node), f"{self.text(rn)} taken as this rank's own window base (the code does not show that {S.render(b.rank)} is the own rank)")
            return Offset(a.base, a.offset, a.level, a.plain, a.origin)
        if isinstance(a, Ptr) and isinstance(b, Ptr) and op == "-" and a.base == b.base:
            return S.binop("/", S.binop("-", a.offset, b.offset), S.num(a.elem))
        if isinstance(a, Window) and isinstance(b, Offset) and op == "+":
            return Ptr(b.base, b.offset, a.rank, 1, b.level, b.plain, b.origin)
        if isinstance(b, Window) and isinstance(a, Offset) and op == "+":
            return Ptr(a.base, a.offset, b.rank, 1, a.level, a.plain, a.origin)
        if isinstance(a, Offset) and not isinstance(b, (Ptr, Window, Offset)):
            i = self.as_int(b, rn)
            return Offset(a.base, S.binop(op, a.offset, i), a.level, a.plain, a.origin)
        if isinstance(a, Ptr) and not isinstance(b, (Ptr, Window, Offset)):
            return self.ptr_add(a, self.as_int(b, rn), 1 if op == "+" else -1)
        if isinstance(b, Ptr) and op == "+" and not isinstance(a, (Ptr, Window, Offset)):
            return self.ptr_add(b, self.as_int(a, ln))
        if isinstance(a, (Window, Windows)) or isinstance(b, (Window, Windows)):
            return Unknown(self.text(node), self.loc(node))
        return None

    def same_value(self, a: Sym, b: Sym) -> bool:
        """Equal expressions, or equal under the branch conditions in force (`rank == 0`)."""
        if S.render(a) == S.render(b):
            return True
        known = {}
        for facts in self.facts:
            known.update(facts)
        a2, b2 = S.substitute(a, known), S.substitute(b, known)
        return S.is_int(a2) and S.is_int(b2) and a2.args[0] == b2.args[0]

    def e_conditional_expression(self, node):
        c = self.as_int(self.eval(node.child_by_field_name("condition")), node)
        cn, an = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if S.is_int(c) and not c.reads:
            return self.eval(cn if c.args[0] else an)
        return S.cond(c, self.as_int(self.eval(cn), cn), self.as_int(self.eval(an), an))

    def e_cast_expression(self, node):
        ty = node.child_by_field_name("type")
        return self.cast(self.text(ty), self.eval(node.child_by_field_name("value")), node)

    def cast(self, tytext: str, v, node):
        t = clean_type(tytext)
        pt = pointee(t)
        if pt is not None:
            if isinstance(v, Ptr):
                return Ptr(v.base, v.offset, v.rank, pt[1], v.level, v.plain, v.origin)
            if isinstance(v, Unknown):
                return Unknown(v.text, v.loc, v.hint, v.key, pointer=True)
            return v
        if isinstance(v, Ptr):
            return Ptr(v.base, v.offset, v.rank, 1, v.level, v.plain, v.origin)
        if t == "bool" and isinstance(v, Sym):
            return S.binop("!=", v, S.num(0)) if not S.is_int(v) else S.num(int(bool(v.args[0])), v.level)
        return v

    def e_assignment_expression(self, node):
        self.assign(node)
        return self.eval(node.child_by_field_name("left"))

    def e_update_expression(self, node):
        raise self.error(node, "an increment inside an expression is not supported in the skeleton; write it as its own statement")

    def e_comma_expression(self, node):
        self.eval(node.child_by_field_name("left"))
        return self.eval(node.child_by_field_name("right"))

    def e_call_expression(self, node):
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        arg_nodes = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        targs = None
        fnode = fn
        if fn.type == "template_function":
            targs = fn.child_by_field_name("arguments")
            fnode = fn.child_by_field_name("name")
        elif fn.type == "qualified_identifier":
            inner = fn
            while inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            if inner.type == "template_function":
                targs = inner.child_by_field_name("arguments")
                fnode = inner.child_by_field_name("name")
            else:
                fnode = inner
        fname = norm(self.text(fnode)).split("::")[-1].split(".")[-1].split("->")[-1]
        if fname in ("TNOTIFY", "TWAIT", "TTEST"):
            return self.signal_op(fname, arg_nodes, node)
        if fname == "pipe_barrier":
            self.emit(Line("pipe_barrier(PIPE_ALL);", self.loc(node), "comment"))
            return S.num(0)
        if fname == "dsb":
            self.emit(Line(f"// TODO(dsb): {self.text(node)};", self.loc(node), "comment"))
            self.assume(self.loc(node), f"{self.text(node)} is a fence the .sig language cannot state yet; left as a TODO(dsb) comment")
            return S.num(0)
        if fname in BLOCK_BARRIERS:
            self.emit(Line(f"// TODO(block_barrier): {self.text(node)};", self.loc(node), "comment"))
            self.assume(self.loc(node), f"{self.text(node)} synchronizes the blocks of a rank; the .sig language cannot state it yet (TODO(block_barrier)): not modelled")
            return S.num(0)
        if fname in ("min", "max") and len(arg_nodes) == 2:
            a, b = (self.as_int(self.eval(n), n) for n in arg_nodes)
            return S.call(fname, a, b)
        if fname in ("static_cast", "reinterpret_cast", "const_cast") and targs is not None and arg_nodes:
            return self.cast(self.text(targs)[1:-1], self.eval(arg_nodes[0]), node)
        if fname in WRAPPERS:
            return self.wrapper(fname, targs, arg_nodes, node)
        funcs = self.index.functions.get(fname)
        if funcs and fname != self.kernel.name:
            fn_def = next((f for f in funcs if self.arity_ok(f, len(arg_nodes))), None)
            if fn_def is not None:
                return self.inline(fn_def, arg_nodes, targs, node)
        args = [self.eval(a) for a in arg_nodes]
        if fname not in IGNORED_CALLS and any(isinstance(a, (Ptr, View, Elem, Offset, Window)) for a in args):
            self.assume(self.loc(node), f"call to {fname} with a signal argument is not followed (no definition among the given files and their local headers)")
        return Unknown(self.text(node), self.loc(node), fname if fname.isidentifier() else "VALUE")

    def arity_ok(self, f: Function, n: int) -> bool:
        params = self.params_of(f)
        required = sum(1 for p in params if p.type == "parameter_declaration")
        return required <= n <= len(params)

    def params_of(self, f: Function):
        decl = f.node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        if plist is None:
            return []
        return [p for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")]

    # ---------------------------------------------------------------- wrappers and signal ops

    def template_values(self, targs) -> list:
        if targs is None:
            return []
        out = []
        for a in targs.named_children:
            if a.type == "type_descriptor":
                out.append(a)
            else:
                out.append(self.as_int(self.eval(a), a))
        return out

    def wrapper(self, kind: str, targs, arg_nodes, node):
        return self.wrapper_values(kind, targs, [self.eval(a) for a in arg_nodes], arg_nodes, node)

    def wrapper_values(self, kind: str, targs, args: list, arg_nodes, node):
        if not args:
            raise self.error(node, f"{kind} without a pointer argument")
        ptr = self.as_ptr(args[0], arg_nodes[0])
        if ptr is None:
            raise self.error(arg_nodes[0], f"cannot tell which signal `{self.text(arg_nodes[0])}` points into")
        tv = self.template_values(targs)
        if kind == "Signal":
            return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), (), ())
        if kind == "Signal2D":
            ints = [v for v in tv if isinstance(v, Sym)]
            if len(ints) < 2:
                raise self.error(node, "Signal2D needs its <rows, cols> template arguments")
            rows, cols = ints[0], ints[1]
            stride = self.as_int(args[1], arg_nodes[1]) if len(args) > 1 else cols
            return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), (rows, cols), (stride, S.num(1)))
        # GlobalTensor<T, Shape<...>, Stride<...>>
        if not tv or not hasattr(tv[0], "type") or clean_type(self.sf.text_of(tv[0])) not in INT32_TYPES:
            return Unknown(self.text(node), self.loc(node))
        shape = self.shape_args(tv[1] if len(tv) > 1 else None, node)
        strides = self.shape_args(tv[2] if len(tv) > 2 else None, node)
        if shape is None:
            shape = (S.num(1),)
        if strides is None:
            acc, st = S.num(1), []
            for n in reversed(shape):
                st.append(acc)
                acc = S.binop("*", acc, n)
            strides = tuple(reversed(st))
        return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), shape, strides)

    def shape_args(self, td, node):
        """The integer arguments of a `Shape<...>` / `Stride<...>` type (through aliases)."""
        if td is None:
            return None
        if isinstance(td, Sym):
            raise self.error(node, "GlobalTensor: expected Shape<...> and Stride<...> type arguments")
        ty = td.child_by_field_name("type") if td.type == "type_descriptor" else td
        while ty is not None and ty.type == "qualified_identifier":
            ty = ty.child_by_field_name("name")
        if ty is None:
            return None
        if ty.type == "type_identifier" and self.text(ty) in self.index.aliases:
            alias, sf = self.index.aliases[self.text(ty)]
            saved, self.sf = self.sf, sf
            try:
                return self.shape_args(alias, node)
            finally:
                self.sf = saved
        if ty.type != "template_type":
            return None
        targs = ty.child_by_field_name("arguments")
        vals = []
        for a in targs.named_children:
            v = self.as_int(self.eval(a), a)
            if S.is_int(v) and v.args[0] < 0:
                raise self.error(a, "a dynamic GlobalTensor shape: give the signal's size in the config")
            vals.append(v)
        return tuple(vals)

    def signal_op(self, kind: str, arg_nodes, node):
        if len(arg_nodes) < 3:
            raise self.error(node, f"{kind} needs (signal, value, {'op' if kind == 'TNOTIFY' else 'cmp'})")
        view = self.as_view(self.eval(arg_nodes[0]), arg_nodes[0])
        value = self.as_int(self.eval(arg_nodes[1]), arg_nodes[1], "VALUE")
        e = self.as_enum(self.eval(arg_nodes[2]), arg_nodes[2], "op" if kind == "TNOTIFY" else "cmp")
        if kind == "TTEST":
            return self.ttest(view, value, e, node, kind)
        ref, levels = self.view_text(view, arg_nodes[0], single=(kind == "TNOTIFY"))
        levels["value"] = value.level
        levels["opcmp"] = e.level if isinstance(e, Enum) else NONE
        self.site(kind, node, levels)
        loc = self.loc(node)
        names = OPS if kind == "TNOTIFY" else CMPS
        if isinstance(e, Enum):
            self.emit(Line(f"{kind}({ref}, {S.render(value)}, {e.name});", loc, "sync"))
        else:
            self.choice_chain(kind, ref, value, e, names, loc)
        return S.num(0)

    def choice_chain(self, kind, ref, value, p: Sym, names, loc) -> None:
        pn = S.render(p)
        chain = Block("if", f"{pn} == 0", loc, [Line(f"{kind}({ref}, {S.render(value)}, {names[0]});", loc, "sync")])
        cur = chain
        for i, n in enumerate(names[1:], 1):
            line = Line(f"{kind}({ref}, {S.render(value)}, {n});", loc, "sync")
            if i == len(names) - 1:
                cur.orelse = [line]
            else:
                nxt = Block("if", f"{pn} == {i}", loc, [line])
                cur.orelse = [nxt]
                cur = nxt
        self.emit(chain)

    def ttest(self, view: View, value: Sym, e, node, kind: str) -> Sym:
        ref, levels = self.view_text(view, node, single=False)
        levels["value"] = value.level
        levels["opcmp"] = e.level if isinstance(e, Enum) else NONE
        self.site("TTEST", node, levels)
        level = min(levels.values())
        if isinstance(e, Enum):
            return S.text(f"TTEST({ref}, {S.render(value)}, {e.name})", level)
        out = S.text(f"TTEST({ref}, {S.render(value)}, {CMPS[-1]})", level)
        for i in range(len(CMPS) - 2, -1, -1):
            out = S.cond(S.binop("==", e, S.num(i)), S.text(f"TTEST({ref}, {S.render(value)}, {CMPS[i]})", level), out)
        return out

    def site(self, kind: str, node, levels: dict) -> None:
        loc = self.loc(node)
        key = (loc.file, loc.line, loc.col)
        old = self.sites.get(key)
        if old is not None:
            levels = {k: min(v, old.levels[k]) for k, v in levels.items()}
        self.sites[key] = Site(kind, loc, levels)

    # ---------------------------------------------------------------- helpers

    def mutated(self, body) -> set[str]:
        key = body.id
        if key in self.mutated_cache:
            return self.mutated_cache[key]
        out: set[str] = set()
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    out.add(left.text.decode())
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    out.add(arg.text.decode())
            elif n.type == "pointer_expression" and n.child_by_field_name("operator").text == b"&":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    out.add(arg.text.decode())
            elif n.type == "call_expression":
                out |= self.ref_args(n)
            stack.extend(n.named_children)
        self.mutated_cache[key] = out
        return out

    def ref_args(self, call) -> set[str]:
        fn = call.child_by_field_name("function")
        name = norm(fn.text.decode()).split("::")[-1].split("<")[0]
        funcs = self.index.functions.get(name)
        args = call.child_by_field_name("arguments")
        if not funcs or args is None:
            return set()
        out = set()
        params = self.params_of(funcs[0])
        for p, a in zip(params, args.named_children):
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "reference_declarator" and "const" not in p.text.decode().split("&")[0].split() and a.type == "identifier":
                out.add(a.text.decode())
        return out

    def inline(self, f: Function, arg_nodes, targs, call):
        if self.depth >= MAX_INLINE_DEPTH:
            raise self.error(call, f"helper calls nested deeper than {MAX_INLINE_DEPTH} (recursion?) at {f.name}")
        for err in f.file.errors:
            if f.node.start_byte <= err.start_byte < f.node.end_byte:
                raise ExtractError(f.file.loc(err), f"syntax error: the C++ parser cannot read this part of helper {f.name}")
        values = [self.eval(a) for a in arg_nodes]
        params = self.params_of(f)
        body = f.node.child_by_field_name("body")
        mutated = self.mutated(body)
        scope: dict = {}
        tvals = self.template_values(targs)
        if f.template is not None:
            self.bind_template(f, tvals, scope)
        saved_sf = self.sf
        self.sf = f.file
        pending = []
        for i, p in enumerate(params):
            pname = declarator_name(p.child_by_field_name("declarator"))
            if pname is None:
                continue
            if i < len(values):
                v, vnode = values[i], arg_nodes[i]
            else:
                dv = p.child_by_field_name("default_value")
                v, vnode = self.eval(dv), dv
            if pname in mutated:
                if isinstance(v, Sym) or isinstance(v, Unknown):
                    pending.append((pname, v, vnode, p))
                    continue
            scope[pname] = v
        self.sf = saved_sf
        ref_locals = self.ref_bindings(f, params, arg_nodes)
        saved_scopes, self.scopes = self.scopes, [scope]
        self.sf = f.file
        self.depth += 1
        ctx = {"value": None, "nested": False, "fn": f.name}
        self.ret_ctx.append(ctx)
        try:
            for pname, v, vnode, p in pending:
                if pname in ref_locals:
                    scope[pname] = ref_locals[pname]
                    continue
                sv = self.as_int(v, vnode)
                n = self.fresh(pname)
                scope[pname] = Local(n)
                self.local_values[n] = None
                self.emit(Line(f"int {n} = {S.render(sv)};", self.loc(p), "decl", n))
            stmts = [c for c in body.named_children if c.type != "comment"]
            has_nested = self.nested_return(body, stmts)
            if has_nested:
                self.one_shot(f, body, stmts, ctx)
            else:
                for c in stmts:
                    if c.type == "return_statement" and c is stmts[-1]:
                        val = next((x for x in c.named_children if x.type != "comment"), None)
                        ctx["value"] = self.eval(val) if val is not None else None
                    else:
                        self.exec(c)
        finally:
            self.ret_ctx.pop()
            self.depth -= 1
            self.scopes = saved_scopes
            self.sf = saved_sf
        v = ctx["value"]
        return v if v is not None else Unknown(self.text(call), self.loc(call), f.name)

    def ref_bindings(self, f, params, arg_nodes) -> dict:
        out = {}
        for p, a in zip(params, arg_nodes):
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "reference_declarator" and a.type == "identifier":
                b = self.lookup(self.text(a))
                if isinstance(b, Local):
                    out[declarator_name(d)] = b
        return out

    def nested_return(self, body, stmts) -> bool:
        stack = list(body.named_children)
        while stack:
            n = stack.pop()
            if n.type == "return_statement" and not (n.parent == body and n is stmts[-1]):
                return True
            if n.type not in ("lambda_expression",):
                stack.extend(n.named_children)
        return False

    def one_shot(self, f, body, stmts, ctx) -> None:
        """A void helper with an early `return`: a one-iteration loop whose `break` is it."""
        if self.returns_inside_loop(body):
            raise self.error(body, f"helper {f.name} returns from inside one of its loops: not supported")
        n = self.fresh("once")
        block = Block("for", f"int {n} = 0; {n} < 1; {n}++", self.loc(body), defines=n)
        ctx["nested"] = True
        self.out.append(block.body)
        self.loop_depth += 1
        try:
            for c in stmts:
                self.exec(c)
        finally:
            self.loop_depth -= 1
            self.out.pop()
        self.emit(block)

    def returns_inside_loop(self, body) -> bool:
        stack = [(c, False) for c in body.named_children]
        while stack:
            n, in_loop = stack.pop()
            if n.type == "return_statement" and in_loop:
                return True
            loop = in_loop or n.type in ("for_statement", "while_statement", "do_statement", "for_range_loop")
            stack.extend((c, loop) for c in n.named_children)
        return False

    def bind_template(self, f: Function, tvals: list, scope: dict) -> None:
        values = self.cfg.get("values", {})
        i = 0
        for p in f.template.named_children:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                i += 1
                continue
            pname = declarator_name(p.child_by_field_name("declarator"))
            if pname is None:
                continue
            if i < len(tvals) and isinstance(tvals[i], Sym):
                scope[pname] = tvals[i]
            elif f is self.kernel and pname in values:
                scope[pname] = self.config_value(values[pname], self.sf.loc(p))
            elif p.child_by_field_name("default_value") is not None:
                saved, self.sf = self.sf, f.file
                try:
                    scope[pname] = self.as_int(self.eval(p.child_by_field_name("default_value")), p)
                finally:
                    self.sf = saved
            else:
                scope[pname] = Unknown(pname, f.file.loc(p), pname, f"arg:{pname}")
            i += 1

    def config_value(self, v, loc):
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ExtractError(loc, f"config value {v!r}: an integer or a C++ expression string expected")
        if isinstance(v, int):
            return S.num(v, PARTIAL)
        return S.with_level(self.as_int(self.eval_config(v, loc), None), PARTIAL)

    # ---------------------------------------------------------------- statements

    def exec(self, node) -> None:
        method = getattr(self, "s_" + node.type, None)
        if method is not None:
            try:
                method(node)
            except ExtractError:
                raise
            except RecursionError:
                raise self.error(node, "this statement nests too deeply for the extraction") from None
            except Exception as e:  # a construct the interpreter does not expect: say where
                raise self.error(node, f"cannot read this {node.type.replace('_', ' ')} "
                                       f"(internal error {type(e).__name__}: {e}; please report it)") from None
            return
        if node.type in ("comment", "preproc_call", "preproc_include", "preproc_def", "empty_statement",
                         "static_assert_declaration", "alias_declaration", "type_definition",
                         "using_declaration", "namespace_alias_definition"):
            return
        if self.contains_sync(node):
            raise self.error(node, f"{node.type.replace('_', ' ')} around a signal operation is not supported by the extraction")

    def contains_sync(self, node) -> bool:
        text = node.text.decode("utf-8", "replace")
        if re.search(r"\b(TNOTIFY|TWAIT|TTEST)\b", text):
            return True
        idents = set(re.findall(r"[A-Za-z_]\w*", text))
        return bool(idents & (set(self.index.functions) | self.plain))

    def s_compound_statement(self, node) -> None:
        self.scopes.append({})
        try:
            for c in node.named_children:
                self.exec(c)
        finally:
            self.scopes.pop()

    def s_expression_statement(self, node) -> None:
        inner = [c for c in node.named_children if c.type != "comment"]
        if not inner:
            return
        e = inner[0]
        if e.type == "assignment_expression":
            self.assign(e)
        elif e.type == "update_expression":
            self.update(e)
        elif e.type == "comma_expression":
            for part in (e.child_by_field_name("left"), e.child_by_field_name("right")):
                self.s_expression_statement(type("N", (), {"named_children": [part]})())
        else:
            v = self.eval(e)
            if isinstance(v, Sym) and v.reads:
                self.emit(Line(f"{S.render(v)};", self.loc(e), "sync"))

    def update(self, e) -> None:
        arg = e.child_by_field_name("argument")
        op = "++" if "++" in self.text(e) else "--"
        if arg.type == "identifier":
            b = self.lookup(self.text(arg))
            if isinstance(b, Local):
                self.emit(Line(f"{b.name}{op};", self.loc(e), "assign", b.name))
                return
            if isinstance(b, Ptr):
                self.rebind_ptr(arg, self.ptr_add(b, S.num(1), 1 if op == "++" else -1), e)
                return
        if self.contains_sync(e):
            raise self.error(e, "this update is not supported by the extraction")

    def rebind_ptr(self, ident, value, node) -> None:
        name = self.text(ident)
        if self.loop_depth:
            raise self.error(node, f"pointer {name} changes inside a loop: the extraction does not unroll loops; index the signal with the loop variable instead")
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return

    def assign(self, e) -> None:
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = self.text(e.child_by_field_name("operator"))
        if left.type == "identifier":
            b = self.lookup(self.text(left))
            if isinstance(b, Local):
                v = self.as_int(self.eval(right), right, self.text(left))
                if op in ("=", "+=", "-="):
                    self.emit(Line(f"{b.name} {op} {S.render(v)};", self.loc(e), "assign", b.name))
                else:
                    bop = op[:-1]
                    self.emit(Line(f"{b.name} = {S.render(S.binop(bop, S.name(b.name), v))};", self.loc(e), "assign", b.name))
                return
            if isinstance(b, (Ptr, View, Struct, Windows)) or b is None:
                v = self.eval(right)
                if op == "=":
                    if b is not None or isinstance(v, (Ptr, View)):
                        self.rebind_ptr(left, v, e) if b is not None else None
                    return
                if isinstance(b, Ptr) and op in ("+=", "-="):
                    self.rebind_ptr(left, self.ptr_add(b, self.as_int(v, right), 1 if op == "+=" else -1), e)
                    return
                return
            return
        target = self.eval(left)
        if isinstance(target, Elem) and target.ptr.plain:
            v = self.as_int(self.eval(right), right)
            if op != "=":
                raise self.error(e, "a compound assignment to a plain signal is not atomic: not supported")
            ref, levels = self.view_text(View(target.ptr, (), ()), left, single=True)
            levels["value"], levels["opcmp"] = v.level, PARTIAL
            self.site("TNOTIFY", e, levels)
            self.emit(Line(f"TNOTIFY({ref}, {S.render(v)}, Set);", self.loc(e), "sync"))
            return
        self.eval(right)

    def s_declaration(self, node) -> None:
        ty = node.child_by_field_name("type")
        tytext = self.text(ty) if ty is not None else "int"
        is_const = any(c.type == "type_qualifier" and c.text in (b"const", b"constexpr") for c in node.children)
        mutated = self.mutated(self.function_body(node))
        for d in node.children_by_field_name("declarator"):
            self.declare(node, ty, tytext, d, is_const, mutated)

    def function_body(self, node):
        n = node
        while n.parent is not None and n.type != "function_definition":
            n = n.parent
        return n.child_by_field_name("body") if n.type == "function_definition" else n

    def wrapper_kind(self, ty) -> tuple[str, object] | None:
        if ty is None:
            return None
        base, targs = ty, None
        if base.type == "qualified_identifier":
            while base.type == "qualified_identifier":
                base = base.child_by_field_name("name")
        if base.type == "template_type":
            targs = base.child_by_field_name("arguments")
            base = base.child_by_field_name("name")
        name = self.text(base)
        if name in self.index.aliases and targs is None:
            alias, sf = self.index.aliases[name]
            saved, self.sf = self.sf, sf
            try:
                r = self.wrapper_kind(alias)
            finally:
                self.sf = saved
            return r
        return (name, targs) if name in WRAPPERS else None

    def declare(self, node, ty, tytext, d, is_const, mutated) -> None:
        wk = self.wrapper_kind(ty)
        if wk is not None:
            kind, targs = wk
            name = declarator_name(d)
            if d.type == "function_declarator":       # the most vexing parse: Signal sig(ptr);
                plist = d.child_by_field_name("parameters")
                self.bind(name, self.vexing(kind, targs, plist, d))
                return
            elif d.type == "init_declarator":
                val = d.child_by_field_name("value")
                arg_nodes = list(val.named_children) if val.type in ("argument_list", "initializer_list") else [val]
                if len(arg_nodes) == 1 and val.type not in ("argument_list", "initializer_list"):
                    v = self.eval(val)
                    if isinstance(v, View):
                        self.bind(name, v)
                        return
            else:
                raise self.error(d, f"{kind} {name} without a pointer")
            self.bind(name, self.wrapper(kind, targs, arg_nodes, d))
            return
        if d.type == "function_declarator":
            return
        name = declarator_name(d)
        if name is None:
            return
        value_node = d.child_by_field_name("value") if d.type == "init_declarator" else None
        inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        ctype = tytext + ("*" if inner is not None and inner.type == "pointer_declarator" else "")
        if inner is not None and inner.type == "array_declarator":
            self.bind(name, self.array(value_node))
            return
        if value_node is not None and value_node.type == "argument_list":
            value_node = value_node.named_children[0] if value_node.named_children else None
        if value_node is None:
            if clean_type(ctype) in INT_TYPES and name in mutated:
                n = self.fresh(name)
                self.bind(name, Local(n, clean_type(ctype) == "bool"))
                self.local_values[n] = None
                self.emit(Line(f"{'bool' if clean_type(ctype) == 'bool' else 'int'} {n} = 0;", self.loc(d), "decl", n))
            else:
                self.bind(name, Unknown(name, self.loc(d), name))
            return
        v = self.eval(value_node)
        if pointee(ctype) is not None and isinstance(v, Ptr):
            v = self.cast(ctype, v, d)
        if isinstance(v, Local):
            v = S.name(v.name)
        if isinstance(v, Sym) and (name in mutated or (not is_const and not S.is_int(v) and not self.is_alias(v))):
            is_bool = clean_type(ctype) == "bool"
            n = self.fresh(name)
            self.bind(name, Local(n, is_bool))
            self.local_values[n] = v if name not in mutated else None
            self.emit(Line(f"{'bool' if is_bool else 'int'} {n} = {S.render(v)};", self.loc(d), "decl", n))
            return
        if isinstance(v, (Unknown, Elem)) and clean_type(ctype) in INT_TYPES:
            v = self.as_int(v, value_node, name)
            if name in mutated:
                n = self.fresh(name)
                self.bind(name, Local(n))
                self.local_values[n] = None
                self.emit(Line(f"int {n} = {S.render(v)};", self.loc(d), "decl", n))
                return
        self.bind(name, v)

    def is_alias(self, v: Sym) -> bool:
        return v.op == "name" and (v.args[0] in ("rank", "block", "nranks", "nblocks") or v.args[0] in self.params)

    def vexing(self, kind: str, targs, plist, d):
        """`Signal sig(ptr);` parsed as a function declaration: read its parameters again
        as the constructor's argument expressions (locations stay those of the source)."""
        if not plist.named_children:
            raise self.error(d, f"{kind} without a pointer argument")
        first, last = plist.named_children[0], plist.named_children[-1]
        text = self.sf.data[first.start_byte:last.end_byte].decode("utf-8", "replace")
        snip_sf, expr = snippet(text, self.sf.path, self.loc(first), at=self.loc(first))
        saved, self.sf = self.sf, snip_sf
        try:
            arg_nodes = expr.named_children if expr.type == "comma_expression" else [expr]
            if expr.type == "comma_expression":
                arg_nodes = [expr.child_by_field_name("left"), expr.child_by_field_name("right")]
            values = [self.eval(a) for a in arg_nodes]
        finally:
            self.sf = saved
        return self.wrapper_values(kind, targs, values, arg_nodes, d)

    def array(self, value_node):
        if value_node is None or value_node.type != "initializer_list":
            return Unknown("array", self.loc(value_node) if value_node is not None else None)
        return tuple(self.eval(c) for c in value_node.named_children)

    def s_if_statement(self, node) -> None:
        cnode = node.child_by_field_name("condition")
        value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
        if value is None or value.type == "declaration":
            raise self.error(cnode, "a declaration in an if condition is not supported")
        c = self.as_int(self.eval(value), value, "COND")
        cons = node.child_by_field_name("consequence")
        alt = node.child_by_field_name("alternative")
        if alt is not None and alt.type == "else_clause":
            alt = next((x for x in alt.named_children if x.type != "comment"), None)
        if S.is_int(c) and not c.reads:
            if c.args[0]:
                self.exec_scoped(cons)
            elif alt is not None:
                self.exec_scoped(alt)
            return
        block = Block("if", S.render(c), self.loc(value), reads=c.reads)
        facts = {}
        if c.op == "bin" and c.args[0] == "==" and c.args[1].op == "name" and S.is_int(c.args[2]):
            facts[c.args[1].args[0]] = c.args[2]
        self.facts.append(facts)
        try:
            block.body = self.collect(cons)
        finally:
            self.facts.pop()
        if alt is not None:
            block.orelse = self.collect(alt)
        self.emit(block)

    def exec_scoped(self, node) -> None:
        self.scopes.append({})
        try:
            self.exec(node)
        finally:
            self.scopes.pop()

    def collect(self, node, loop: bool = False) -> list:
        self.out.append([])
        self.loop_depth += loop
        try:
            self.exec_scoped(node)
        finally:
            self.loop_depth -= loop
        return self.out.pop()

    def s_while_statement(self, node) -> None:
        cnode = node.child_by_field_name("condition")
        value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
        c = self.as_int(self.eval(value), value, "COND")
        if S.is_int(c) and not c.args[0]:
            return
        block = Block("while", S.render(c), self.loc(value), reads=c.reads)
        block.body = self.collect(node.child_by_field_name("body"), loop=True)
        self.emit(block)

    def s_do_statement(self, node) -> None:
        body = node.child_by_field_name("body")
        cnode = node.child_by_field_name("condition")
        value = cnode.named_children[0] if cnode.type == "parenthesized_expression" else cnode
        block = Block("while", "1", self.loc(node))
        self.out.append([])
        self.loop_depth += 1
        try:
            self.exec_scoped(body)
            c = self.as_int(self.eval(value), value, "COND")
            self.emit(Block("if", S.render(S.unop("!", c)), self.loc(value),
                            [Line("break;", self.loc(value), "jump")], reads=c.reads))
        finally:
            self.loop_depth -= 1
        block.body = self.out.pop()
        self.emit(block)

    def s_for_statement(self, node) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        upd = node.child_by_field_name("update")
        if init is None and cond is None and upd is None:
            block = Block("while", "1", self.loc(node))
            block.body = self.collect(node.child_by_field_name("body"), loop=True)
            self.emit(block)
            return
        if init is None or upd is None:
            if self.contains_sync(node):
                raise self.error(node, "a for loop without an initializer or an update around a signal operation is not supported")
            return
        self.scopes.append({})
        try:
            var, head_init = self.for_init(init)
            c = self.as_int(self.eval(cond), cond, "COND") if cond is not None else S.num(1)
            head_upd = self.for_update(upd, var)
            head = f"{head_init}; {S.render(c)}; {head_upd}"
            block = Block("for", head, self.loc(node), defines=var, reads=c.reads)
            if c.op == "bin" and c.args[1] == S.name(var):
                op, _, bound = c.args
                if op == "<":
                    self.local_values[var] = S.binop("-", bound, S.num(1))
                elif op == "<=":
                    self.local_values[var] = bound
            block.body = self.collect(node.child_by_field_name("body"), loop=True)
        finally:
            self.scopes.pop()
        self.emit(block)

    def for_init(self, init) -> tuple[str, str]:
        if init.type == "declaration":
            ds = init.children_by_field_name("declarator")
            if len(ds) != 1 or ds[0].type != "init_declarator":
                raise self.error(init, "a for loop must declare one initialized loop variable")
            name = declarator_name(ds[0])
            v = self.as_int(self.eval(ds[0].child_by_field_name("value")), ds[0], name)
            n = self.fresh(name)
            self.bind(name, Local(n))
            self.local_values[n] = None
            return n, f"int {n} = {S.render(v)}"
        if init.type == "assignment_expression":
            left = init.child_by_field_name("left")
            b = self.lookup(self.text(left))
            if isinstance(b, Local):
                v = self.as_int(self.eval(init.child_by_field_name("right")), init)
                return b.name, f"{b.name} = {S.render(v)}"
        raise self.error(init, "this for loop initializer is not supported")

    def for_update(self, upd, var: str) -> str:
        if upd.type == "update_expression":
            arg = upd.child_by_field_name("argument")
            b = self.lookup(self.text(arg))
            if isinstance(b, Local):
                return f"{b.name}{'++' if '++' in self.text(upd) else '--'}"
        if upd.type == "assignment_expression":
            left = upd.child_by_field_name("left")
            b = self.lookup(self.text(left))
            op = self.text(upd.child_by_field_name("operator"))
            if isinstance(b, Local) and op in ("=", "+=", "-="):
                v = self.as_int(self.eval(upd.child_by_field_name("right")), upd)
                return f"{b.name} {op} {S.render(v)}"
        raise self.error(upd, "this for loop update is not supported (use i++, i--, i += k or i = ...)")

    def s_break_statement(self, node) -> None:
        self.emit(Line("break;", self.loc(node), "jump"))

    def s_continue_statement(self, node) -> None:
        self.emit(Line("continue;", self.loc(node), "jump"))

    def s_return_statement(self, node) -> None:
        if self.ret_ctx:
            ctx = self.ret_ctx[-1]
            if ctx["nested"]:
                val = next((x for x in node.named_children if x.type != "comment"), None)
                if val is not None:
                    raise self.error(node, f"helper {ctx['fn']} returns a value from inside its control flow: not supported")
                self.emit(Line("break;", self.loc(node), "jump"))
                return
        self.emit(Line("return;", self.loc(node), "return"))

    def s_labeled_statement(self, node) -> None:
        for c in node.named_children:
            if c.type != "statement_identifier":
                self.exec(c)

    # ---------------------------------------------------------------- the kernel

    def run(self, launch_args: dict[str, Sym]) -> list:
        f = self.kernel
        scope: dict = {}
        if f.template is not None:
            self.bind_template(f, [], scope)
        values = self.cfg.get("values", {})
        for p in self.params_of(f):
            d = p.child_by_field_name("declarator")
            pname = declarator_name(d)
            if pname is None:
                continue
            ty = p.child_by_field_name("type")
            ctype = self.text(ty) + ("*" if d is not None and d.type == "pointer_declarator" else "")
            loc = self.sf.loc(p)
            if norm(pname) in self.builtin_text:
                which, level = self.builtin_text[norm(pname)]
                scope[pname] = self.builtin(which, level)
            elif pname in values:
                scope[pname] = self.config_value(values[pname], loc)
            elif pname in launch_args:
                scope[pname] = launch_args[pname]
            elif pname in self.windows:
                scope[pname] = Windows()
            elif (conv := self.conventional(pname, pname, loc)) is not None and pointee(ctype) is None:
                scope[pname] = conv
            else:
                scope[pname] = self.value_of_type(ctype, pname, pname, loc, f"arg:{pname}")
        self.scopes = [scope]
        body = f.node.child_by_field_name("body")
        for err in f.file.errors:
            if f.node.start_byte <= err.start_byte < f.node.end_byte:
                raise ExtractError(f.file.loc(err), "syntax error: the C++ parser cannot read this part of the kernel")
        self.s_compound_statement(body)
        return self.out[0]

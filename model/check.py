"""Semantic checks of a parsed spec. Entry point: `check_spec`.

Declarations are validated and evaluated (params with their overrides, consts, sizes,
signals, expects); process bodies are resolved into structured IR statements (model/ir.py)
with typed expressions and views. Every error is collected and reported together
(SpecErrors); what comes out is a valid program for lowering (model/lower.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from model import ir
from model import syntax as S
from model.compile import evaluate
from model.errors import ModelError, Span, SpecError, SpecErrors, SpecWarning
from model.expr import build, constant
from model.vocabulary import CMP_PREFIXES, EXPECTABLE, OP_PREFIXES

INT32_MIN, INT32_MAX = ir.INT32_MIN, ir.INT32_MAX
MAX_RANKS = 64
MAX_BLOCKS = 64
MAX_PROCESSES = 256
MAX_SIGNAL_ELEMENTS = 65536  # over all ranks; also the most buffer shadow entries (blocks, model/grain.py)
MAX_BUFFER_ELEMENTS = 1 << 23  # buffer elements over all ranks, before merging them into blocks
MAX_DIMS = 5
MAX_NESTING = 200
VERDICTS = EXPECTABLE  # the words of an `expect` line (model/vocabulary.py)
CHECKS = ("clean_exit",)

KERNEL_BUILTINS = ("rank", "block", "launch_id")
HOST_BUILTINS = ("rank",)
_NOTIFY_PREFIXES = OP_PREFIXES  # `Set`, `NotifyOp::Set`, `pto::comm::NotifyOp::Set` (model/vocabulary.py)
_CMP_PREFIXES = CMP_PREFIXES


@dataclass(frozen=True)
class Body:
    """A checked process body: structured statements and the local slots they use."""

    stmts: tuple[ir.Stmt, ...]
    nslots: int
    slot_names: tuple[str, ...]
    default_host: bool = False  # `host { launch; }` supplied by the checker


@dataclass(frozen=True)
class CheckedSpec:
    name: str
    file: str
    source: str
    params: tuple[tuple[str, int], ...]
    nranks: int
    nblocks: int
    signals: tuple[ir.SignalInfo, ...]
    elems_per_rank: int
    kernel: Body
    host: Body
    kernel_span: Span
    clean_exit: bool
    expects: tuple[str, ...]
    uses_launch_id: bool
    buffers: tuple[ir.SignalInfo, ...] = ()
    data_per_rank: int = 0
    events: int = 0
    warnings: tuple[str, ...] = ()  # rendered `file:line:col: warning: ...` lines


def check_spec(spec: S.Spec, overrides: dict[str, int] | None = None) -> CheckedSpec:
    """Check a parsed spec. `overrides` are -D values (checked against the params)."""
    return _Checker(spec, dict(overrides or {})).run()


def source_text(source: str, span: Span) -> str:
    """The text of a statement as written, without its trailing ';' (first line + ' ...')."""
    lines = source.splitlines()
    if span.line == span.end_line and 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.col - 1: span.end_col - 1].strip().rstrip(";").rstrip()
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.col - 1:].strip() + " ..."
    return ""


# ---------------------------------------------------------------- scopes


@dataclass
class _Scope:
    """Names visible to process code: one frame per block; slots are reused by depth."""

    builtins: tuple[str, ...]
    consts: dict[str, int]
    frames: list[dict[str, int]] = field(default_factory=lambda: [{}])
    bools: set[int] = field(default_factory=set)
    events: dict[int, int] = field(default_factory=dict)  # slot -> event number, for `event` locals
    arrays: dict[int, int] = field(default_factory=dict)  # first slot -> size, for local arrays
    nevents: int = 0
    live: int = 0  # slots in use
    nslots: int = 0
    slot_names: list[str] = field(default_factory=list)

    def lookup(self, name: str) -> int | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def declare(self, name: str, is_bool: bool, is_event: bool = False) -> int:
        slot = self.live
        self.live += 1
        if self.live > self.nslots:
            self.nslots = self.live
            self.slot_names.append(name)
        self.frames[-1][name] = slot
        (self.bools.add if is_bool else self.bools.discard)(slot)
        self.events.pop(slot, None)
        self.arrays.pop(slot, None)
        if is_event:
            self.events[slot] = self.nevents
            self.nevents += 1
        return slot

    def declare_array(self, name: str, size: int) -> int:
        """`size` consecutive slots; the name maps to the first, the others get hidden names."""
        first = self.declare(name, False)
        for k in range(1, size):
            self.declare(f"{name}[{k}]", False)
        self.arrays[first] = size
        return first

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.live -= len(self.frames.pop())


class _Checker:
    def __init__(self, spec: S.Spec, overrides: dict[str, int]):
        self.spec = spec
        self.file = spec.file
        self.overrides = overrides
        self.errors: list[SpecError] = []
        self.consts: dict[str, int] = {}  # params and consts
        self.signals: dict[str, ir.SignalInfo] = {}
        self.buffers: dict[str, ir.SignalInfo] = {}
        self.views: dict[str, tuple[ir.SignalInfo, ir.Layout]] = {}
        self.nevents = 0
        self.used: set[str] = set()  # params and consts that some expression reads
        self.uses_launch_id = False

    def error(self, message: str, span: Span | None) -> None:
        self.errors.append(SpecError(message, span))

    def fail(self) -> SpecErrors:
        return SpecErrors(self.errors, self.spec.source)

    # ------------------------------------------------------------ declarations

    def for_all_decl(self, d: S.Decl, param_names: set, first: S.Decl | None) -> None:
        """`expect ok for all N, L;`: means `expect ok` here (every size given is checked);
        `sigproof prove` reads the params from it. Only `ok`, only declared params, one line."""
        if first is not None:
            self.error(f"a second 'expect ok for all' line (the first is at {first.span})", d.span)
        if d.name != "ok":
            self.error(f"'expect {d.name} for all ...': only 'ok' can be claimed for every size "
                       f"(write 'expect {d.name};' for a known violation)", d.span)
        seen: set[str] = set()
        for n in d.for_all:
            if n.id not in param_names:
                self.error(f"'expect ok for all {n.id}': the spec declares no param '{n.id}'"
                           f"{_suggest(n.id, param_names)} (declare 'param {n.id} = VALUE;': the value is "
                           f"the size `check` takes)", n.span)
            elif n.id in seen:
                self.error(f"'{n.id}' is named twice in 'expect ok for all'", n.span)
            seen.add(n.id)

    def run(self) -> CheckedSpec:
        decls = self.spec.decls
        singles: dict[str, S.Decl] = {}
        declared: dict[str, Span] = {}
        expects: list[str] = []
        claimed: S.Decl | None = None  # the `expect ok for all ...;` line
        checks: set[str] = set()
        for d in decls:
            if d.kind in ("protocol", "ranks", "blocks", "kernel", "host"):
                if d.kind in singles:
                    self.error(f"'{d.kind}' is declared twice (first at {singles[d.kind].span})", d.span)
                else:
                    singles[d.kind] = d
            if d.kind in ("param", "const", "signal", "buffer", "view"):
                if d.name in declared:
                    self.error(f"'{d.name}' is declared twice (first at {declared[d.name]})", d.span)
                    continue
                if d.name in KERNEL_BUILTINS or d.name in ("nranks", "nblocks"):
                    self.error(f"'{d.name}' is a built-in name and cannot be declared", d.span)
                    continue
                declared[d.name] = d.span
        params = [d for d in decls if d.kind == "param"]
        param_names = {d.name for d in params}
        for name in self.overrides:
            if name not in param_names:
                hint = _suggest(name, param_names)
                self.errors.append(SpecError(f"{name}={self.overrides[name]} (from -D or --sweep): the spec declares no "
                                             f"param '{name}'{hint}", None, self.file))
        # params, consts, ranks, blocks, signals, in source order of dependency:
        # consts may only use params and earlier consts.
        values: list[tuple[str, int]] = []
        for d in decls:
            if d.kind == "param" and d.name in declared and declared[d.name] == d.span:
                v = self.overrides.get(d.name)
                if v is None:
                    v = self.const_eval(d.value)
                if v is not None:
                    self.consts[d.name] = v
                    values.append((d.name, v))
        for d in decls:
            if d.kind == "const" and declared.get(d.name) == d.span:
                v = self.const_eval(d.value)
                if v is not None:
                    self.consts[d.name] = v
        nranks = self.size_decl(singles.get("ranks"), "ranks", MAX_RANKS, required=True)
        nblocks = self.size_decl(singles.get("blocks"), "blocks", MAX_BLOCKS, required=False)
        if nranks and nblocks and nranks * nblocks > MAX_PROCESSES:
            self.error(f"{nranks} ranks x {nblocks} blocks is more than {MAX_PROCESSES} kernel processes",
                       singles["blocks"].span)
        self.nranks, self.nblocks = nranks or 1, nblocks or 1
        offset = 0
        for d in decls:
            if d.kind == "signal" and declared.get(d.name) == d.span:
                sig = self.signal_decl(d, offset, nranks or 1)
                if sig is not None:
                    self.signals[d.name] = sig
                    offset += sig.size
        data = 0
        for d in decls:
            if d.kind == "buffer" and declared.get(d.name) == d.span:
                buf = self.signal_decl(d, data, nranks or 1, what="buffer")
                if buf is not None:
                    self.buffers[d.name] = buf
                    data += buf.size
        for d in decls:
            if d.kind == "view" and declared.get(d.name) == d.span:
                lay = self.view_decl(d)
                if lay is not None:
                    self.views[d.name] = lay
        for d in decls:
            if d.kind == "check":
                if d.name not in CHECKS:
                    self.error(f"unknown check '{d.name}'; the only optional check is clean_exit", d.span)
                checks.add(d.name)
            elif d.kind == "expect":
                if d.for_all:
                    self.for_all_decl(d, param_names, claimed)
                    claimed = claimed or d
                if d.name not in VERDICTS:
                    hint = _suggest(d.name, VERDICTS)
                    self.error(f"unknown verdict '{d.name}'{hint}; expected one of {', '.join(VERDICTS)}", d.span)
                elif d.name not in expects:
                    expects.append(d.name)
        if "ok" in expects and len(expects) > 1:
            first = next(d for d in decls if d.kind == "expect" and d.name == "ok")
            self.error("'expect ok' cannot be combined with an expected violation", first.span)
        if "kernel" not in singles:
            self.error("the spec has no 'kernel { ... }'", Span(self.file, 1, 1, 1, 2))
        if self.errors:
            raise self.fail()
        kernel = self.body(singles["kernel"].body, kernel=True)
        host_decl = singles.get("host")
        host = self.body(host_decl.body if host_decl else None, kernel=False)
        if self.errors:
            raise self.fail()
        unused = [d for d in params if declared.get(d.name) == d.span and d.name not in self.used]
        warnings = tuple(SpecWarning(d.span, f"param '{d.name}' is never used (a launch count whose host block "
                                             f"was forgotten?)") for d in unused)
        stem = self.file.replace("\\", "/").rsplit("/", 1)[-1]
        name = singles["protocol"].name if "protocol" in singles else stem.rsplit(".", 1)[0]
        return CheckedSpec(
            name=name, file=self.file, source=self.spec.source, params=tuple(values),
            nranks=nranks, nblocks=nblocks, signals=tuple(sorted(self.signals.values(), key=lambda s: s.offset)),
            elems_per_rank=offset, kernel=kernel, host=host, kernel_span=singles["kernel"].span,
            clean_exit="clean_exit" in checks,
            expects=tuple(sorted(expects)) if expects != ["ok"] else (), uses_launch_id=self.uses_launch_id,
            buffers=tuple(sorted(self.buffers.values(), key=lambda s: s.offset)), data_per_rank=data,
            events=self.nevents, warnings=warnings)

    def const_eval(self, e: S.Expr) -> int | None:
        scope = _Scope(builtins=(), consts=self.consts)
        value = self.expr(e, scope, const_only=True)
        if value is None:
            return None
        try:
            return evaluate(value)
        except ModelError as err:
            self.error(f"in a constant expression: {err.message}", err.span)
            return None

    def size_decl(self, d: S.Decl | None, kind: str, limit: int, required: bool) -> int | None:
        if d is None:
            if required:
                self.error(f"the spec has no '{kind} N;' declaration", Span(self.file, 1, 1, 1, 2))
                return None
            return 1
        v = self.const_eval(d.value)
        if v is None:
            return None
        if v < 1:
            self.error(f"{kind} must be at least 1, not {v}", d.value.span)
            return None
        if v > limit:
            self.error(f"{kind} {v} is more than this checker explores (at most {limit})", d.value.span)
            return None
        return v

    def signal_decl(self, d: S.Decl, offset: int, nranks: int, what: str = "signal") -> ir.SignalInfo | None:
        if len(d.dims) > MAX_DIMS:
            self.error(f"{what} '{d.name}' has {len(d.dims)} dimensions; at most {MAX_DIMS} are allowed", d.span)
            return None
        dims = []
        cap = MAX_SIGNAL_ELEMENTS if what == "signal" else MAX_BUFFER_ELEMENTS
        for e in d.dims:
            v = self.const_eval(e)
            if v is None:
                return None
            if v < 1:
                self.error(f"signal dimension must be at least 1, not {v}", e.span)
                return None
            if v > cap:
                self.error(f"{what} dimension {v} is too large (at most {cap} elements in all)", e.span)
                return None
            dims.append(v)
        size = 1
        for v in dims:
            size *= v
        if (offset + size) * nranks > cap:
            self.error(f"{what} '{d.name}' brings the {what} memory to {(offset + size) * nranks} elements over "
                       f"all ranks; at most {cap} are explored", d.span)
            return None
        init = 0
        if d.value is not None:
            v = self.const_eval(d.value)
            if v is None:
                return None
            if not INT32_MIN <= v <= INT32_MAX:
                self.error(f"initial value {v} does not fit in int32", d.value.span)
                return None
            init = v
        return ir.SignalInfo(d.name, tuple(dims), init, offset, size, d.span)

    def view_decl(self, d: S.Decl) -> tuple[ir.SignalInfo, ir.Layout] | None:
        """`view g[D0]...[Dk] = s;`, `= s[OFF:]` or `= s[OFF::STRIDE]` over a 1-D signal or
        buffer `s`: g[i0]...[ik] is s[OFF + i0 * STRIDE + (i1, ..., ik in row-major order)]. A
        view of a buffer is used where the buffer is (TPUT, TGET, READ, WRITE)."""
        t = d.target
        sig = self.signals.get(t.name) or self.buffers.get(t.name)
        kind = "signal" if t.name in self.signals else "buffer"
        if sig is None:
            what = "a view" if t.name in self.views else None
            self.error(f"view '{d.name}': '{t.name}' is {what}; a view is declared over a signal or a buffer" if what
                       else f"view '{d.name}': undeclared signal '{t.name}'{_suggest(t.name, self.signals)}", t.span)
            return None
        if len(sig.dims) != 1:
            self.error(f"view '{d.name}': {kind} '{t.name}' has {len(sig.dims)} dimensions; a view is declared over a "
                       f"flat (1-D) {kind}", t.span)
            return None
        if t.at is not None:
            self.error(f"view '{d.name}': a view declaration names no rank; write '@ r' where the view is used",
                       t.at.span)
            return None
        if len(d.dims) > MAX_DIMS:
            self.error(f"view '{d.name}' has {len(d.dims)} dimensions; at most {MAX_DIMS} are allowed", d.span)
            return None
        dims = [self.const_eval(e) for e in d.dims]
        if None in dims:
            return None
        for v, e in zip(dims, d.dims):
            if v < 1:
                self.error(f"view dimension must be at least 1, not {v}", e.span)
                return None
        inner = 1
        for v in dims[1:]:
            inner *= v
        offset, stride = 0, inner
        if t.selectors:
            sel = t.selectors[0]
            if len(t.selectors) > 1 or not isinstance(sel, S.Slice) or sel.stop is not None:
                self.error(f"view '{d.name}' = {t.name}[OFFSET:] or {t.name}[OFFSET::STRIDE]: the rows start at "
                           f"OFFSET, OFFSET + STRIDE, ... (no stop, one selector)", sel.span)
                return None
            parts = [self.const_eval(x) if x is not None else dflt for x, dflt in ((sel.start, 0), (sel.step, inner))]
            if None in parts:
                return None
            offset, stride = parts
        if stride < inner and len(dims) > 1:
            self.error(f"view '{d.name}': row stride {stride} is less than a row ({inner} elements), so rows would "
                       f"overlap", t.span)
            return None
        if stride < 1:
            self.error(f"view '{d.name}': the stride must be at least 1, not {stride}", t.span)
            return None
        last = offset + (dims[0] - 1) * stride + inner - 1
        if offset < 0 or last >= sig.size:
            self.error(f"view '{d.name}' reaches elements {offset}..{last} of '{t.name}', which has {sig.size}",
                       t.span)
            return None
        strides, acc = [], 1
        for v in reversed(dims[1:]):
            strides.append(acc)
            acc *= v
        strides = (stride, *reversed(strides))
        return sig, ir.Layout(d.name, tuple(dims), tuple(strides), offset, d.span)

    # ------------------------------------------------------------ process code

    def body(self, block: S.Block | None, kernel: bool) -> Body:
        consts = {**self.consts, "nranks": self.nranks}
        if kernel:
            consts["nblocks"] = self.nblocks
        self.scope = _Scope(builtins=KERNEL_BUILTINS if kernel else HOST_BUILTINS, consts=consts)
        self.kernel = kernel
        self.loops = 0
        self.depth = 0
        if block is None:
            return Body((), 0, (), default_host=True)
        stmt = self.stmt(block)
        stmts = stmt.body if isinstance(stmt, ir.SBlock) else ()
        self.nevents = max(self.nevents, self.scope.nevents)
        return Body(stmts, self.scope.nslots, tuple(self.scope.slot_names))

    def text(self, span: Span) -> str:
        return source_text(self.spec.source, span)

    def stmt(self, st: S.Stmt) -> ir.Stmt | None:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                self.error(f"statements nested more than {MAX_NESTING} deep", st.span)
                return None
            return getattr(self, "stmt_" + type(st).__name__)(st)
        finally:
            self.depth -= 1

    def scoped(self, st: S.Stmt) -> ir.Stmt | None:
        self.scope.push()
        out = self.stmt(st)
        self.scope.pop()
        return out

    def stmt_Block(self, st: S.Block) -> ir.Stmt:
        self.scope.push()
        out = []
        for s in st.body:
            x = self.stmt(s)
            if x is not None:
                out.append(x)
            if len(self.errors) > 50:
                break
        self.scope.pop()
        return ir.SBlock(tuple(out), st.span)

    def stmt_VarDecl(self, st: S.VarDecl) -> ir.Stmt | None:
        if isinstance(st.init, S.Any):
            return self.choose(st, st.name, st.init, declare=st.type)
        value = self.rvalue(st.init)
        if not self.declarable(st.name, st.span):
            return None
        slot = self.scope.declare(st.name, st.type == "bool")
        if value is None:
            return None
        if st.type == "bool":
            value = ir.Unary("bool", value, value.span)
        return ir.SAssign(slot, value, st.span, self.text(st.span))

    def stmt_ArrayDecl(self, st: S.ArrayDecl) -> ir.Stmt | None:
        """`int a[N] = {...};`: N locals, initialized in order (the rest 0, as in C)."""
        size = self.const_eval(st.size)
        items = [self.rvalue(x) for x in st.items]
        if size is None or not self.declarable(st.name, st.span):
            return None
        if not 1 <= size <= ir.MAX_ARRAY:
            self.error(f"local array '{st.name}' has size {size}; the size is a constant from 1 to {ir.MAX_ARRAY}",
                       st.size.span)
            return None
        first = self.scope.declare_array(st.name, size)
        if len(st.items) > size:
            self.error(f"local array '{st.name}' has {size} element(s) but {len(st.items)} initializers",
                       st.items[size].span)
            return None
        if any(x is None for x in items):
            return None
        out = []
        for k in range(size):
            value = items[k] if k < len(items) else ir.Const(0, st.span)
            out.append(ir.SAssign(first + k, value, st.span, self.text(st.span)))
        return ir.SBlock(tuple(out), st.span)

    def array(self, name: str, span: Span) -> tuple[ir.Local, ...] | None:
        """The elements of local array `name`, or None after an error."""
        first = self.scope.lookup(name)
        if first is None or first not in self.scope.arrays:
            if first is not None:
                self.error(f"'{name}' is not an array: only a local array can be indexed here", span)
            elif name in self.signals or name in self.views or name in self.buffers:
                what = "signal" if name in self.signals else "view" if name in self.views else "buffer"
                self.error(f"{what} '{name}' can only be indexed inside a signal operation (TNOTIFY, TWAIT, TTEST, "
                           f"...); a local array is declared `int {name}[N] = {{...}};`", span)
            else:
                self.name_error(name, span)
            return None
        return tuple(ir.Local(first + k, f"{name}[{k}]", span) for k in range(self.scope.arrays[first]))

    def element(self, elems: tuple[ir.Local, ...], index: ir.Expr, name: str, span: Span) -> ir.Expr | None:
        k = constant(index)
        if k is not None and not 0 <= k < len(elems):
            self.error(f"index {k} is out of bounds for local array '{name}' (size {len(elems)})", index.span)
            return None
        if k is not None:
            return ir.Local(elems[k].slot, f"{name}[{k}]", span)
        return ir.ArrayRead(elems, index, name, span)

    def stmt_ElemAssign(self, st: S.ElemAssign) -> ir.Stmt | None:
        if isinstance(st.value, S.Any):
            self.error(f"any(lo, hi) cannot be assigned to an array element: choose into a local first "
                       f"(int d = any(lo, hi); {st.name}[...] = d;)", st.value.span)
            return None
        elems = self.array(st.name, st.span)
        index = self.rvalue(st.index)
        value = self.rvalue(st.value)
        if elems is None or index is None or value is None:
            return None
        if st.op in ("+=", "-="):
            old = self.element(elems, index, st.name, st.span)
            if old is None:
                return None
            value = ir.Binary(st.op[0], old, value, st.span)
        k = constant(index)
        if k is not None:
            if not 0 <= k < len(elems):
                self.error(f"index {k} is out of bounds for local array '{st.name}' (size {len(elems)})", index.span)
                return None
            return ir.SAssign(elems[k].slot, value, st.span, self.text(st.span))
        return ir.SArrayAssign(elems, index, value, st.name, st.span, self.text(st.span))

    def declarable(self, name: str, span: Span) -> bool:
        if name in self.scope.builtins or name in ("nranks", "nblocks", "block", "launch_id"):
            self.error(f"'{name}' is a built-in name and cannot be declared", span)
        elif name in self.consts:
            self.error(f"'{name}' is already a param or const", span)
        elif name in self.signals:
            self.error(f"'{name}' is already a signal", span)
        elif name in self.buffers:
            self.error(f"'{name}' is already a buffer", span)
        elif name in self.views:
            self.error(f"'{name}' is already a view", span)
        elif name in self.scope.frames[-1]:
            self.error(f"'{name}' is already declared in this block", span)
        else:
            return True
        return False

    def choose(self, st, name: str, e: S.Any, declare: str | None = None, op: str = "=") -> ir.Stmt | None:
        """`int x = any(lo, hi);` (declare) or `x = any(lo, hi);`."""
        refuse = lambda call: self.error(  # noqa: E731
            "the bounds of any(lo, hi) are expressions of locals, built-ins and params: read a signal into a "
            "local first", call.span)
        lo, hi = (self.expr(x, self.scope, test=refuse) for x in (e.lo, e.hi))
        if declare is not None:
            if not self.declarable(name, st.span):
                return None
            slot = self.scope.declare(name, declare == "bool")
        else:
            slot = self.scope.lookup(name)
            if slot is None:
                self.name_error(name, st.span, assigning=True)
                return None
            if slot in self.scope.events:
                self.error(f"event '{name}' is set only by TPUT_ASYNC or TGET_ASYNC", st.span)
                return None
            if slot in self.scope.arrays:
                self.error(f"'{name}' is a local array: choose into one element through a local "
                           f"(int d = any(lo, hi); {name}[i] = d;)", st.span)
                return None
        if declare == "bool" or (declare is None and slot in self.scope.bools):
            self.error(f"any(lo, hi) gives an int, but '{name}' is a bool: declare it 'int {name}'", e.span)
            return None
        if op != "=":
            self.error(f"'{name} {op} any(lo, hi)': any can only be assigned with '='; choose into a local "
                       f"first (int d = any(lo, hi); {name} {op} d;)", e.span)
            return None
        if lo is None or hi is None:
            return None
        a, b = constant(lo), constant(hi)
        if a is not None and b is not None:
            if a > b:
                self.error(f"any({a}, {b}) has an empty range (lo > hi)", e.span)
                return None
            if b - a + 1 > ir.MAX_CHOICES:
                self.error(f"any({a}, {b}) ranges over {b - a + 1} values; at most {ir.MAX_CHOICES} are explored",
                           e.span)
                return None
        return ir.SChoose(slot, name, lo, hi, st.span, self.text(st.span))

    def stmt_Assign(self, st: S.Assign) -> ir.Stmt | None:
        if isinstance(st.value, S.Any):
            return self.choose(st, st.name, st.value, op=st.op)
        value = self.rvalue(st.value)
        slot = self.scope.lookup(st.name)
        if slot is None:
            self.name_error(st.name, st.span, assigning=True)
            return None
        if slot in self.scope.events:
            self.error(f"event '{st.name}' is set only by TPUT_ASYNC or TGET_ASYNC", st.span)
            return None
        if slot in self.scope.arrays:
            self.error(f"'{st.name}' is a local array: assign one element ({st.name}[i] {st.op} ...)", st.span)
            return None
        if value is None:
            return None
        if st.op in ("+=", "-="):
            value = ir.Binary(st.op[0], ir.Local(slot, st.name, st.span), value, st.span)
        if slot in self.scope.bools:
            value = ir.Unary("bool", value, value.span)
        return ir.SAssign(slot, value, st.span, self.text(st.span))

    def stmt_If(self, st: S.If) -> ir.Stmt | None:
        cond = self.rvalue(st.cond)
        then = self.scoped(st.then)
        orelse = self.scoped(st.orelse) if st.orelse is not None else None
        if cond is None:
            return None
        return ir.SIf(cond, then or ir.SBlock((), st.then.span), orelse, st.span, self.text(st.cond.span))

    def loop(self, st: S.While | S.For, update: S.Assign | None) -> ir.Stmt | None:
        cond = self.rvalue(st.cond)
        if cond is None:
            return None
        self.loops += 1
        body = self.scoped(st.body)
        self.loops -= 1
        upd = self.stmt(update) if update is not None else None
        return ir.SLoop(cond, body or ir.SBlock((), st.body.span), upd, st.span, self.text(st.cond.span))

    def stmt_While(self, st: S.While) -> ir.Stmt | None:
        return self.loop(st, None)

    def stmt_For(self, st: S.For) -> ir.Stmt | None:
        self.scope.push()
        init = self.stmt(st.init)
        loop = self.loop(st, st.update)
        self.scope.pop()
        return ir.SBlock(tuple(s for s in (init, loop) if s is not None), st.span)

    def stmt_Jump(self, st: S.Jump) -> ir.Stmt | None:
        if st.kind != "return" and not self.loops:
            self.error(f"'{st.kind}' outside a loop", st.span)
            return None
        return ir.SJump(st.kind, st.span)

    def stmt_Assert(self, st: S.Assert) -> ir.Stmt | None:
        cond = self.rvalue(st.cond)
        return None if cond is None else ir.SAssert(cond, st.span, self.text(st.span))

    def stmt_Notify(self, st: S.Notify) -> ir.Stmt | None:
        op = self.op_name(st.op, _NOTIFY_PREFIXES, ir.NOTIFY_OPS, "notify op")
        value = self.rvalue(st.value)
        view = self.view(st.ref, single=True)
        if op is None or value is None or view is None:
            return None
        c = constant(value)
        if c is not None and not INT32_MIN <= c <= INT32_MAX:
            self.error(f"{op} value {c} does not fit in int32", st.value.span)
            return None
        return ir.SNotify(view, value, op, st.span, self.text(st.span))

    def stmt_Wait(self, st: S.Wait) -> ir.Stmt | None:
        args = self.wait_args(st)
        return None if args is None else ir.SWait(*args, st.span, self.text(st.span))

    def wait_args(self, st: S.Wait | S.Test) -> tuple | None:
        """(view, value, cmp) of a TWAIT or TTEST, or None after reporting errors."""
        cmp = self.op_name(st.cmp, _CMP_PREFIXES, ir.CMPS, "comparison")
        value = self.rvalue(st.value)
        view = self.view(st.view, single=False)
        if cmp is None or value is None or view is None or not self.int32_operand(value, st.value):
            return None
        return view, value, cmp

    def int32_operand(self, value: ir.Expr, e: S.Expr) -> bool:
        c = constant(value)
        if c is not None and not INT32_MIN <= c <= INT32_MAX:
            self.error(f"comparison value {c} does not fit in int32", e.span)
            return False
        return True

    def stmt_ExprStmt(self, st: S.ExprStmt) -> ir.Stmt | None:
        value = self.rvalue(st.expr)  # a TTEST whose result is dropped still reads
        return None if value is None else ir.SEval(value, st.span)

    def stmt_PipeBarrier(self, st: S.PipeBarrier) -> ir.Stmt | None:
        # only pipe_barrier(PIPE_ALL) orders data (with a dsb after it); other pipes: no effect
        return ir.SFence("pipe", st.span, self.text(st.span)) if st.pipe == "PIPE_ALL" else None

    def stmt_Dsb(self, st: S.Dsb) -> ir.Stmt | None:
        if st.arg != "DSB_DDR":
            self.error(f"dsb({st.arg}): the checker knows dsb(DSB_DDR) only", st.span)
            return None
        return ir.SFence("dsb", st.span, self.text(st.span))

    def stmt_Fence(self, st: S.Fence) -> ir.Stmt:
        return ir.SFence("full", st.span, self.text(st.span))

    def stmt_Copy(self, st: S.Copy) -> ir.Stmt | None:
        name = ("TPUT" if st.kind == "put" else "TGET") + ("_ASYNC" if st.event else "")
        atomic = False
        if st.op is not None:
            op = self.op_name(st.op, _NOTIFY_PREFIXES, (ir.ATOMIC_ADD,), "TPUT op")
            if op is None:
                return None
            atomic = True
        dst, src = self.buffer_view(st.dst, name), self.buffer_view(st.src, name)
        if dst is None or src is None:
            return None
        local, remote = (src, dst) if st.kind == "put" else (dst, src)
        if local.at is not None:
            which = "source" if st.kind == "put" else "destination"
            self.error(f"{name} {'reads' if st.kind == 'put' else 'writes'} the own rank's {which}: "
                       f"drop its '@' ({'TGET' if st.kind == 'put' else 'TPUT'} moves data the other way)",
                       local.span)
            return None
        sizes = _size(dst), _size(src)
        if None not in sizes and sizes[0] != sizes[1]:
            self.error(f"{name} copies {sizes[1]} element(s) into a view of {sizes[0]}: the views must have the "
                       f"same size", st.span)
            return None
        event = None
        if st.event is not None:
            if not self.declarable(st.event, st.span):
                return None
            slot = self.scope.declare(st.event, False, is_event=True)
            event = (slot, self.scope.events[slot])
        return ir.SCopy(st.kind, dst, src, atomic, event, st.span, self.text(st.span))

    def stmt_Access(self, st: S.Access) -> ir.Stmt | None:
        view = self.buffer_view(st.view, "WRITE" if st.write else "READ")
        return None if view is None else ir.SAccess(view, st.write, st.span, self.text(st.span))

    def event_slot(self, name: str, span: Span, what: str) -> tuple[int, int] | None:
        slot = self.scope.lookup(name)
        if slot is None:
            self.name_error(name, span)
            return None
        if slot not in self.scope.events:
            self.error(f"{what} takes an event (declared `event {name} = TPUT_ASYNC(...)`); '{name}' is not one",
                       span)
            return None
        return slot, self.scope.events[slot]

    def stmt_WaitEvent(self, st: S.WaitEvent) -> ir.Stmt | None:
        ev = self.event_slot(st.name, st.span, "WAIT_EVENT")
        return None if ev is None else ir.SWaitEvent(*ev, st.name, st.span, self.text(st.span))

    def stmt_Store(self, st: S.Store) -> ir.Stmt | None:
        value = self.rvalue(st.value)
        view = self.view(st.ref, single=True, what="STORE")
        if value is None or view is None:
            return None
        c = constant(value)
        if c is not None and not INT32_MIN <= c <= INT32_MAX:
            self.error(f"STORE value {c} does not fit in int32", st.value.span)
            return None
        return ir.SStore(view, value, st.span, self.text(st.span))

    def stmt_Observe(self, st: S.Observe) -> ir.Stmt | None:
        cond = self.rvalue(st.cond)
        return None if cond is None else ir.SObserve(cond, st.span, self.text(st.span))

    def host_only(self, what: str, span: Span) -> bool:
        if self.kernel:
            self.error(f"'{what}' is a host statement; it cannot appear in the kernel", span)
            return False
        return True

    def stmt_Launch(self, st: S.Launch) -> ir.Stmt | None:
        return ir.SLaunch(st.span, self.text(st.span)) if self.host_only("launch", st.span) else None

    def stmt_Reset(self, st: S.Reset) -> ir.Stmt | None:
        if not self.host_only("reset", st.span):
            return None
        view = self.view(st.view, single=False)
        return None if view is None else ir.SReset(view, st.span, self.text(st.span))

    def stmt_HostBarrier(self, st: S.HostBarrier) -> ir.Stmt | None:
        if self.host_only("host_barrier", st.span):
            return ir.SHostBarrier(st.span, self.text(st.span))
        return None

    def stmt_BlockBarrier(self, st: S.BlockBarrier) -> ir.Stmt | None:
        if not self.kernel:
            self.error("'block_barrier' is a kernel statement (all blocks of a rank meet there); it cannot appear in "
                       "the host (use host_barrier to meet the other ranks' hosts)", st.span)
            return None
        return ir.SBlockBarrier(st.span, self.text(st.span))

    # ------------------------------------------------------------ ops and views

    def op_name(self, op: S.OpName, prefixes, choices, what: str) -> str | None:
        *prefix, last = op.parts
        if tuple(prefix) in prefixes and last in choices:
            return last
        hint = _suggest(last, choices)
        self.error(f"unknown {what} '{'::'.join(op.parts)}'{hint}; expected one of {', '.join(choices)}", op.span)
        return None

    def _buffer_view(self, name: str) -> bool:
        """Whether `name` is a view declared over a buffer."""
        hit = self.views.get(name)
        return hit is not None and self.buffers.get(hit[0].name) is hit[0]

    def buffer_view(self, v: S.SigView, what: str) -> ir.View | None:
        if v.name not in self.buffers and not self._buffer_view(v.name):
            if v.name in self.signals:
                self.error(f"'{v.name}' is a signal; {what} moves buffer data (declare `buffer {v.name}[...]`, or "
                           f"use TNOTIFY/TWAIT/LOAD/STORE for a signal)", v.span)
            else:
                self.error(f"undeclared buffer '{v.name}'{_suggest(v.name, self.buffers)}", v.span)
            return None
        return self.view(v, single=False, table=self.buffers)

    def view(self, v: S.SigView, single: bool, what: str = "TNOTIFY", table=None) -> ir.View | None:
        table = self.signals if table is None else table
        sig = table.get(v.name)
        layout = None
        if sig is None and v.name in self.views and self._buffer_view(v.name) == (table is self.buffers):
            sig, layout = self.views[v.name]
        if sig is None:
            if v.name in self.buffers or self._buffer_view(v.name):
                self.error(f"'{v.name}' is a buffer, not a signal: signal operations take signals (buffers are "
                           f"moved with TPUT/TGET and touched with READ/WRITE)", v.span)
            elif self.scope.lookup(v.name) is not None or v.name in self.consts:
                self.error(f"'{v.name}' is not a signal", v.span)
            else:
                self.error(f"undeclared signal '{v.name}'{_suggest(v.name, self.signals)}", v.span)
            return None
        dims = layout.dims if layout is not None else sig.dims
        if len(v.selectors) > len(dims):
            kind = "view" if layout is not None else "signal" if table is self.signals else "buffer"
            self.error(f"{kind} '{v.name}' has {len(dims)} dimension(s) but {len(v.selectors)} are indexed",
                       v.span)
            return None
        if single and (len(v.selectors) < len(dims) or any(isinstance(s, S.Slice) for s in v.selectors)):
            self.error(f"{what} {'writes' if what in ('TNOTIFY', 'STORE') else 'takes'} one signal element, but "
                       f"this view of '{v.name}' can hold several"
                       f"{' (the hardware would write element 0 only)' if what == 'TNOTIFY' else ''}: index each "
                       f"of the {len(dims)} dimension(s) of '{v.name}' with a single index", v.span)
            return None
        selectors: list[ir.Index | ir.Slice] = []
        for sel in v.selectors:
            if isinstance(sel, S.Index):
                e = self.expr(sel.expr, self.scope)
                if e is None:
                    return None
                selectors.append(ir.Index(e, sel.span))
            else:
                parts = [self.expr(x, self.scope) if x is not None else None for x in (sel.start, sel.stop, sel.step)]
                if any(x is not None and p is None for x, p in zip((sel.start, sel.stop, sel.step), parts)):
                    return None
                selectors.append(ir.Slice(*parts, sel.span))
        at = None
        if v.at is not None:
            at = self.expr(v.at, self.scope)
            if at is None:
                return None
        return ir.View(sig, tuple(selectors), at, v.span, layout)

    # ------------------------------------------------------------ expressions

    def rvalue(self, e: S.Expr) -> ir.Expr | None:
        """An expression of process code; TTESTs are allowed (lowering hoists them)."""
        return self.expr(e, self.scope, test=self.ttest)

    def ttest(self, e) -> ir.Expr | None:
        """A TTEST, LOAD, FETCH_ADD, CAS or TEST_EVENT inside an expression (lowering hoists it)."""
        text = self.text(e.span)
        if isinstance(e, S.Test):
            args = self.wait_args(e)
            return None if args is None else ir.TestExpr(*args, e.span, text)
        if isinstance(e, S.TestEvent):
            ev = self.event_slot(e.name, e.span, "TEST_EVENT")
            return None if ev is None else ir.TestEventExpr(*ev, e.name, e.span, text)
        what = {S.Load: "LOAD", S.FetchAdd: "FETCH_ADD", S.Cas: "CAS"}[type(e)]
        view = self.view(e.ref, single=True, what=what)
        operands = (e.value,) if isinstance(e, S.FetchAdd) else (e.expected, e.new) if isinstance(e, S.Cas) else ()
        values = [self.rvalue(x) for x in operands]
        if view is None or any(v is None for v in values):
            return None
        for v, x in zip(values, operands):
            c = constant(v)
            if c is not None and not INT32_MIN <= c <= INT32_MAX:
                self.error(f"{what} value {c} does not fit in int32", x.span)
                return None
        if isinstance(e, S.Load):
            return ir.LoadExpr(view, e.span, text)
        if isinstance(e, S.FetchAdd):
            return ir.FetchAddExpr(view, values[0], e.span, text)
        return ir.CasExpr(view, values[0], values[1], e.span, text)

    def name_error(self, name: str, span: Span, assigning: bool = False) -> None:
        if assigning and (name in self.consts or name in self.scope.builtins or name in ("nranks", "nblocks")):
            self.error(f"'{name}' is read-only", span)
        elif name in self.signals:
            self.error(f"signal '{name}' can only be used in TNOTIFY, TWAIT, TTEST, reset, LOAD, STORE, FETCH_ADD or "
                       f"CAS", span)
        elif name in self.buffers:
            self.error(f"buffer '{name}' can only be used in TPUT, TGET, READ or WRITE", span)
        elif name in self.views:
            self.error(f"view '{name}' can only be used where a signal is (TNOTIFY, TWAIT, TTEST, reset, ...)", span)
        elif name in ("block", "nblocks", "launch_id") and not self.kernel:
            self.error(f"'{name}' is only available in the kernel", span)
        else:
            known = set(self.scope.consts) | set(self.scope.builtins) | {n for f in self.scope.frames for n in f}
            self.error(f"undeclared name '{name}'{_suggest(name, known)}", span)

    def expr(self, e: S.Expr, scope: _Scope, const_only: bool = False, test=None) -> ir.Expr | None:
        """Names resolve to consts, then (in process code) locals and built-ins."""

        def resolve(n, index=None) -> ir.Expr | None:
            if isinstance(n, S.Elem):
                if const_only:
                    self.error(f"local array '{n.name}' cannot be used in a constant expression"
                               if scope.lookup(n.name) is not None else
                               f"'{n.name}[...]' is not a constant expression", n.span)
                    return None
                elems = self.array(n.name, n.span)
                return None if elems is None else self.element(elems, index, n.name, n.span)
            if not const_only and scope.lookup(n.id) in scope.arrays:
                self.error(f"'{n.id}' is a local array: use one element ({n.id}[i])", n.span)
                return None
            if n.id in scope.consts:
                self.used.add(n.id)
                return ir.Const(scope.consts[n.id], n.span)
            slot = None if const_only else scope.lookup(n.id)
            if slot is not None and slot in scope.events:
                self.error(f"event '{n.id}' can only be used in WAIT_EVENT or TEST_EVENT", n.span)
                return None
            if slot is not None:
                return ir.Local(slot, n.id, n.span)
            if not const_only and n.id in scope.builtins:
                if n.id == "launch_id":
                    self.uses_launch_id = True
                return ir.Builtin(n.id, n.span)
            if not const_only:
                self.name_error(n.id, n.span)
            elif n.id in self.signals:
                self.error(f"signal '{n.id}' cannot be used in a constant expression", n.span)
            else:
                self.error(f"'{n.id}' is not a param or an earlier const{_suggest(n.id, scope.consts)}", n.span)
            return None

        return build(e, resolve, self.error, MAX_NESTING, test)


def _size(v: ir.View) -> int | None:
    """The number of elements of a view, when its selectors are constant."""
    n = 1
    for k, d in enumerate(v.shape()[1]):
        if k >= len(v.selectors):
            n *= d
            continue
        sel = v.selectors[k]
        if isinstance(sel, ir.Slice):
            parts = [x.value if isinstance(x, ir.Const) else (None if x is not None else dflt)
                     for x, dflt in ((sel.start, 0), (sel.stop, d), (sel.step, 1))]
            if None in parts or parts[2] < 1:
                return None
            n *= len(range(*parts))
    return n


def _suggest(name: str, choices) -> str:
    import difflib  # only for a misspelt name (start-up time)

    close = difflib.get_close_matches(name, sorted(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""

"""Semantic checks and lowering of a parsed spec to the program IR. Entry point: `compile_spec`.

Every error in the spec is collected and reported together (SpecErrors). Constant
declarations are evaluated here; process code becomes flat instruction lists in which TTEST
is hoisted out of expressions (short-circuit `&&`, `||` and `?:` keep their C meaning).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from model import ir
from model import syntax as S
from model.errors import ModelError, Span, SpecError, SpecErrors
from model.expr import Compiled, big, compile_expr, constant, view_elements

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_RANKS = 64
MAX_BLOCKS = 64
MAX_PROCESSES = 256
MAX_SIGNAL_ELEMENTS = 65536  # over all ranks
MAX_DIMS = 5
MAX_NESTING = 200
VERDICTS = ("ok", "deadlock", "lost_notification", "assertion", "overflow", "error", "dirty_exit")
CHECKS = ("clean_exit",)

KERNEL_BUILTINS = {"rank": 0, "block": 1, "launch_id": 2}
HOST_BUILTINS = {"rank": 0}
_NOTIFY_PREFIXES = {(), ("NotifyOp",), ("comm", "NotifyOp"), ("pto", "comm", "NotifyOp")}
_CMP_PREFIXES = {(), ("WaitCmp",), ("comm", "WaitCmp"), ("pto", "comm", "WaitCmp")}


def compile_spec(spec: S.Spec, overrides: dict[str, int] | None = None) -> ir.Program:
    """Check a parsed spec and lower it. `overrides` are -D values (checked against params)."""
    return _Lowering(spec, dict(overrides or {})).run()


# ---------------------------------------------------------------- scopes


@dataclass
class _Scope:
    """Names visible to process code: one frame per block; slots are reused by depth."""

    builtins: dict[str, int]
    consts: dict[str, int]
    frames: list[dict[str, int]] = field(default_factory=lambda: [{}])
    live: int = 0  # slots in use
    nslots: int = 0
    slot_names: list[str] = field(default_factory=list)
    temps: int = 0

    def lookup(self, name: str) -> int | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def declare(self, name: str) -> int:
        slot = self.live
        self.live += 1
        if self.live > self.nslots:
            self.nslots = self.live
            self.slot_names.append(name)
        self.frames[-1][name] = slot
        return slot

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.live -= len(self.frames.pop())

    def keep(self, but: int | None = None) -> tuple[bool, ...]:
        return tuple(i < self.live and i != but for i in range(self.nslots))


class _Lowering:
    def __init__(self, spec: S.Spec, overrides: dict[str, int]):
        self.spec = spec
        self.file = spec.file
        self.overrides = overrides
        self.errors: list[SpecError] = []
        self.consts: dict[str, int] = {}  # params and consts
        self.signals: dict[str, ir.SignalInfo] = {}
        self.uses_launch_id = False

    def error(self, message: str, span: Span | None) -> None:
        self.errors.append(SpecError(message, span))

    def fail(self) -> SpecErrors:
        return SpecErrors(self.errors, self.spec.source)

    # ------------------------------------------------------------ declarations

    def run(self) -> ir.Program:
        decls = self.spec.decls
        singles: dict[str, S.Decl] = {}
        declared: dict[str, Span] = {}
        expects: list[str] = []
        checks: set[str] = set()
        for d in decls:
            if d.kind in ("protocol", "ranks", "blocks", "kernel", "host"):
                if d.kind in singles:
                    self.error(f"'{d.kind}' is declared twice (first at {singles[d.kind].span})", d.span)
                else:
                    singles[d.kind] = d
            if d.kind in ("param", "const", "signal"):
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
        self.consts_nr = {"nranks": nranks or 1, "nblocks": nblocks or 1}
        offset = 0
        for d in decls:
            if d.kind == "signal" and declared.get(d.name) == d.span:
                sig = self.signal_decl(d, offset, nranks or 1)
                if sig is not None:
                    self.signals[d.name] = sig
                    offset += sig.size
        for d in decls:
            if d.kind == "check":
                if d.name not in CHECKS:
                    self.error(f"unknown check '{d.name}'; the only optional check is clean_exit", d.span)
                checks.add(d.name)
            elif d.kind == "expect":
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
        self.kernel_span = singles["kernel"].span
        kernel = self.process_code(singles["kernel"].body, kernel=True)
        host_decl = singles.get("host")
        host = self.process_code(host_decl.body if host_decl else None, kernel=False)
        if self.errors:
            raise self.fail()
        stem = self.file.replace("\\", "/").rsplit("/", 1)[-1]
        name = singles["protocol"].name if "protocol" in singles else stem.rsplit(".", 1)[0]
        sigs = tuple(sorted(self.signals.values(), key=lambda s: s.offset))
        return ir.Program(
            name=name, file=self.file, source=self.spec.source, params=tuple(values),
            nranks=nranks, nblocks=nblocks, signals=sigs, elems_per_rank=offset,
            kernel=kernel, host=host, clean_exit="clean_exit" in checks,
            expects=tuple(sorted(expects)) if expects != ["ok"] else (),
            uses_launch_id=self.uses_launch_id)

    def const_eval(self, e: S.Expr) -> int | None:
        scope = _Scope(builtins={}, consts=self.consts)
        compiled = self.expr(e, scope, const_only=True)
        if compiled is None:
            return None
        try:
            return compiled.fn([], (0, 0, 0))
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

    def signal_decl(self, d: S.Decl, offset: int, nranks: int) -> ir.SignalInfo | None:
        if len(d.dims) > MAX_DIMS:
            self.error(f"signal '{d.name}' has {len(d.dims)} dimensions; at most {MAX_DIMS} are allowed", d.span)
            return None
        dims = []
        for e in d.dims:
            v = self.const_eval(e)
            if v is None:
                return None
            if v < 1:
                self.error(f"signal dimension must be at least 1, not {v}", e.span)
                return None
            if v > MAX_SIGNAL_ELEMENTS:
                self.error(f"signal dimension {v} is too large (at most {MAX_SIGNAL_ELEMENTS} elements in all)", e.span)
                return None
            dims.append(v)
        size = 1
        for v in dims:
            size *= v
        if (offset + size) * nranks > MAX_SIGNAL_ELEMENTS:
            self.error(f"signal '{d.name}' brings the signal memory to {(offset + size) * nranks} elements over "
                       f"all ranks; at most {MAX_SIGNAL_ELEMENTS} are explored", d.span)
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

    # ------------------------------------------------------------ process code

    def process_code(self, body: S.Block | None, kernel: bool) -> ir.Code:
        builtins = KERNEL_BUILTINS if kernel else HOST_BUILTINS
        self.scope = _Scope(builtins=builtins, consts={**self.consts, **self.consts_nr})
        if not kernel:
            self.scope.consts.pop("nblocks", None)
        self.kernel = kernel
        self.bools: set[int] = set()  # slots declared bool (values kept 0 or 1, as in C)
        self.code: list[ir.Instr | None] = []
        self.loops: list[tuple[list[int], list[int]]] = []  # (break jumps, continue jumps)
        self.depth = 0
        if body is None:
            self.emit_launch(self.kernel_span, "launch (default host)")
        else:
            self.stmt(body)
        end = self.spec_span_end()
        self.emit(ir.Instr(ir.RETURN, end, "return"))
        # Fill keep masks to the final slot count (visible instrs only need them).
        n = self.scope.nslots
        instrs = []
        for ins in self.code:
            if ins.op >= ir.VISIBLE_FROM:
                keep = tuple(ins.keep[i] if i < len(ins.keep) else False for i in range(n))
                ins = ir.Instr(ins.op, ins.span, ins.text, ins.a, ins.b, ins.c, ins.d, keep)
            instrs.append(ins)
        return ir.Code(tuple(instrs), n, tuple(self.scope.slot_names))

    def spec_span_end(self) -> Span:
        lines = self.spec.source.splitlines() or [""]
        return Span(self.file, len(lines), 1, len(lines), 2)

    def emit(self, ins: ir.Instr) -> int:
        self.code.append(ins)
        return len(self.code) - 1

    def patch(self, at: int, target: int) -> None:
        ins = self.code[at]
        if ins.op == ir.JUMP:
            self.code[at] = ir.Instr(ir.JUMP, ins.span, ins.text, target)
        else:
            self.code[at] = ir.Instr(ir.BRANCH, ins.span, ins.text, ins.a, target)

    def text(self, span: Span) -> str:
        lines = self.spec.source.splitlines()
        if span.line == span.end_line and 1 <= span.line <= len(lines):
            return lines[span.line - 1][span.col - 1: span.end_col - 1].strip().rstrip(";").rstrip()
        if 1 <= span.line <= len(lines):
            return lines[span.line - 1][span.col - 1:].strip() + " ..."
        return ""

    def stmt(self, st: S.Stmt) -> None:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                self.error(f"statements nested more than {MAX_NESTING} deep", st.span)
                return
            getattr(self, "stmt_" + type(st).__name__)(st)
        finally:
            self.depth -= 1

    def stmt_Block(self, st: S.Block) -> None:
        self.scope.push()
        for s in st.body:
            self.stmt(s)
            if len(self.errors) > 50:
                break
        self.scope.pop()

    def stmt_VarDecl(self, st: S.VarDecl) -> None:
        value = self.rvalue(st.init)
        if self.declarable(st.name, st.span):
            slot = self.scope.declare(st.name)
            if st.type == "bool":
                self.bools.add(slot)
            else:
                self.bools.discard(slot)
            if value is not None:
                fn = value.fn
                if st.type == "bool":
                    fn = lambda L, c, f=fn: int(bool(f(L, c)))  # noqa: E731
                self.emit(ir.Instr(ir.ASSIGN, st.span, self.text(st.span), slot, fn))

    def declarable(self, name: str, span: Span) -> bool:
        if name in self.scope.builtins or name in ("nranks", "nblocks", "block", "launch_id"):
            self.error(f"'{name}' is a built-in name and cannot be declared", span)
        elif name in self.consts:
            self.error(f"'{name}' is already a param or const", span)
        elif name in self.signals:
            self.error(f"'{name}' is already a signal", span)
        elif name in self.scope.frames[-1]:
            self.error(f"'{name}' is already declared in this block", span)
        else:
            return True
        return False

    def stmt_Assign(self, st: S.Assign) -> None:
        value = self.rvalue(st.value)
        slot = self.scope.lookup(st.name)
        if slot is None:
            self.name_error(st.name, st.span, assigning=True)
            return
        if value is None:
            return
        fn = value.fn
        if st.op == "+=":
            fn = lambda L, c, f=fn, s=slot, sp=st.span: big(L[s] + f(L, c), sp)  # noqa: E731
        elif st.op == "-=":
            fn = lambda L, c, f=fn, s=slot, sp=st.span: big(L[s] - f(L, c), sp)  # noqa: E731
        if slot in self.bools:
            fn = lambda L, c, f=fn: int(bool(f(L, c)))  # noqa: E731
        self.emit(ir.Instr(ir.ASSIGN, st.span, self.text(st.span), slot, fn))

    def stmt_If(self, st: S.If) -> None:
        cond = self.rvalue(st.cond)
        if cond is None:
            return
        br = self.emit(ir.Instr(ir.BRANCH, st.cond.span, self.text(st.cond.span), cond.fn, None))
        self.stmt_scoped(st.then)
        if st.orelse is not None:
            jmp = self.emit(ir.Instr(ir.JUMP, st.span, "else", None))
            self.patch(br, len(self.code))
            self.stmt_scoped(st.orelse)
            self.patch(jmp, len(self.code))
        else:
            self.patch(br, len(self.code))

    def stmt_scoped(self, st: S.Stmt) -> None:
        self.scope.push()
        self.stmt(st)
        self.scope.pop()

    def loop(self, cond_expr: S.Expr, body: S.Stmt, update: S.Assign | None) -> None:
        head = len(self.code)
        cond = self.rvalue(cond_expr)
        if cond is None:
            return
        br = None
        if cond.const is None or not cond.const:
            br = self.emit(ir.Instr(ir.BRANCH, cond_expr.span, self.text(cond_expr.span), cond.fn, None))
        self.loops.append(([], []))
        self.stmt_scoped(body)
        breaks, continues = self.loops.pop()
        cont_target = len(self.code)
        if update is not None:
            self.stmt(update)
        self.emit(ir.Instr(ir.JUMP, cond_expr.span, self.text(cond_expr.span), head))
        end = len(self.code)
        if br is not None:
            self.patch(br, end)
        for j in breaks:
            self.patch(j, end)
        for j in continues:
            self.patch(j, cont_target)

    def stmt_While(self, st: S.While) -> None:
        self.loop(st.cond, st.body, None)

    def stmt_For(self, st: S.For) -> None:
        self.scope.push()
        self.stmt(st.init)
        self.loop(st.cond, st.body, st.update)
        self.scope.pop()

    def stmt_Jump(self, st: S.Jump) -> None:
        if st.kind == "return":
            self.emit(ir.Instr(ir.RETURN, st.span, "return"))
            return
        if not self.loops:
            self.error(f"'{st.kind}' outside a loop", st.span)
            return
        at = self.emit(ir.Instr(ir.JUMP, st.span, st.kind, None))
        self.loops[-1][0 if st.kind == "break" else 1].append(at)

    def stmt_Assert(self, st: S.Assert) -> None:
        cond = self.rvalue(st.cond)
        if cond is not None:
            self.emit(ir.Instr(ir.ASSERT, st.span, self.text(st.span), cond.fn))

    def stmt_Notify(self, st: S.Notify) -> None:
        op = self.op_name(st.op, _NOTIFY_PREFIXES, (ir.SET, ir.ATOMIC_ADD), "notify op")
        value = self.rvalue(st.value)
        view = self.view(st.ref, single=True)
        if op is None or value is None or view is None:
            return
        if value.const is not None and not INT32_MIN <= value.const <= INT32_MAX:
            self.error(f"{op} value {value.const} does not fit in int32", st.value.span)
            return
        self.emit(ir.Instr(ir.NOTIFY, st.span, self.text(st.span), view, value.fn, op, keep=self.scope.keep()))

    def stmt_Wait(self, st: S.Wait) -> None:
        cmp = self.op_name(st.cmp, _CMP_PREFIXES, ir.CMPS, "comparison")
        value = self.rvalue(st.value)
        view = self.view(st.view, single=False)
        if cmp is None or value is None or view is None or not self.int32_operand(value, st.value):
            return
        self.emit(ir.Instr(ir.WAIT, st.span, self.text(st.span), view, value.fn, cmp, keep=self.scope.keep()))

    def int32_operand(self, value: Compiled, e: S.Expr) -> bool:
        if value.const is not None and not INT32_MIN <= value.const <= INT32_MAX:
            self.error(f"comparison value {value.const} does not fit in int32", e.span)
            return False
        return True

    def stmt_ExprStmt(self, st: S.ExprStmt) -> None:
        self.rvalue(st.expr)  # a TTEST whose result is dropped still reads

    def stmt_PipeBarrier(self, st: S.PipeBarrier) -> None:
        pass  # no effect in the base model

    def host_only(self, what: str, span: Span) -> bool:
        if self.kernel:
            self.error(f"'{what}' is a host statement; it cannot appear in the kernel", span)
            return False
        return True

    def stmt_Launch(self, st: S.Launch) -> None:
        if self.host_only("launch", st.span):
            self.emit_launch(st.span, self.text(st.span))

    def emit_launch(self, span: Span, text: str) -> None:
        self.emit(ir.Instr(ir.LAUNCH, span, text, keep=self.scope.keep()))
        self.emit(ir.Instr(ir.JOIN, span, text, keep=self.scope.keep()))

    def stmt_Reset(self, st: S.Reset) -> None:
        if not self.host_only("reset", st.span):
            return
        view = self.view(st.view, single=False)
        if view is not None:
            self.emit(ir.Instr(ir.RESET, st.span, self.text(st.span), view, keep=self.scope.keep()))

    def stmt_HostBarrier(self, st: S.HostBarrier) -> None:
        if self.host_only("host_barrier", st.span):
            self.emit(ir.Instr(ir.BARRIER, st.span, self.text(st.span), keep=self.scope.keep()))

    # ------------------------------------------------------------ ops and views

    def op_name(self, op: S.OpName, prefixes, choices, what: str) -> str | None:
        *prefix, last = op.parts
        if tuple(prefix) in prefixes and last in choices:
            return last
        hint = _suggest(last, choices)
        self.error(f"unknown {what} '{'::'.join(op.parts)}'{hint}; expected one of {', '.join(choices)}", op.span)
        return None

    def view(self, v: S.SigView, single: bool) -> ir.View | None:
        sig = self.signals.get(v.name)
        if sig is None:
            if self.scope.lookup(v.name) is not None or v.name in self.consts:
                self.error(f"'{v.name}' is not a signal", v.span)
            else:
                self.error(f"undeclared signal '{v.name}'{_suggest(v.name, self.signals)}", v.span)
            return None
        if len(v.selectors) > len(sig.dims):
            self.error(f"signal '{v.name}' has {len(sig.dims)} dimension(s) but {len(v.selectors)} are indexed",
                       v.span)
            return None
        if single and (len(v.selectors) < len(sig.dims) or any(isinstance(s, S.Slice) for s in v.selectors)):
            self.error(f"TNOTIFY writes one signal element, but this view of '{v.name}' can hold several "
                       f"(the hardware would write element 0 only): index each of the {len(sig.dims)} "
                       f"dimension(s) of '{v.name}' with a single index", v.span)
            return None
        parts = []  # per dim: ("i", fn, span) or ("s", start, stop, step, span); missing dims are full
        constant = True
        for k, sel in enumerate(v.selectors):
            if isinstance(sel, S.Index):
                f = self.rvalue(sel.expr, hoist=False)
                if f is None:
                    return None
                parts.append(("i", f.fn, sel.span))
                constant = constant and f.const is not None
            else:
                fs = [self.rvalue(e, hoist=False) if e is not None else None for e in (sel.start, sel.stop, sel.step)]
                if any(e is not None and f is None for e, f in zip((sel.start, sel.stop, sel.step), fs)):
                    return None
                parts.append(("s", *(f.fn if f else None for f in fs), sel.span))
                constant = constant and all(f is None or f.const is not None for f in fs)
        at = None
        if v.at is not None:
            at = self.rvalue(v.at, hoist=False)
            if at is None:
                return None
        elements = view_elements(sig, parts, at.fn if at else None, self.consts_nr["nranks"], v.span)
        if constant and at is None:
            try:
                fixed = elements([], (0, 0, 0))
                elements = lambda L, c, r=fixed: r  # noqa: E731
            except ModelError:
                pass  # an out-of-bounds view is a run-time `error`, reported when executed
        return ir.View(sig, elements, v.at is not None)

    # ------------------------------------------------------------ expressions

    def rvalue(self, e: S.Expr, hoist: bool = True) -> Compiled | None:
        """Compile an expression of process code, hoisting TTESTs into TEST instructions."""
        if hoist and _has_test(e):
            e = self.hoist(e)
            if e is None:
                return None
        return self.expr(e, self.scope)

    def temp(self) -> tuple[int, str]:
        self.scope.temps += 1
        name = f"$t{self.scope.temps}"
        return self.scope.declare(name), name

    def hoist(self, e: S.Expr, depth: int = 0) -> S.Expr | None:
        if depth > MAX_NESTING:
            self.error(f"expression nested more than {MAX_NESTING} deep", e.span)
            return None
        if not _has_test(e):
            return e
        if isinstance(e, S.Test):
            cmp = self.op_name(e.cmp, _CMP_PREFIXES, ir.CMPS, "comparison")
            value_e = self.hoist(e.value, depth + 1)
            view = self.view(e.view, single=False)
            value = self.expr(value_e, self.scope) if value_e is not None else None
            slot, name = self.temp()
            if cmp is not None and value is not None and view is not None and self.int32_operand(value, e.value):
                self.emit(ir.Instr(ir.TEST, e.span, self.text(e.span), view, value.fn, cmp, slot,
                                   keep=self.scope.keep(but=slot)))
            return S.Name(e.span, name)
        if isinstance(e, S.BinOp) and e.op in ("&&", "||") and _has_test(e.right):
            left = self.hoist(e.left, depth + 1)
            if left is None:
                return None
            lf = self.expr(left, self.scope)
            slot, name = self.temp()
            if lf is None:
                return None
            self.emit(ir.Instr(ir.ASSIGN, e.span, self.text(e.span), slot,
                               lambda L, c, f=lf.fn: int(f(L, c) != 0)))
            # && : skip the right side when false; || : skip it when true
            if e.op == "&&":
                br = self.emit(ir.Instr(ir.BRANCH, e.span, self.text(e.span), lambda L, c, s=slot: L[s], None))
            else:
                br = self.emit(ir.Instr(ir.BRANCH, e.span, self.text(e.span), lambda L, c, s=slot: 1 - L[s], None))
            right = self.hoist(e.right, depth + 1)
            rf = self.expr(right, self.scope) if right is not None else None
            if rf is None:
                return None
            self.emit(ir.Instr(ir.ASSIGN, e.span, self.text(e.span), slot, lambda L, c, f=rf.fn: int(f(L, c) != 0)))
            self.patch(br, len(self.code))
            return S.Name(e.span, name)
        if isinstance(e, S.Cond) and (_has_test(e.then) or _has_test(e.orelse)):
            test = self.hoist(e.test, depth + 1)
            tf = self.expr(test, self.scope) if test is not None else None
            slot, name = self.temp()
            if tf is None:
                return None
            br = self.emit(ir.Instr(ir.BRANCH, e.span, self.text(e.span), tf.fn, None))
            for k, branch in enumerate((e.then, e.orelse)):
                b = self.hoist(branch, depth + 1)
                bf = self.expr(b, self.scope) if b is not None else None
                if bf is None:
                    return None
                self.emit(ir.Instr(ir.ASSIGN, e.span, self.text(e.span), slot, bf.fn))
                if k == 0:
                    jmp = self.emit(ir.Instr(ir.JUMP, e.span, self.text(e.span), None))
                    self.patch(br, len(self.code))
            self.patch(jmp, len(self.code))
            return S.Name(e.span, name)
        if isinstance(e, S.BinOp):
            left, right = self.hoist(e.left, depth + 1), self.hoist(e.right, depth + 1)
            return None if left is None or right is None else S.BinOp(e.span, e.op, left, right)
        if isinstance(e, S.UnOp):
            operand = self.hoist(e.operand, depth + 1)
            return None if operand is None else S.UnOp(e.span, e.op, operand)
        if isinstance(e, S.MinMax):
            left, right = self.hoist(e.left, depth + 1), self.hoist(e.right, depth + 1)
            return None if left is None or right is None else S.MinMax(e.span, e.fn, left, right)
        if isinstance(e, S.Cond):
            test = self.hoist(e.test, depth + 1)
            return None if test is None else S.Cond(e.span, test, e.then, e.orelse)
        return e

    def name_error(self, name: str, span: Span, assigning: bool = False) -> None:
        if assigning and (name in self.consts or name in self.scope.builtins or name in ("nranks", "nblocks")):
            self.error(f"'{name}' is read-only", span)
        elif name in self.signals:
            self.error(f"signal '{name}' can only be used in TNOTIFY, TWAIT, TTEST or reset", span)
        elif name in ("block", "nblocks", "launch_id") and not self.kernel:
            self.error(f"'{name}' is only available in the kernel", span)
        else:
            known = set(self.consts) | set(self.scope.builtins) | {n for f in self.scope.frames for n in f}
            self.error(f"undeclared name '{name}'{_suggest(name, known)}", span)

    def expr(self, e: S.Expr, scope: _Scope, const_only: bool = False) -> Compiled | None:
        """Compile an expression; names resolve to consts, then (in process code) locals and built-ins."""

        def resolve(n: S.Name) -> Compiled | None:
            if n.id in scope.consts:
                return constant(scope.consts[n.id])
            slot = None if const_only else scope.lookup(n.id)
            if slot is not None:
                return Compiled(lambda L, c, s=slot: L[s])
            if not const_only and n.id in scope.builtins:
                if n.id == "launch_id":
                    self.uses_launch_id = True
                k = scope.builtins[n.id]
                return Compiled(lambda L, c, k=k: c[k])
            if not const_only:
                self.name_error(n.id, n.span)
            elif n.id in self.signals:
                self.error(f"signal '{n.id}' cannot be used in a constant expression", n.span)
            else:
                self.error(f"'{n.id}' is not a param or an earlier const{_suggest(n.id, scope.consts)}", n.span)
            return None

        return compile_expr(e, resolve, self.error, MAX_NESTING)


# ---------------------------------------------------------------- helpers


def _has_test(e: S.Expr | None) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        if isinstance(x, S.Test):
            return True
        if isinstance(x, S.BinOp):
            stack += (x.left, x.right)
        elif isinstance(x, S.UnOp):
            stack.append(x.operand)
        elif isinstance(x, S.Cond):
            stack += (x.test, x.then, x.orelse)
        elif isinstance(x, S.MinMax):
            stack += (x.left, x.right)
    return False


def _suggest(name: str, choices) -> str:
    close = difflib.get_close_matches(name, sorted(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""

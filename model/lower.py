"""Lowering of a checked spec to flat IR code. Entry point: `lower`.

Structured statements become instruction lists with jumps; every TTEST is hoisted out of
its expression into a `Test` instruction writing a fresh temporary local, left to right,
keeping C's short-circuit evaluation of `&&`, `||` and `?:` (a TTEST that C would not
evaluate performs no read).
"""

from __future__ import annotations

from dataclasses import replace

from model import ir
from model.check import MAX_SIGNAL_ELEMENTS, CheckedSpec
from model.errors import Span, SpecError, SpecErrors
from model.grain import grains
from model.expr import has_test


def lower(spec: CheckedSpec) -> ir.Program:
    end = _end_span(spec)
    data = bool(spec.buffers)  # without buffers, fences have no effect and make no step
    kernel = _Code(spec.kernel.nslots, spec.kernel.slot_names, end, data).build(spec.kernel.stmts)
    host_code = _Code(spec.host.nslots, spec.host.slot_names, end, data)
    if spec.host.default_host:
        host_code.launch(spec.kernel_span, "launch (default host)")
    host = host_code.build(spec.host.stmts)
    program = ir.Program(
        name=spec.name, file=spec.file, source=spec.source, params=spec.params, nranks=spec.nranks,
        nblocks=spec.nblocks, signals=spec.signals, elems_per_rank=spec.elems_per_rank, kernel=kernel, host=host,
        clean_exit=spec.clean_exit, expects=spec.expects, uses_launch_id=spec.uses_launch_id,
        buffers=spec.buffers, data_per_rank=spec.data_per_rank, events=spec.events, warnings=spec.warnings)
    if not spec.buffers:
        return program
    found = grains(program)
    blocks = sum(b.size // g for b, g in zip(spec.buffers, found)) * spec.nranks
    if blocks > MAX_SIGNAL_ELEMENTS:
        buf, g = max(zip(spec.buffers, found), key=lambda x: x[0].size // x[1])
        how = f"in blocks of {g}" if g > 1 else "element by element (some access touches part of any larger block)"
        raise SpecErrors([SpecError(
            f"the buffers need {blocks} happens-before entries over all ranks (elements always accessed together "
            f"count once; '{buf.name}' counts {how}); at most {MAX_SIGNAL_ELEMENTS} are explored", buf.span)],
            spec.source)
    return replace(program, grains=found)


def _end_span(spec: CheckedSpec) -> Span:
    lines = spec.source.splitlines() or [""]
    return Span(spec.file, len(lines), 1, len(lines), 2)


class _Code:
    def __init__(self, nslots: int, slot_names: tuple[str, ...], end: Span, data: bool):
        self.data = data
        self.code: list = []
        self.nslots = nslots
        self.slot_names = list(slot_names)
        self.end = end
        self.loops: list[tuple[list[int], list[int]]] = []  # (break jumps, continue jumps)

    def build(self, stmts) -> ir.Code:
        for st in stmts:
            self.stmt(st)
        self.emit(ir.Return(self.end))
        return ir.Code(tuple(self.code), self.nslots, tuple(self.slot_names))

    def emit(self, ins) -> int:
        self.code.append(ins)
        return len(self.code) - 1

    def patch(self, at: int, target: int) -> None:
        self.code[at] = replace(self.code[at], target=target)

    def temp(self) -> int:
        self.nslots += 1
        self.slot_names.append(f"$t{self.nslots}")
        return self.nslots - 1

    def launch(self, span: Span, text: str) -> None:
        self.emit(ir.Launch(span, text))
        self.emit(ir.Join(span, text))

    # ------------------------------------------------------------ statements

    def stmt(self, st) -> None:
        if isinstance(st, ir.SBlock):
            for s in st.body:
                self.stmt(s)
        elif isinstance(st, ir.SAssign):
            self.emit(ir.Assign(st.slot, self.hoist(st.value), st.span, st.text))
        elif isinstance(st, ir.SArrayAssign):
            self.array_assign(st)
        elif isinstance(st, ir.SChoose):
            self.emit(ir.Choose(st.slot, st.name, st.lo, st.hi, st.span, st.text))
        elif isinstance(st, ir.SIf):
            br = self.emit(ir.Branch(self.hoist(st.cond), -1, st.cond.span, st.text))
            self.stmt(st.then)
            if st.orelse is not None:
                jmp = self.emit(ir.Jump(-1, st.span, "else"))
                self.patch(br, len(self.code))
                self.stmt(st.orelse)
                self.patch(jmp, len(self.code))
            else:
                self.patch(br, len(self.code))
        elif isinstance(st, ir.SLoop):
            self.loop(st)
        elif isinstance(st, ir.SJump):
            if st.kind == "return":
                self.emit(ir.Return(st.span))
            else:
                at = self.emit(ir.Jump(-1, st.span, st.kind))
                self.loops[-1][0 if st.kind == "break" else 1].append(at)
        elif isinstance(st, ir.SAssert):
            self.emit(ir.Assert(self.hoist(st.cond), st.span, st.text))
        elif isinstance(st, ir.SNotify):
            self.emit(ir.Notify(st.view, self.hoist(st.value), st.op, st.span, st.text))
        elif isinstance(st, ir.SWait):
            self.emit(ir.Wait(st.view, self.hoist(st.value), st.cmp, st.span, st.text))
        elif isinstance(st, ir.SEval):
            self.hoist(st.expr)
        elif isinstance(st, ir.SLaunch):
            self.launch(st.span, st.text)
        elif isinstance(st, ir.SReset):
            self.emit(ir.Reset(st.view, st.span, st.text))
        elif isinstance(st, ir.SBlockBarrier):
            self.emit(ir.BlockBarrier(st.span, st.text))
        elif isinstance(st, ir.SHostBarrier):
            self.emit(ir.HostBarrier(st.span, st.text))
        elif isinstance(st, ir.SCopy):
            self.emit(ir.Copy(st.kind, st.dst, st.src, st.atomic, st.event, st.span, st.text))
        elif isinstance(st, ir.SAccess):
            self.emit(ir.Access(st.view, st.write, st.span, st.text))
        elif isinstance(st, ir.SWaitEvent):
            self.emit(ir.WaitEvent(st.slot, st.event, st.name, st.span, st.text))
        elif isinstance(st, ir.SFence):
            if self.data:
                self.emit(ir.Fence(st.kind, st.span, st.text))
        elif isinstance(st, ir.SStore):
            self.emit(ir.Store(st.view, self.hoist(st.value), st.span, st.text))
        elif isinstance(st, ir.SObserve):
            self.emit(ir.Observe(self.hoist(st.cond), st.span, st.text))
        else:
            raise AssertionError(f"unknown statement {st!r}")

    def array_assign(self, st: ir.SArrayAssign) -> None:
        """`a[i] = e;`: the index and the value into temporaries, the index checked (a read
        that faults when it is out of bounds), then each element keeps its value or takes e."""
        index, value = self.temp(), self.temp()
        ti = ir.Local(index, self.slot_names[index], st.index.span)
        tv = ir.Local(value, self.slot_names[value], st.value.span)
        self.emit(ir.Assign(index, self.hoist(st.index), st.span, st.text))
        self.emit(ir.Assign(self.temp(), ir.ArrayRead(st.elems, ti, st.name, st.index.span), st.span, st.text))
        self.emit(ir.Assign(value, self.hoist(st.value), st.span, st.text))
        for k, elem in enumerate(st.elems):
            hit = ir.Binary("==", ti, ir.Const(k, st.span), st.span)
            self.emit(ir.Assign(elem.slot, ir.Select(hit, tv, elem, st.span), st.span, st.text))

    def loop(self, st: ir.SLoop) -> None:
        head = len(self.code)
        cond = self.hoist(st.cond)
        br = None
        if not (isinstance(cond, ir.Const) and cond.value):
            br = self.emit(ir.Branch(cond, -1, st.cond.span, st.text))
        self.loops.append(([], []))
        self.stmt(st.body)
        breaks, continues = self.loops.pop()
        cont_target = len(self.code)
        if st.update is not None:
            self.stmt(st.update)
        self.emit(ir.Jump(head, st.cond.span, st.text))
        end = len(self.code)
        if br is not None:
            self.patch(br, end)
        for j in breaks:
            self.patch(j, end)
        for j in continues:
            self.patch(j, cont_target)

    # ------------------------------------------------------------ TTEST hoisting

    def hoist(self, e: ir.Expr) -> ir.Expr:
        """`e` without TestExpr nodes; the reads they stand for are emitted before it."""
        if not has_test(e):
            return e
        if isinstance(e, ir.STEP_EXPRS):
            if isinstance(e, ir.TestExpr):
                value = self.hoist(e.value)
                slot = self.temp()
                self.emit(ir.Test(e.view, value, e.cmp, slot, e.span, e.text))
            elif isinstance(e, ir.LoadExpr):
                slot = self.temp()
                self.emit(ir.Load(e.view, slot, e.span, e.text))
            elif isinstance(e, ir.FetchAddExpr):
                value = self.hoist(e.value)
                slot = self.temp()
                self.emit(ir.FetchAdd(e.view, value, slot, e.span, e.text))
            elif isinstance(e, ir.CasExpr):
                expected = self.hoist(e.expected)
                new = self.hoist(e.new)
                slot = self.temp()
                self.emit(ir.Cas(e.view, expected, new, slot, e.span, e.text))
            else:
                slot = self.temp()
                self.emit(ir.TestEvent(e.slot, e.event, e.name, slot, e.span, e.text))
            return ir.Local(slot, self.slot_names[slot], e.span)
        text = ""  # invisible instructions: never shown in a trace
        if isinstance(e, ir.Binary) and e.op in ("&&", "||") and has_test(e.right):
            left = self.hoist(e.left)
            slot = self.temp()
            t = ir.Local(slot, self.slot_names[slot], e.span)
            zero = ir.Const(0, e.span)
            self.emit(ir.Assign(slot, ir.Binary("!=", left, zero, e.span), e.span, text))
            # && : skip the right side when false; || : skip it when true
            cond = t if e.op == "&&" else ir.Unary("!", t, e.span)
            br = self.emit(ir.Branch(cond, -1, e.span, text))
            right = self.hoist(e.right)
            self.emit(ir.Assign(slot, ir.Binary("!=", right, zero, e.span), e.span, text))
            self.patch(br, len(self.code))
            return t
        if isinstance(e, ir.Select) and (has_test(e.then) or has_test(e.orelse)):
            test = self.hoist(e.test)
            slot = self.temp()
            br = self.emit(ir.Branch(test, -1, e.span, text))
            self.emit(ir.Assign(slot, self.hoist(e.then), e.span, text))
            jmp = self.emit(ir.Jump(-1, e.span, text))
            self.patch(br, len(self.code))
            self.emit(ir.Assign(slot, self.hoist(e.orelse), e.span, text))
            self.patch(jmp, len(self.code))
            return ir.Local(slot, self.slot_names[slot], e.span)
        if isinstance(e, ir.Binary):
            left = self.hoist(e.left)
            return ir.Binary(e.op, left, self.hoist(e.right), e.span)
        if isinstance(e, ir.Unary):
            return ir.Unary(e.op, self.hoist(e.operand), e.span)
        if isinstance(e, ir.Select):
            return ir.Select(self.hoist(e.test), e.then, e.orelse, e.span)
        if isinstance(e, ir.ArrayRead):
            return ir.ArrayRead(e.elems, self.hoist(e.index), e.name, e.span)
        raise AssertionError(f"unknown expression {e!r}")

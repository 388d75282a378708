"""Counterexample traces: the steps from the initial state to a target, rebuilt from the
explorer's predecessor pointers by taking those steps again (the step records say what each
did), and rendered as result records. Entry points: `steps_to` (`walk_to`), `trace_of`."""

from __future__ import annotations

from checker.explore import Exploration
from checker.result import (BarrierPassed, BlocksPassed, Chose, DataAccess, ElementRef, Faulted, Joined, LineCached, Overwrote,
                            ProcessRef, Raced, Read, Returned, Started, TraceStep, Write)
from model import ir
from model.system import Chosen, DataRace, Fault, LineRead, Overwrite


def path_to(ex: Exploration, target: int) -> list[int]:
    """State indices from the initial state to `target`."""
    path = []
    while target >= 0:
        path.append(target)
        target = ex.parent[target]
    path.reverse()
    return path


def steps_to(system, ex: Exploration, target: int, last: int | None = None) -> list:
    """The Step records from the initial state to `target`, then the step `last` from there."""
    return walk_to(system, ex, target, last)[0]


def walk_to(system, ex: Exploration, target: int, last: int | None = None) -> tuple[list, object]:
    """The Step records from the initial state to `target` (then the step `last` from there),
    and the state they reach before `last`, all in the unreduced semantics: under a symmetry
    the stored states are orbit representatives, and each stored step is renamed onto the
    concrete run (`rho`: the concrete state is the representative renamed by rho)."""
    path = path_to(ex, target) if target >= 0 else []
    sym = ex.symmetry
    out = []
    if sym is None:
        state = ex.initial
        for b in path[1:]:
            step = system.step(state, ex.label[b])
            if step is None or ex.index(step.next) != b:
                raise AssertionError("a stored predecessor link is not a step")
            out.append(step)
            state = step.next
        if last is not None:
            out.append(system.step(state, last))
        return out, state
    state = system.initial()[0]
    rep, k = sym.canon_k(state)
    if rep != ex.initial:
        raise AssertionError("the stored initial state is not the initial state's representative")
    rho = -k
    for b in path[1:]:
        step = system.step(rep, ex.label[b])
        nxt, k = sym.canon_k(step.next) if step is not None else (None, 0)
        if step is None or ex.index(nxt) != b:
            raise AssertionError("a stored predecessor link is not a step")
        concrete = _renamed_step(system, sym, state, rep, step, rho)
        out.append(concrete)
        state, rep = concrete.next, nxt
        rho -= k
    if last is not None:
        out.append(_renamed_step(system, sym, state, rep, system.step(rep, last), rho))
    return out, state


def _renamed_step(system, sym, state, rep, step, rho: int):
    """The step of `state` that is `step` (of the representative `rep`) renamed by rho."""
    concrete = system.step(state, sym.label(rep, step.label, rho))
    if concrete is None or concrete.next != sym.rotate(step.next, rho):
        raise AssertionError("a renamed step is not a step of the concrete state")
    return concrete


def process_ref(system, i: int) -> ProcessRef:
    p = system.process(i)
    return ProcessRef(p.kind, p.rank, p.block, p.name)


def element_ref(system, pos: int) -> ElementRef:
    e = system.element(pos)
    return ElementRef(e.signal, e.index, e.rank)


def data_ref(system, pos: int) -> ElementRef:
    e = system.data_element(pos)
    return ElementRef(e.signal, e.index, e.rank)


def trace_of(system, steps) -> tuple[TraceStep, ...]:
    return tuple(_trace_step(system, n, step) for n, step in enumerate(steps, 1))


def _trace_step(system, n: int, step) -> TraceStep:
    ins = step.instr
    effects: list = []
    if isinstance(ins, ir.READ_INSTRS):
        effects += [Read(element_ref(system, pos), value, ins.cmp, operand, holds)
                    for pos, value, operand, holds in step.reads]
    if step.process == -1:
        effects.append(BarrierPassed())
    elif step.process < -1:
        effects.append(BlocksPassed(-2 - step.process))
    elif isinstance(ins, ir.Launch):
        effects.append(Started(step.process, system.B))
    elif isinstance(ins, ir.Join):
        effects.append(Joined(step.process))
    for pos, old, new in step.writes:
        if old != new or not isinstance(ins, ir.Reset):
            effects.append(Write(element_ref(system, pos), old, new))
    for a in step.accesses:
        effects.append(DataAccess(data_ref(system, a.position), a.kind))
    for ev in step.events:
        if isinstance(ev, Chosen):
            effects.append(Chose(ev.name, ev.value))
        elif isinstance(ev, DataRace):
            other = system.process_name(system.clocks.process_of(ev.first.clock))
            effects.append(Raced(data_ref(system, ev.first.position), other, ev.first.kind))
        elif isinstance(ev, Overwrite):
            readers = tuple(system.reader_process(r) for r in ev.readers)
            effects.append(Overwrote(element_ref(system, ev.position), ev.old, ev.new, readers, ev.clobber))
        elif isinstance(ev, LineRead):
            effects.append(LineCached(element_ref(system, ev.first), element_ref(system, ev.last)))
        elif isinstance(ev, Fault):
            effects.append(Faulted(ev.kind, system.process_name(ev.process), ev.message, ev.span))
    faulted = any(isinstance(ev, Fault) and ev.process == step.process for ev in step.events)
    if step.process >= 0 and not faulted and not system.running(step.next, step.process):
        effects.append(Returned(system.process_name(step.process)))
    return TraceStep(n, process_ref(system, step.process), ins.span, ins.text, tuple(effects))

"""Counterexample traces: the steps from the initial state to a target, rebuilt from the
explorer's predecessor pointers by taking those steps again (the step records say what each
did), and rendered as result records. Entry points: `steps_to`, `trace_of`."""

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
    path = path_to(ex, target) if target >= 0 else []
    out = []
    state = ex.initial
    for b in path[1:]:
        step = system.step(state, ex.label[b])
        if step is None or ex.index(step.next) != b:
            raise AssertionError("a stored predecessor link is not a step")
        out.append(step)
        state = step.next
    if last is not None:
        out.append(system.step(state, last))
    return out


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

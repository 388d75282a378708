"""Counterexample traces: the steps from the initial state to a target, rebuilt from the
explorer's predecessor pointers by taking those steps again (the step records say what each
did), and rendered as result records. Entry points: `steps_to` (`walk_to`), `trace_of`.

Each step records the locals of its process that it changed (`TraceStep.locals`): those live
after the step whose value differs from before it, or that were dead before it (a dead local
is zeroed in states, System.live_slots; one dead before and live after was assigned by the
step, its initialization included). Known limitations: a local the step assigned and that is
dead after it is not shown, nor are compiler temporaries (`$t...`), `event` locals (the state
of an async transfer), or the locals of the joint host_barrier and block_barrier steps."""

from __future__ import annotations

from checker.explore import Exploration
from checker.result import (BarrierPassed, BlocksPassed, Chose, DataAccess, ElementRef, Faulted, Joined, LineCached, Overwrote,
                            ProcessRef, Raced, Read, Returned, Started, TraceStep, Write)
from model import ir
from model.analysis import dest, operands, successors
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
    rho = sym.inverse(k)
    for b in path[1:]:
        step = system.step(rep, ex.label[b])
        nxt, k = sym.canon_k(step.next) if step is not None else (None, sym.identity)
        if step is None or ex.index(nxt) != b:
            raise AssertionError("a stored predecessor link is not a step")
        concrete = _renamed_step(system, sym, state, rep, step, rho)
        out.append(concrete)
        state, rep = concrete.next, nxt
        rho = sym.compose(rho, sym.inverse(k))
    if last is not None:
        out.append(_renamed_step(system, sym, state, rep, system.step(rep, last), rho))
    return out, state


def _renamed_step(system, sym, state, rep, step, rho):
    """The step of `state` that is `step` (of the representative `rep`) renamed by rho."""
    concrete = system.step(state, sym.label(rep, step.label, rho))
    if concrete is None or concrete.next != sym.apply(step.next, rho):
        raise AssertionError("a renamed step is not a step of the concrete state")
    return concrete


def process_ref(system, i: int) -> ProcessRef:
    p = system.process(i)
    return ProcessRef(p.kind, p.rank, p.block, p.name)


def element_ref(system, pos: int) -> ElementRef:
    return _ref(system.element(pos))


def data_ref(system, pos: int) -> ElementRef:
    """The buffer element at shadow position `pos` (the first of its block)."""
    return _ref(system.data_element(pos))


def _ref(e) -> ElementRef:
    return ElementRef(e.signal, e.index, e.rank)


def trace_of(system, steps, start=None) -> tuple[TraceStep, ...]:
    """The steps as records; `start` is the state before the first (default: the initial state)."""
    before = system.initial()[0] if start is None else start
    out = []
    for n, step in enumerate(steps, 1):
        out.append(_trace_step(system, n, step, changed_locals(system, before, step)))
        before = step.next
    return tuple(out)


def changed_locals(system, before, step) -> tuple[tuple[str, int], ...]:
    """(name, value after) of each local of the step's process that the step changed, in slot order."""
    i = step.process
    if i < 0 or not system.running(before, i) or not system.running(step.next, i):
        return ()
    # a process entry is (pc, idx, locals), then a cached line between the halves of a line Set
    (pc0, _, old), (pc1, _, new) = before.procs[i][:3], step.next.procs[i][:3]
    is_host = system.process(i).kind == "host"
    code = system.code_of(i)
    live0, live1 = system.live_slots[is_host][pc0], system.live_slots[is_host][pc1]
    event = _event_slot(step.instr)
    out = []
    for slot in range(len(new)) if live1 is None else live1:
        if slot == event or ((live0 is None or slot in live0) and old[slot] == new[slot]):
            continue
        name = local_name(code, pc1, slot)
        if not name.startswith("$"):
            out.append((name, new[slot]))
    return tuple(out)


def _event_slot(ins) -> int | None:
    """The `event` local an instruction issues, waits for or tests: its value is the state of an
    async transfer (model/hb.py), not a number of the spec, so traces leave it out."""
    if isinstance(ins, ir.Copy):
        return ins.event[0] if ins.event is not None else None
    if isinstance(ins, (ir.WaitEvent, ir.TestEvent)):
        return ins.slot
    return None


def local_name(code: ir.Code, pc: int, slot: int) -> str:
    """The name of local `slot` in scope at `pc`. A slot is reused by sibling scopes and
    `code.slot_names` holds only its first name, so take the name that the first read of the
    slot reached from pc (before a write) uses; the first name when no read is found."""
    seen, frontier = {pc}, [pc]
    while frontier:
        nxt = []
        for q in frontier:
            ins = code.instrs[q]
            for x in (y for e in operands(ins) for y in ir.walk(e)):
                if isinstance(x, ir.Local) and x.slot == slot:
                    return x.name
            if isinstance(ins, ir.Choose) and ins.slot == slot:
                return ins.name
            if dest(ins) == slot:
                continue  # a new value: a read past here may be of another variable
            for s in successors(code, q):
                if s < len(code.instrs) and s not in seen:
                    seen.add(s)
                    nxt.append(s)
        frontier = nxt
    return code.slot_names[slot]


def _trace_step(system, n: int, step, locals_: tuple = ()) -> TraceStep:
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
    for a in step.accesses:  # a block of a buffer's grain (model/grain.py) is its elements, one by one
        effects += [DataAccess(_ref(e), a.kind) for e in system.data_elements(a.position)]
    events = step.events
    for k, ev in enumerate(events):
        if isinstance(ev, Chosen):
            effects.append(Chose(ev.name, ev.value))
        elif isinstance(ev, DataRace):
            if k and isinstance(events[k - 1], DataRace) and events[k - 1].second == ev.second:
                continue  # listed with the first race of its access
            run = [ev]
            for later in events[k + 1:]:
                if not (isinstance(later, DataRace) and later.second == ev.second):
                    break
                run.append(later)
            for e in system.data_elements(ev.second.position):  # element by element, as the accesses came
                effects += [Raced(_ref(e), system.process_name(system.clocks.process_of(r.first.clock)), r.first.kind)
                            for r in run]
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
    return TraceStep(n, process_ref(system, step.process), ins.span, ins.text, tuple(effects), locals_)

"""The properties of section 5 of the contract, judged while exploring. Entry point: `Monitor`.

One monitor per property (Faults, DataRaces, LostNotifications, Deadlocks, DirtyExits);
`Monitor` feeds them what the explorer hands it, every step with events and every expanded
state:
- assertion, overflow, error: at the step whose events show them;
- lost_notification: at the Set or reset that overwrites a notification, per reader that
  had not read it, from that state (z3 over the operands of that reader's remaining waits);
- dirty_exit: at final states; deadlock: at states without a step (terminal deadlocks).
Only spinning deadlocks (bottom strongly connected components that cannot finish) need the
graph, so `finish` decides them on the explorer's successor lists once it is complete. Each
property keeps its first finding (under BFS, the shallowest: a shortest counterexample).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


from checker import solver
from checker.explore import Exploration
from checker.races import race_violation
from checker.result import DirtyElement, Stop, StuckProcess, Violation
from checker.trace import element_ref, process_ref, trace_of, walk_to
from model import ir
from model.analysis import TOP
from model.system import DataRace, Fault, Overwrite
from model.vocabulary import FAULTS

INT32 = ((-(2**31), 2**31 - 1),)


@dataclass(frozen=True)
class Finding:
    property: str
    src: int  # the state the counterexample reaches (-1: the initial state's own events)
    label: int | None  # the step taken from `src` that shows the violation (None: `src` itself)
    detail: object = None


@dataclass(frozen=True)
class Loss:
    event: object  # the Overwrite
    reader: object  # the Reader that had not read it
    cmp: str
    operand: int
    wait_span: object


class Faults:
    """assertion, overflow, error: a step's Fault events (model.system.Fault)."""

    judges = FAULTS  # the properties it reports
    events = (Fault,)  # the event records it is handed

    def __init__(self, system):
        self.system = system

    def on_event(self, state, ev) -> tuple[str, object] | None:
        return ev.kind, ev

    def violation(self, finding: Finding, steps, state, trace, renamed: bool) -> Violation:
        ev = finding.detail
        if renamed:  # the finding's event names the representative: the rebuilt step's own
            ev = next((e for e in steps[-1].events if isinstance(e, Fault) and e.kind == ev.kind
                       and e.span == ev.span), ev)
        return Violation(finding.property, f"{self.system.process_name(ev.process)}: {ev.message} at {ev.span}",
                         trace, span=ev.span)


class DataRaces:
    """data_race: a step's DataRace events (the clocks of model/hb.py found two unordered accesses)."""

    judges = ("data_race",)  # the properties it reports
    events = (DataRace,)

    def __init__(self, system):
        self.system = system

    def on_event(self, state, ev) -> tuple[str, object] | None:
        return "data_race", ev

    def violation(self, finding: Finding, steps, state, trace, renamed: bool) -> Violation:
        race = finding.detail
        if renamed:  # the finding's race names the representative's accesses: the rebuilt step's own
            race = next(e for e in steps[-1].events if isinstance(e, DataRace) and e.span == race.span
                        and (e.first.kind, e.second.kind) == (race.first.kind, race.second.kind))
        return race_violation(self.system, race, steps, trace)


class LostNotifications:
    """lost_notification: an Overwrite event (model/ghost.py) whose replaced value some reader
    that had not read it would accept in a wait it may still execute, and the new value not
    (z3 over the operands of that reader's remaining waits)."""

    judges = ("lost_notification",)  # the properties it reports
    events = (Overwrite,)

    def __init__(self, system):
        self.system = system
        self.open_question: str | None = None  # a z3 question left open (the verdict is then not settled)

    def on_event(self, state, ev) -> tuple[str, object] | None:
        loss = self._loss(state, ev)
        return None if loss is None else ("lost_notification", loss)

    def _loss(self, state, ev) -> Loss | None:
        """The first reader for which the overwrite `ev` loses its notification, if any."""
        if ev.clobber:  # an unread notification erased by a stale cache line: lost whatever the waits
            return Loss(ev, ev.readers[0], None, None, None) if ev.readers else None
        for reader in ev.readers:
            for cmp, values, span in self.system.future_reads(state, reader, ev.position):
                intervals = INT32 if values is TOP else solver.as_intervals(
                    v for v in values if INT32[0][0] <= v <= INT32[0][1])
                try:
                    v = solver.distinguishing_operand(cmp, intervals, ev.old, ev.new)
                except solver.SolverUnknown as e:
                    self.open_question = self.open_question or str(e)
                    continue
                if v is not None:
                    return Loss(ev, reader, cmp, v, span)
        return None

    def violation(self, finding: Finding, steps, state, trace, renamed: bool) -> Violation:
        loss = finding.detail
        if renamed:
            losses = (self._loss(state, e) for e in steps[-1].events if isinstance(e, Overwrite))
            loss = next((x for x in losses if x is not None), loss)
        system = self.system
        ev = loss.event
        writer = None  # the last TNOTIFY to the element before the overwrite (the one nobody read)
        for k in range(len(steps) - 2, -1, -1):
            if isinstance(steps[k].instr, ir.Notify) and any(w[0] == ev.position for w in steps[k].writes):
                writer = trace[k]
                break
        name = system.element(ev.position).name
        by = f" by TNOTIFY at {writer.location} ({writer.process})" if writer else ""
        if ev.clobber:
            message = (f"cache-line clobber: {trace[-1].process} at {ev.span} wrote back its stale copy of the line "
                       f"that holds {name}, replacing {ev.old} with {ev.new}, but {ev.old} was written{by} and not "
                       f"read yet by {system.reader_process(loss.reader)} (a Set to a cell that shares a 64-byte "
                       f"line with cells other agents write; pad each Set slot to its own line)")
            return Violation("lost_notification", message, trace, span=ev.span)
        message = (f"{trace[-1].process} at {ev.span} replaced {name} = {ev.old} with {ev.new}, but {ev.old} was "
                   f"written{by} and not read yet by {system.reader_process(loss.reader)}; the wait at "
                   f"{loss.wait_span} ({loss.cmp} {loss.operand}) would be satisfied by {ev.old} but not by "
                   f"{ev.new}")
        return Violation("lost_notification", message, trace, span=ev.span)


class Deadlocks:
    """deadlock: a state with no step that is not final (while exploring), and the bottom
    strongly connected components that cannot finish (`stuck_states`, once the graph is complete)."""

    judges = ("deadlock",)  # the properties it reports
    events = ()

    def __init__(self, system):
        self.system = system

    def on_expanded(self, state, nsteps: int, final: bool) -> str | None:
        return "deadlock" if nsteps == 0 and not final else None

    def violation(self, finding: Finding, steps, state, trace, renamed: bool) -> Violation:
        system = self.system
        situation = tuple(_stuck(system, s) for s in system.situation(state))
        if not system.successors(state) and not system.spinning(state):
            message = "no process can take a step, but the run has not finished"
        else:
            message = "the remaining processes can only spin forever: the run can never finish"
        blocking = [x for x in situation if x.waits != "join"] or situation  # a launch waits for the others
        return Violation("deadlock", message, trace, situation, blocking[0].span if blocking else None)


class DirtyExits:
    """dirty_exit (with `check clean_exit`): a final state with a signal not at its initial value."""

    judges = ("dirty_exit",)  # the properties it reports
    events = ()

    def __init__(self, system):
        self.system = system

    def on_expanded(self, state, nsteps: int, final: bool) -> str | None:
        return "dirty_exit" if final and self.system.dirty(state) else None

    def violation(self, finding: Finding, steps, state, trace, renamed: bool) -> Violation:
        system = self.system
        dirty = system.dirty(state)
        situation = tuple(DirtyElement(element_ref(system, p), v, init) for p, v, init in dirty[:32])
        message = f"every host finished, but {len(dirty)} signal element(s) differ from their initial values"
        return Violation("dirty_exit", message, trace, situation)


class Monitor:
    """One monitor per property (above), fed by the explorer: each step's events go to the
    monitor of their kind, each expanded state to those that judge states. Each property keeps
    its first finding."""

    dead_ends_only = True  # `expanded` judges only states with no step (checker/native.py relies on it)

    def __init__(self, system, *, expected=(), clean_exit: bool = False, fail_fast: bool = False):
        self.system = system
        self.expected = set(expected)
        self.fail_fast = fail_fast
        self.found: dict[str, Finding] = {}
        self.losses = LostNotifications(system)
        self.deadlocks = Deadlocks(system)
        monitors = [Faults(system), DataRaces(system), self.losses, self.deadlocks]
        self.on_states = [self.deadlocks] + ([DirtyExits(system)] if clean_exit else [])
        self.by_event = {cls: m for m in monitors for cls in m.events}
        self.by_property = {name: m for m in monitors + self.on_states for name in m.judges}

    @property
    def judges_overwrites(self) -> bool:
        """Whether an Overwrite event can still change a finding (the compiled search takes the
        steps that make one in Python only while it can)."""
        return "lost_notification" not in self.found

    @property
    def open_question(self) -> str | None:
        return self.losses.open_question

    def _first(self, finding: Finding) -> bool:
        """Keep `finding` if its property has none yet; True when the run should stop."""
        if finding.property in self.found:
            return False
        self.found[finding.property] = finding
        return self.fail_fast and finding.property not in self.expected

    # ------------------------------------------------------------ called by the explorer

    def initial(self, state, events: tuple) -> bool:
        stop = False
        for ev in events:  # the initial state's events have the shortest (empty) traces
            stop |= self._first(Finding(ev.kind, -1, None, ev))
        return stop

    def step(self, src: int, state, step, dst: int) -> bool:
        stop = False
        for ev in step.events:
            monitor = self.by_event.get(ev.__class__)
            if monitor is None or (monitor is self.losses and not self.judges_overwrites):
                continue
            found = monitor.on_event(state, ev)
            if found is not None:
                stop |= self._first(Finding(found[0], src, step.label, found[1]))
        return stop

    def expanded(self, index: int, state, nsteps: int) -> bool:
        final = self.system.is_final(state)
        for monitor in self.on_states:
            name = monitor.on_expanded(state, nsteps, final)
            if name is not None:
                return self._first(Finding(name, index, None))
        return False

    # ------------------------------------------------------------ after the search

    def finish(self, ex: Exploration, deadline: float | None) -> tuple[list[Violation], Stop | None]:
        """Every violated property with its counterexample, and why the verdict is not settled
        (the explorer's stop, a spinning-deadlock analysis past the deadline, an open z3 question)."""
        stop = ex.stop
        nearest = "deadlock" in self.found and self.found["deadlock"].src == 0
        if stop is None and not nearest:
            if deadline is not None and time.monotonic() > deadline:
                stop = Stop("timeout", "")
            else:
                stuck = stuck_states(self.system, ex)
                if stuck and ("deadlock" not in self.found or stuck[0] < self.found["deadlock"].src):
                    self.found["deadlock"] = Finding("deadlock", stuck[0], None)
        if stop is None and self.open_question is not None:
            stop = Stop("solver", self.open_question)
        violations = [self._violation(ex, f) for f in self.found.values()]
        return violations, stop

    def counterexample(self, ex: Exploration, prop: str) -> Violation:
        """The Violation of the finding kept for `prop` (which must have one), with its trace."""
        return self._violation(ex, self.found[prop])

    def _violation(self, ex: Exploration, f: Finding) -> Violation:
        steps, state = walk_to(self.system, ex, f.src, f.label)
        trace = trace_of(self.system, steps)
        renamed = ex.symmetry is not None and f.src >= 0  # the finding's events name the representative
        return self.by_property[f.property].violation(f, steps, state, trace, renamed)


def _stuck(system, s) -> StuckProcess:
    elements = tuple((element_ref(system, p), v) for p, v in s.elements)
    missing = tuple(system.process_name(r) for r in s.missing)
    return StuckProcess(process_ref(system, s.process), s.instr.span, s.instr.text, s.kind, s.cmp, s.operand,
                        elements, missing, s.message)


def stuck_states(system, ex: Exploration) -> list[int]:
    """Indices of the states of a complete exploration from which the run can never finish
    and which can never leave that condition (terminal states, or bottom strongly connected
    components of spinning processes), in index order."""
    n = len(ex.store)
    if n <= SMALL_GRAPH and _every_state_can_finish(ex):
        return []  # the common answer, without importing numpy and scipy (a third of a second)
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    def column(a):
        return np.frombuffer(a, dtype=np.int32) if len(a) else np.zeros(0, dtype=np.int32)

    # the successor lists as a CSR graph in state order: as they are after BFS, which expands
    # the states in index order; gathered to their places after DFS (one copy of the edges)
    order, count, succ = column(ex.order), column(ex.count), column(ex.succ)
    rows = np.zeros(n, dtype=np.int64)
    rows[order] = count
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(rows, out=indptr[1:])
    if np.array_equal(order, np.arange(n, dtype=np.int32)):
        indices = succ
    else:
        indices = np.empty(len(succ), dtype=np.int32)  # succ holds the lists in expansion order
        indices[_ranges(np, indptr[order], count)] = succ
    # the states that can reach a final state: a search of the reversed graph from the final
    # states, a frontier at a time (scipy's csgraph would copy every edge to float64 first)
    final = np.frombuffer(bytes(ex.final), dtype=np.uint8).astype(bool)  # recorded at expansion
    index = np.int32 if len(indices) < 2**31 - 1 else np.int64
    reverse = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr.astype(index)),
                         shape=(n, n), copy=False).tocsc()
    alive = final.copy()
    frontier = np.flatnonzero(final)
    owner = np.zeros(n, dtype=np.int64)  # to keep one copy of each state found twice in a round
    while len(frontier):
        lo = reverse.indptr[frontier].astype(np.int64)
        found = reverse.indices[_ranges(np, lo, reverse.indptr[frontier + 1] - lo)]
        found = found[~alive[found]]
        where = np.arange(len(found))
        owner[found] = where
        frontier = found[owner[found] == where]
        alive[frontier] = True
    del reverse, owner
    doomed = np.flatnonzero(~alive)
    if not len(doomed):
        return []
    # Among them, the bottom strongly connected components of the graph: a doomed state's
    # successors are all doomed (one that could finish would make it able to), so the doomed
    # states are a closed subgraph, whose bottom components are the graph's
    sub = np.full(n, -1, dtype=np.int32)
    sub[doomed] = np.arange(len(doomed), dtype=np.int32)
    lens = rows[doomed]
    targets = sub[indices[_ranges(np, indptr[doomed], lens)]]
    assert (targets >= 0).all(), "a state that cannot finish has a successor that can"
    subptr = np.zeros(len(doomed) + 1, dtype=np.int64)
    np.cumsum(lens, out=subptr[1:])
    graph = csr_matrix((np.ones(len(targets), dtype=np.int8), targets, subptr.astype(np.int32)),
                       shape=(len(doomed), len(doomed)))
    _, comp = connected_components(graph, directed=True, connection="strong")
    leaves = np.zeros(len(doomed), dtype=bool)  # per doomed state, whether an edge leaves its component
    has = lens > 0
    if has.any():
        ends = comp[targets]
        lo = np.minimum.reduceat(ends, subptr[:-1][has])
        hi = np.maximum.reduceat(ends, subptr[:-1][has])
        leaves[has] = (lo != comp[has]) | (hi != comp[has])
    not_bottom = np.zeros(comp.max() + 1, dtype=bool)
    not_bottom[comp[leaves]] = True
    return [int(i) for i in doomed[~not_bottom[comp]]]


def _ranges(np, starts, lengths):
    """The positions starts[k] .. starts[k] + lengths[k] - 1, for every k in turn."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths) + \
        np.arange(total, dtype=np.int64)


SMALL_GRAPH = 50_000  # states up to which `_every_state_can_finish` runs first


def _every_state_can_finish(ex: Exploration) -> bool:
    """Whether a final state can be reached from every stored state: a plain search of the
    reversed successor lists from the final states."""
    n = len(ex.store)
    preds: list[list[int]] = [[] for _ in range(n)]
    succ, k = ex.succ, 0
    for src, c in zip(ex.order, ex.count):
        for dst in succ[k:k + c]:
            preds[dst].append(src)
        k += c
    seen = bytearray(n)
    work = [i for i in range(n) if ex.final[i]]
    for i in work:
        seen[i] = 1
    while work:
        for p in preds[work.pop()]:
            if not seen[p]:
                seen[p] = 1
                work.append(p)
    return all(seen)

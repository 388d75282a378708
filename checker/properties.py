"""The properties of section 5 of the contract, judged on an exploration. Entry: `judge`.

Safety events (assertion, error, overflow, overwrites) are collected while exploring by an
`EventLog`; deadlock, dirty exit and the lost-notification decision are computed on the
explored graph afterwards. Each property gets its own shortest counterexample (with BFS).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from checker import solver
from checker.explore import Exploration
from checker.result import Violation
from checker.trace import rebuild


class EventLog:
    """Observer for the explorer: keeps the first (shallowest, under BFS) edge of each event."""

    def __init__(self):
        self.first: dict[str, tuple] = {}  # property -> (src, step, dst, event)
        self.overwrites: dict[tuple, tuple] = {}  # (pos, old, new) -> (src, step, dst, event)

    def __call__(self, src: int, step: int, dst: int, events: tuple) -> None:
        for ev in events:
            if ev[0] == "overwrite":
                key = (ev[2], ev[3], ev[4])
                if key not in self.overwrites:
                    self.overwrites[key] = (src, step, dst, ev)
            elif ev[0] not in self.first:
                self.first[ev[0]] = (src, step, dst, ev)


def judge(system, ex: Exploration, log: EventLog, clean_exit: bool) -> tuple[list[Violation], str | None]:
    """Every violated property with its counterexample, and a reason if a question stayed open."""
    violations = []
    open_question = None
    for ev in reversed(ex.initial_events):  # the initial state's events have the shortest (empty) traces
        log.first[ev[0]] = (-1, 0, 0, ev)
    for prop in ("assertion", "overflow", "error"):
        if prop in log.first:
            violations.append(_event_violation(system, ex, prop, log.first[prop]))
    dead = _deadlock(system, ex)
    if dead is not None:
        violations.append(dead)
    try:
        lost = _lost_notification(system, ex, log)
    except solver.SolverUnknown as e:
        lost, open_question = None, str(e)
    if lost is not None:
        violations.append(lost)
    if clean_exit:
        dirty = _dirty_exit(system, ex)
        if dirty is not None:
            violations.append(dirty)
    return violations, open_question


def _event_violation(system, ex, prop, record) -> Violation:
    src, step, dst, ev = record
    trace = () if src < 0 else rebuild(system, ex, src, (step, dst))[0]
    message = f"{system.process_name(ev[3])}: {ev[2]} at {ev[1]}"
    return Violation(prop, message, trace)


# ---------------------------------------------------------------- deadlock


def _edges(ex: Exploration) -> tuple[np.ndarray, np.ndarray]:
    def as_array(a):
        return np.frombuffer(a, dtype=np.int64) if len(a) else np.zeros(0, dtype=np.int64)

    return as_array(ex.src), as_array(ex.dst)


def stuck_states(system, ex: Exploration) -> list[int]:
    """Indices of the states from which the run can never finish and which can never leave
    that condition (terminal states, or bottom strongly connected components of spinning
    processes), in index order. On an incomplete exploration only terminal states count."""
    n = len(ex.states)
    src, dst = _edges(ex)
    final = np.fromiter((system.is_final(s) for s in ex.states), dtype=bool, count=n)
    outdeg = np.bincount(src, minlength=n)
    expanded = np.frombuffer(bytes(ex.expanded), dtype=np.uint8).astype(bool)
    terminal = (outdeg == 0) & expanded & ~final
    if not ex.complete:
        return [int(i) for i in np.flatnonzero(terminal)]
    # co-reachability of a final state, via a virtual node n that points at every final state
    finals = np.flatnonzero(final)
    rsrc = np.concatenate([dst, np.full(len(finals), n, dtype=np.int64)])
    rdst = np.concatenate([src, finals])
    reverse = csr_matrix((np.ones(len(rsrc), dtype=np.int8), (rsrc, rdst)), shape=(n + 1, n + 1))
    alive = np.zeros(n + 1, dtype=bool)
    alive[breadth_first_order(reverse, n, directed=True, return_predecessors=False)] = True
    doomed = ~alive[:n]
    if not doomed.any():
        return []
    forward = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, comp = connected_components(forward, directed=True, connection="strong")
    leaves = comp[src] != comp[dst]
    not_bottom = np.zeros(comp.max() + 1, dtype=bool)
    not_bottom[comp[src[leaves]]] = True
    stuck = doomed & ~not_bottom[comp]
    return [int(i) for i in np.flatnonzero(stuck)]


def _deadlock(system, ex: Exploration) -> Violation | None:
    stuck = stuck_states(system, ex)
    if not stuck:
        return None
    target = stuck[0]
    trace, states = rebuild(system, ex, target)
    situation = tuple(system.situation(states[-1]))
    enabled = system.successors(states[-1])
    spinning = any(p is not None and p[1] < 0 for p in states[-1][0])
    if not enabled and not spinning:
        message = "no process can take a step, but the run has not finished"
    else:
        message = "the remaining processes can only spin forever: the run can never finish"
    return Violation("deadlock", message, trace, situation)


# ---------------------------------------------------------------- lost notification


def _lost_notification(system, ex: Exploration, log: EventLog) -> Violation | None:
    if not log.overwrites:
        return None
    # What each wait or test compares each element with, over all reachable states.
    operands: dict[int, dict[str, dict[int, object]]] = defaultdict(lambda: defaultdict(dict))
    for state in ex.states:
        for pos, cmp, value, span in system.wait_operands(state):
            operands[pos][cmp].setdefault(value, span)
    for key, record in sorted(log.overwrites.items(), key=lambda kv: (kv[1][0], kv[0])):
        pos, old, new = key
        for cmp in sorted(operands.get(pos, {})):
            values = operands[pos][cmp]
            v = solver.distinguishing_operand(cmp, solver.as_intervals(values), old, new)
            if v is not None:
                return _lost_violation(system, ex, record, cmp, v, values[v])
    return None


def _lost_violation(system, ex, record, cmp, operand, wait_span) -> Violation:
    src, step, dst, ev = record
    _, span, pos, old, new = ev
    trace, states = rebuild(system, ex, src, (step, dst))
    writer = None  # the last TNOTIFY to pos before the overwrite (the one nobody read)
    for k in range(len(trace) - 2, -1, -1):
        if system.written(states[k], _step_of(system, states[k], states[k + 1], trace[k])) == pos:
            writer = trace[k]
            break
    name = system.position_name(pos)
    who = trace[-1]
    by = f" by TNOTIFY at {writer.location} ({writer.process})" if writer else ""
    message = (f"{who.process} at {span} replaced {name} = {old} with {new}, but {old} was written{by} and "
               f"not read yet; the wait at {wait_span} ({cmp} {operand}) would be satisfied by {old} "
               f"but not by {new}")
    return Violation("lost_notification", message, trace)


def _step_of(system, state, after, shown) -> int:
    """The step from `state` to `after` that the trace shows as `shown`."""
    for label, nxt, _ in system.successors(state):
        if nxt == after and system.process_name(label) == shown.process:
            return label
    raise AssertionError("a trace step that is not a transition")


# ---------------------------------------------------------------- dirty exit


def _dirty_exit(system, ex: Exploration) -> Violation | None:
    for i, state in enumerate(ex.states):
        if system.is_final(state):
            dirty = system.dirty(state)
            if dirty:
                trace, _ = rebuild(system, ex, i)
                init = system.init_values
                situation = tuple(f"{system.position_name(p)} = {state[1][p]} (initially {init[p]})"
                                  for p in dirty[:32])
                message = f"every host finished, but {len(dirty)} signal element(s) differ from their initial values"
                return Violation("dirty_exit", message, trace, situation)
    return None

"""Exhaustive state-space exploration. Entry point: `explore`.

One loop; the frontier (BFS queue or DFS stack) is a parameter. Each state is stored once
with its predecessor and the label of the step that reached it; traces are rebuilt from
those pointers. The explorer knows the model only through `initial()`, `successors(state)`
(step records); it hands every step with events and every expanded state to
a judge, which may ask it to stop. It keeps the successor lists (one 32-bit index per
distinct successor) only because a spinning deadlock needs the graph.
"""

from __future__ import annotations

import os
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Protocol

from checker.result import Stop
from model.system import LocalStepLimit


class Judge(Protocol):
    def initial(self, state, events: tuple) -> bool: ...
    def step(self, src: int, state, step, dst: int) -> bool: ...
    def expanded(self, index: int, state, nsteps: int) -> bool: ...


@dataclass
class Exploration:
    states: list  # index -> state
    parent: array  # index -> predecessor index (-1 for the initial state)
    label: array  # index -> label of the step that reached it from its predecessor
    succ: array  # distinct successors other than the state itself, per expanded state in order
    order: array  # expanded states, in the order they were expanded
    count: array  # ... and how many entries of `succ` each has
    transitions: int = 0
    stop: Stop | None = None
    seconds: float = 0.0
    peak_bytes: int = 0
    extra: dict = field(default_factory=dict)
    symmetry: object = None  # the model.symmetry.Symmetry whose representatives `states` holds, if any

    @property
    def complete(self) -> bool:
        return self.stop is None


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def explore(system, judge: Judge, *, order: str = "bfs", max_states: int | None = None,
            deadline: float | None = None, max_memory: int | None = None,
            progress: Callable[[int, int, float], None] | None = None,
            reduce: Callable | None = None, symmetry=None) -> Exploration:
    """Explore every reachable state of `system` (BFS by default: first traces are shortest).
    `deadline` is a time.monotonic() value. `reduce(state, steps)` may name a stubborn subset
    of the enabled steps to follow instead of all (partial-order reduction); the cycle
    proviso is applied here: a state is expanded fully when a step of the subset leads back
    to itself or to a state already expanded, so every cycle of the reduced graph has a fully
    expanded state. With `symmetry` (model/symmetry.py) every state is stored as the
    representative of its orbit, `symmetry.canon(state)`: a stored link then means "the step
    with that label from the predecessor leads to a state in this one's orbit"
    (checker/trace.py rebuilds concrete traces from that)."""
    start = time.monotonic()
    init, init_events = system.initial()
    canon = symmetry.canon if symmetry is not None else None
    if canon is not None:
        init = canon(init)
    index = {init: 0}
    ex = Exploration(states=[init], parent=array("q", [-1]), label=array("q", [0]), succ=array("i"),
                     order=array("i"), count=array("i"), symmetry=symmetry)
    if judge.initial(init, init_events):
        ex.stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
        return _done(ex, start)
    frontier = deque([0])
    take = frontier.popleft if order == "bfs" else frontier.pop
    successors = system.successors
    states, parent, labels, succ = ex.states, ex.parent, ex.label, ex.succ
    transitions = 0
    expanded = 0
    done = bytearray(1)  # index -> 1 once expanded (for the cycle proviso)
    full = 0  # states the proviso expanded fully
    try:
        while frontier:
            s = take()
            expanded += 1
            if expanded & 1023 == 0:
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    ex.stop = Stop("timeout", "")
                    frontier.append(s)
                    break
                if max_memory is not None and expanded & 4095 == 0:
                    rss = _rss_bytes()
                    ex.peak_bytes = max(ex.peak_bytes, rss)
                    if rss > max_memory:
                        ex.stop = Stop("memory", f"memory limit of {max_memory // 2**20} MiB reached")
                        break
                if progress is not None:
                    progress(len(states), transitions, now - start)
            state = states[s]
            steps = all_steps = successors(state)
            nexts = None
            if reduce is not None:
                kept = reduce(state, steps)
                if kept is not None:
                    kept_nexts = [step.next for step in kept] if canon is None else [canon(step.next) for step in kept]
                    for nxt in kept_nexts:
                        t = index.get(nxt)
                        if t is not None and (t == s or done[t]):
                            full += 1
                            break
                    else:
                        steps, nexts = kept, kept_nexts
            if nexts is None:
                nexts = [step.next for step in steps] if canon is None else [canon(step.next) for step in steps]
            mark = len(succ)
            stop = False
            for step, nxt in zip(steps, nexts):
                t = index.get(nxt)
                if t is None:
                    if max_states is not None and len(states) >= max_states:
                        ex.stop = Stop("max_states", f"state limit of {max_states} reached")
                        stop = True
                        break
                    t = len(states)
                    index[nxt] = t
                    states.append(nxt)
                    parent.append(s)
                    labels.append(step.label)
                    frontier.append(t)
                    done.append(0)
                transitions += 1
                if t != s and t not in succ[mark:]:
                    succ.append(t)
                if step.events and judge.step(s, state, step, t):
                    ex.stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
                    stop = True
                    break
            if stop:
                break
            done[s] = 1
            ex.order.append(s)
            ex.count.append(len(succ) - mark)
            if judge.expanded(s, state, len(all_steps)):
                ex.stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
                break
    except LocalStepLimit as e:
        ex.stop = Stop("local_steps", str(e))
    except KeyboardInterrupt:
        ex.stop = Stop("interrupted", "interrupted (Ctrl-C)")
    except MemoryError:
        ex.stop = Stop("memory", "out of memory")
    ex.transitions = transitions
    if reduce is not None:
        ex.extra["proviso_full"] = full
    return _done(ex, start)


def _done(ex: Exploration, start: float) -> Exploration:
    ex.seconds = time.monotonic() - start
    ex.peak_bytes = max(ex.peak_bytes, _rss_bytes())
    return ex

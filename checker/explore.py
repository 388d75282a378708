"""Exhaustive state-space exploration. Entry point: `explore`.

One loop; the frontier (BFS queue or DFS stack) is a parameter. Each state is stored once
with its predecessor and the step that reached it; traces are rebuilt from those pointers.
The explorer knows the model only through `initial()` and `successors(state)`, and hands
the events of each step to an observer as plain data.
"""

from __future__ import annotations

import os
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from model.system import LocalStepLimit


@dataclass(frozen=True)
class Stop:
    """Why a run stopped before the whole state space was explored."""

    reason: str  # "max_states" | "timeout" | "memory" | "interrupted" | "local_steps"
    detail: str


@dataclass
class Exploration:
    states: list  # index -> state
    parent: array  # index -> predecessor index (-1 for the initial state)
    step: array  # index -> step that reached it from its predecessor
    src: array  # every transition: source index ...
    dst: array  # ... and target index
    expanded: bytearray  # 1 when the state's successors were all generated
    initial_events: tuple
    stop: Stop | None = None
    seconds: float = 0.0
    peak_bytes: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def transitions(self) -> int:
        return len(self.src)

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


Observer = Callable[[int, int, int, tuple], None]


def explore(system, *, order: str = "bfs", max_states: int | None = None, timeout: float | None = None,
            max_memory: int | None = None, observe: Observer | None = None,
            progress: Callable[[int, int, float], None] | None = None) -> Exploration:
    """Explore every reachable state of `system` (BFS by default: first traces are shortest)."""
    start = time.monotonic()
    init, init_events = system.initial()
    index = {init: 0}
    ex = Exploration(states=[init], parent=array("q", [-1]), step=array("q", [0]), src=array("q"),
                     dst=array("q"), expanded=bytearray(1), initial_events=init_events)
    frontier = deque([0])
    take = frontier.popleft if order == "bfs" else frontier.pop
    successors = system.successors
    states, parent, steps, src, dst = ex.states, ex.parent, ex.step, ex.src, ex.dst
    count = 0
    try:
        while frontier:
            s = take()
            count += 1
            if count & 1023 == 0:
                now = time.monotonic() - start
                if timeout is not None and now > timeout:
                    ex.stop = Stop("timeout", f"time limit of {timeout:g} s reached")
                    frontier.append(s)
                    break
                if max_memory is not None and count & 4095 == 0:
                    rss = _rss_bytes()
                    ex.peak_bytes = max(ex.peak_bytes, rss)
                    if rss > max_memory:
                        ex.stop = Stop("memory", f"memory limit of {max_memory // 2**20} MiB reached")
                        break
                if progress is not None:
                    progress(len(states), len(src), now)
            for label, nxt, events in successors(states[s]):
                t = index.get(nxt)
                if t is None:
                    if max_states is not None and len(states) >= max_states:
                        ex.stop = Stop("max_states", f"state limit of {max_states} reached")
                        break
                    t = len(states)
                    index[nxt] = t
                    states.append(nxt)
                    parent.append(s)
                    steps.append(label)
                    ex.expanded.append(0)
                    frontier.append(t)
                src.append(s)
                dst.append(t)
                if events and observe is not None:
                    observe(s, label, t, events)
            else:
                ex.expanded[s] = 1
                continue
            break
    except LocalStepLimit as e:
        ex.stop = Stop("local_steps", str(e))
    except KeyboardInterrupt:
        ex.stop = Stop("interrupted", "interrupted (Ctrl-C)")
    except MemoryError:
        ex.stop = Stop("memory", "out of memory")
    ex.seconds = time.monotonic() - start
    ex.peak_bytes = max(ex.peak_bytes, _rss_bytes())
    return ex

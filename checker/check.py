"""One check of one spec with one set of param values. Entry point: `check_program`."""

from __future__ import annotations

import time
from dataclasses import dataclass

from checker.explore import explore
from checker.properties import EventLog, judge
from checker.result import PROPERTIES, Result, Stats
from model import System
from model.ir import Program


@dataclass(frozen=True)
class Options:
    order: str = "bfs"
    max_states: int | None = None
    timeout: float | None = None
    max_memory: int | None = None  # bytes
    atomic_waits: bool = False
    clean_exit: bool = False  # --check clean_exit


def check_program(program: Program, spec: str, options: Options, progress=None) -> Result:
    """Explore and judge; `stats.seconds` covers both."""
    start = time.monotonic()
    system = System(program, atomic_waits=options.atomic_waits)
    log = EventLog()
    ex = explore(system, order=options.order, max_states=options.max_states, timeout=options.timeout,
                 max_memory=options.max_memory, observe=log, progress=progress)
    violations, open_question = judge(system, ex, log, program.clean_exit or options.clean_exit)
    violations.sort(key=lambda v: PROPERTIES.index(v.property))
    stop = ex.stop.detail if ex.stop else open_question
    stats = Stats(len(ex.states), ex.transitions, time.monotonic() - start, ex.peak_bytes / 2**20)
    return Result(spec=spec, params=dict(program.params), violations=violations, expected=program.expects,
                  stats=stats, stop=stop)

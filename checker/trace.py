"""Counterexample traces rebuilt from the explorer's predecessor pointers. Entry: `rebuild`."""

from __future__ import annotations

from checker.explore import Exploration
from checker.result import TraceStep


def path_to(ex: Exploration, target: int) -> list[int]:
    """State indices from the initial state to `target`."""
    path = []
    while target >= 0:
        path.append(target)
        target = ex.parent[target]
    path.reverse()
    return path


def rebuild(system, ex: Exploration, target: int, last: tuple[int, int] | None = None):
    """The steps from the initial state to `target`, then `last` = (step, next index) if given.
    Returns (trace steps, the states along it)."""
    path = path_to(ex, target)
    edges = [(path[k], ex.step[path[k + 1]], path[k + 1]) for k in range(len(path) - 1)]
    if last is not None:
        edges.append((target, last[0], last[1]))
    steps = []
    for n, (a, label, b) in enumerate(edges, 1):
        info = system.describe(ex.states[a], label, ex.states[b])
        steps.append(TraceStep(n, info.process, str(info.span), info.statement, info.effects))
    states = [ex.states[path[0]]] + [ex.states[b] for _, _, b in edges]
    return tuple(steps), states

"""Export the state graph of a small spec through networkx (DOT or GraphML). Entry: `state_graph`."""

from __future__ import annotations

from typing import IO

import networkx as nx

from checker.explore import explore
from model import System
from model.ir import Program

DEFAULT_LIMIT = 5000


class GraphTooLarge(Exception):
    pass


def state_graph(program: Program, limit: int | None = None) -> nx.DiGraph:
    """The explored state graph: node = state index with a readable label, edge = step."""
    limit = limit or DEFAULT_LIMIT
    system = System(program)
    ex = explore(system, max_states=limit)
    if ex.stop is not None:
        raise GraphTooLarge(f"the state graph has more than {limit} states ({ex.stop.detail}); "
                            f"export is for small specs (raise --max-states, or shrink the params)")
    g = nx.DiGraph(name=program.name)
    for i, state in enumerate(ex.states):
        g.add_node(i, label=_state_label(system, state), final=system.is_final(state), initial=(i == 0))
    for a, b in zip(ex.src, ex.dst):
        step = ex.step[b] if ex.parent[b] == a else None
        info = system.describe(ex.states[a], _step_between(system, ex.states[a], ex.states[b], step), ex.states[b])
        g.add_edge(a, b, label=f"{info.process}: {info.statement}")
    return g


def _step_between(system, a, b, hint):
    if hint is not None:
        return hint
    for label, nxt, _ in system.successors(a):
        if nxt == b:
            return label
    raise AssertionError("edge without a step")


def _state_label(system, state) -> str:
    procs, sig, _, _ = state
    parts = []
    for i, p in enumerate(procs):
        if p is not None:
            ins = system.code_of(i).instrs[p[0]]
            parts.append(f"{system.process_name(i)}@{ins.span.line}:{ins.span.col}")
    values = " ".join(f"{system.position_name(k)}={v}" for k, v in enumerate(sig) if v)
    return "; ".join(parts) + (" | " + values if values else "") if parts or values else "finished"


def write_graph(g: nx.DiGraph, fmt: str, out: IO[str]) -> None:
    if fmt == "graphml":
        for line in nx.generate_graphml(g):
            out.write(line + "\n")
        return
    dot = nx.nx_pydot.to_pydot(g)
    out.write(dot.to_string())

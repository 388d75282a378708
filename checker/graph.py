"""Export the state graph of a small spec through networkx (DOT or GraphML). Entry: `state_graph`."""

from __future__ import annotations

from typing import IO

import networkx as nx

from model import System
from model.ir import Program
from model.semantics import DEFAULT, Semantics

DEFAULT_LIMIT = 5000


class GraphTooLarge(Exception):
    pass


def state_graph(program: Program, limit: int | None = None, semantics: Semantics = DEFAULT) -> nx.DiGraph:
    """The reachable state graph under `semantics`: node = state index with a readable label,
    edge = step (labelled from its step record)."""
    limit = limit or DEFAULT_LIMIT
    system = System(program, semantics)
    init, _ = system.initial()
    index = {init: 0}
    order = [init]
    edges = []
    k = 0
    while k < len(order):
        state = order[k]
        for step in system.successors(state):
            t = index.get(step.next)
            if t is None:
                if len(order) >= limit:
                    raise GraphTooLarge(f"the state graph has more than {limit} states (state limit of {limit} "
                                        f"reached); export is for small specs (raise --max-states, or shrink the "
                                        f"params)")
                t = index[step.next] = len(order)
                order.append(step.next)
            edges.append((k, t, f"{system.process_name(step.process)}: {step.instr.text}"))
        k += 1
    g = nx.DiGraph(name=program.name)
    for i, state in enumerate(order):
        g.add_node(i, label=_state_label(system, state), final=system.is_final(state), initial=(i == 0))
    for a, b, label in edges:
        g.add_edge(a, b, label=label)
    return g


def _state_label(system, state) -> str:
    parts = [f"{system.process_name(i)}@{span.line}:{span.col}" for i, span in system.where(state)]
    values = " ".join(f"{system.element(p).name}={v}" for p in range(len(system.init_values))
                      if (v := system.value(state, p)))
    return "; ".join(parts) + (" | " + values if values else "") if parts or values else "finished"


def write_graph(g: nx.DiGraph, fmt: str, out: IO[str]) -> None:
    if fmt == "graphml":
        for line in nx.generate_graphml(g):
            out.write(line + "\n")
        return
    dot = nx.nx_pydot.to_pydot(g)
    out.write(dot.to_string())

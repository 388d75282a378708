"""A deliberately plain reference checker for the differential tests.

It shares nothing with `checker/`: the single steps come from `model.System`, and everything
else (the reachable graph, the properties of section 5 of the contract, shortest
counterexample lengths) is recomputed here on a networkx graph, written for clarity and
not for speed. Only for small state spaces.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

EVENT_PROPERTIES = ("assertion", "error", "overflow")

# The comparisons of TWAIT / TTEST, `signal cmp operand`, in plain Python.
HOLDS = {
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
}


class TooLarge(Exception):
    """The reachable graph has more states than the reference was asked to build."""


class Reference:
    """The full reachable graph of `system` and the properties it violates.

    Graph: node = state, edge = one or more steps between two states; the edge attribute
    `steps` lists (step, events) for each of them.
    """

    def __init__(self, system, clean_exit: bool, max_states: int | None = None):
        self.system = system
        self.clean_exit = clean_exit
        self.initial, self.initial_events = system.initial()
        self.graph = self._reachable_graph(max_states)
        self.distance = nx.single_source_shortest_path_length(self.graph, self.initial)
        self.finals = {s for s in self.graph if system.is_final(s)}
        alive = set(self.finals)
        for f in self.finals:
            alive |= nx.ancestors(self.graph, f)
        self.doomed = set(self.graph) - alive
        self.stuck = self._stuck_states()
        self.operands = {(pos, cmp, value) for s in self.graph for pos, cmp, value, _ in system.wait_operands(s)}

    # ------------------------------------------------------------ the graph

    def _reachable_graph(self, max_states: int | None) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_node(self.initial)
        queue = deque([self.initial])
        while queue:
            state = queue.popleft()
            for step, nxt, events in self.system.successors(state):
                if nxt not in g:
                    if max_states is not None and g.number_of_nodes() >= max_states:
                        raise TooLarge(f"more than {max_states} states")
                    g.add_node(nxt)
                    queue.append(nxt)
                if g.has_edge(state, nxt):
                    g.edges[state, nxt]["steps"].append((step, events))
                else:
                    g.add_edge(state, nxt, steps=[(step, events)])
        return g

    def transitions(self):
        """Every (source, step, target, events), one per step."""
        for a, b, steps in self.graph.edges(data="steps"):
            for step, events in steps:
                yield a, step, b, events

    def _stuck_states(self) -> set:
        """Non-final states in a bottom strongly connected component of the doomed part."""
        doomed = nx.condensation(self.graph.subgraph(self.doomed))
        stuck = set()
        for c in doomed:
            if doomed.out_degree(c) == 0:
                stuck |= doomed.nodes[c]["members"]
        return {s for s in stuck if not self.system.is_final(s)}

    # ------------------------------------------------------------ properties

    def can_finish(self, state) -> bool:
        return state not in self.doomed

    def is_lossy(self, event) -> bool:
        """An ("overwrite", span, pos, old, new) event that some wait or test of the run could
        have passed with `old` but not with `new`."""
        _, _, pos, old, new = event
        return any(p == pos and HOLDS[cmp](old, value) and not HOLDS[cmp](new, value)
                   for p, cmp, value in self.operands)

    def _sources(self, prop: str) -> list:
        """The source states of the transitions whose events show `prop`."""
        if prop == "lost_notification":
            def shows(ev):
                return ev[0] == "overwrite" and self.is_lossy(ev)
        else:
            def shows(ev):
                return ev[0] == prop
        return [a for a, _, _, events in self.transitions() if any(shows(ev) for ev in events)]

    def dirty_finals(self) -> list:
        return [s for s in self.finals if self.system.dirty(s)]

    def violated(self, clean_exit: bool | None = None) -> set[str]:
        """The violated properties; `clean_exit` overrides the spec's `check clean_exit;`."""
        clean_exit = self.clean_exit if clean_exit is None else clean_exit
        found = set()
        for prop in EVENT_PROPERTIES:
            if any(ev[0] == prop for ev in self.initial_events) or self._sources(prop):
                found.add(prop)
        if self.doomed:
            found.add("deadlock")
        if self._sources("lost_notification"):
            found.add("lost_notification")
        if clean_exit and self.dirty_finals():
            found.add("dirty_exit")
        return found

    def shortest(self, prop: str) -> int:
        """The number of steps of a shortest counterexample for a violated `prop`: the distance
        to a nearest stuck state (deadlock), dirty final state (dirty_exit), or source of an
        edge showing `prop` plus that edge (0 when the initial state's own events show it).
        `prop` may also be a raw event kind such as "overwrite"."""
        if prop == "deadlock":
            return min(self.distance[s] for s in self.stuck)
        if prop == "dirty_exit":
            return min(self.distance[s] for s in self.dirty_finals())
        if prop in EVENT_PROPERTIES and any(ev[0] == prop for ev in self.initial_events):
            return 0
        return min(self.distance[a] for a in self._sources(prop)) + 1

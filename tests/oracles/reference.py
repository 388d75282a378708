"""A deliberately plain reference checker for the differential tests.

It shares nothing with `checker/` and nothing with `model/analysis.py`: the single steps come
from `model.System` (its Step records), and everything else is recomputed here, written for
clarity and not for speed, only for small state spaces:
- the reachable graph as a networkx DiGraph of *nodes* = (system state, reference ghost),
  where the reference ghost is this module's own account of the contract's lost-notification
  bookkeeping (section 5): per signal element, the readers its last notifications were meant
  for that have not read it, and per rank the launches started so far;
- the properties of section 5, with networkx primitives and plain Python (no z3): a
  notification is lost when a Set or reset replaces it with a different value while one of
  its pending readers can still execute a TWAIT/TTEST on that element that the old value
  satisfies and the new one does not. "Can still execute" is decided as the checker's
  documentation says: the reader's own code from where it stands, run on its own with every
  TTEST outcome taken both ways and every wait completing — here by a concrete run of the IR
  with a plain interpreter written in this file;
- shortest counterexample lengths.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from model import cint
from model import ir

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
FUTURE_LIMIT = 20_000


class TooLarge(Exception):
    """The reachable graph has more states than the reference was asked to build."""


# ---------------------------------------------------------------- a plain interpreter of one process


class _Fault(Exception):
    pass


class _Unknown(Exception):
    """The expression reads a local whose value the process's own run cannot know: what a
    LOAD or FETCH_ADD returned (its value depends on the other processes)."""


ANY = None  # such a local's value


def _eval(e, L, ctx):
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Local):
        if L[e.slot] is ANY:
            raise _Unknown()
        return L[e.slot]
    if isinstance(e, ir.Builtin):
        return ctx[e.name]
    if isinstance(e, ir.Unary):
        return cint.UNARY[e.op](_eval(e.operand, L, ctx), e.span)
    if isinstance(e, ir.Binary):
        if e.op == "&&":
            return int(bool(_eval(e.left, L, ctx)) and bool(_eval(e.right, L, ctx)))
        if e.op == "||":
            return int(bool(_eval(e.left, L, ctx)) or bool(_eval(e.right, L, ctx)))
        return cint.BINARY[e.op](_eval(e.left, L, ctx), _eval(e.right, L, ctx), e.span)
    if isinstance(e, ir.Select):
        return _eval(e.then, L, ctx) if _eval(e.test, L, ctx) else _eval(e.orelse, L, ctx)
    raise AssertionError(e)


def _positions(view, L, ctx, own_rank, elems):
    """The global positions a TWAIT/TTEST view reads (own rank only), or _Fault."""
    sig = view.signal
    idx = [[]]
    for k, d in enumerate(sig.dims):
        if k < len(view.selectors):
            sel = view.selectors[k]
            if isinstance(sel, ir.Index):
                i = _eval(sel.expr, L, ctx)
                if not 0 <= i < d:
                    raise _Fault()
                choices = [i]
            else:
                a = _eval(sel.start, L, ctx) if sel.start is not None else 0
                b = _eval(sel.stop, L, ctx) if sel.stop is not None else d
                s = _eval(sel.step, L, ctx) if sel.step is not None else 1
                if s < 1 or not (0 <= a <= d and 0 <= b <= d) or not range(a, b, s):
                    raise _Fault()
                choices = list(range(a, b, s))
        else:
            choices = list(range(d))
        idx = [x + [c] for x in idx for c in choices]
    if view.at is not None and _eval(view.at, L, ctx) != own_rank:
        raise _Fault()
    out = []
    for x in idx:
        flat = 0
        for i, d in zip(x, sig.dims):
            flat = flat * d + i
        out.append(own_rank * elems + sig.offset + flat)
    return out


def _every_position(view, own_rank, elems):
    """The positions of a view whose indices are unknown: every element of its signal."""
    sig = view.signal
    size = 1
    for d in sig.dims:
        size *= d
    return [own_rank * elems + sig.offset + k for k in range(size)]


def future_reads(program, code, ctx, own_rank, pc, locals_):
    """Every (position, cmp, operand) of a TWAIT/TTEST the process may still execute from
    (pc, locals_), run on its own: each TTEST, CAS and TEST_EVENT both ways, each wait
    completing, what a LOAD or FETCH_ADD returns unknown (ANY: a branch on it goes both
    ways, an operand computed from it is ANY, an index computed from it any element)."""
    start = (pc, tuple(locals_) if locals_ else (0,) * code.nslots)
    seen = {start}
    queue = deque([start])
    out = set()

    def put(L, slot, v):
        return L[:slot] + (v,) + L[slot + 1:]

    while queue:
        pc, L = queue.popleft()
        ins = code.instrs[pc]
        nexts = []
        try:
            if isinstance(ins, ir.Assign):
                try:
                    v = _eval(ins.value, L, ctx)
                except _Unknown:
                    v = ANY
                nexts.append((pc + 1, put(L, ins.slot, v)))
            elif isinstance(ins, ir.Branch):
                try:
                    nexts.append((pc + 1 if _eval(ins.cond, L, ctx) else ins.target, L))
                except _Unknown:
                    nexts += [(pc + 1, L), (ins.target, L)]
            elif isinstance(ins, ir.Jump):
                nexts.append((ins.target, L))
            elif isinstance(ins, ir.Choose):  # every value of [lo, hi]; an empty or too wide range stops
                try:
                    lo, hi = _eval(ins.lo, L, ctx), _eval(ins.hi, L, ctx)
                except _Unknown:
                    nexts.append((pc + 1, put(L, ins.slot, ANY)))
                else:
                    if hi - lo + 1 > ir.MAX_CHOICES:
                        raise _Fault()
                    nexts += [(pc + 1, put(L, ins.slot, v)) for v in range(lo, hi + 1)]
            elif isinstance(ins, ir.Assert):
                try:
                    if _eval(ins.cond, L, ctx):
                        nexts.append((pc + 1, L))
                except _Unknown:
                    nexts.append((pc + 1, L))
            elif isinstance(ins, (ir.Wait, ir.Test)):
                try:
                    v = _eval(ins.value, L, ctx)
                except _Unknown:
                    v = ANY
                try:
                    positions = _positions(ins.view, L, ctx, own_rank, program.elems_per_rank)
                except _Unknown:
                    positions = _every_position(ins.view, own_rank, program.elems_per_rank)
                for p in positions:
                    out.add((p, ins.cmp, v))
                if isinstance(ins, ir.Wait):
                    nexts.append((pc + 1, L))
                else:
                    nexts += [(pc + 1, put(L, ins.dest, t)) for t in (0, 1)]
            elif isinstance(ins, (ir.Notify, ir.Reset)):  # a faulting view or value stops the process
                try:
                    at = _eval(ins.view.at, L, ctx) if ins.view.at is not None else own_rank
                    if not 0 <= at < program.nranks or (isinstance(ins, ir.Reset) and at != own_rank):
                        raise _Fault()
                    plain = ir.View(ins.view.signal, ins.view.selectors, None, ins.view.span)
                    _positions(plain, L, ctx, own_rank, program.elems_per_rank)
                    if isinstance(ins, ir.Notify):
                        _eval(ins.value, L, ctx)
                except _Unknown:
                    pass  # it may not fault
                nexts.append((pc + 1, L))
            elif isinstance(ins, (ir.Load, ir.FetchAdd)):
                nexts.append((pc + 1, put(L, ins.dest, ANY)))
            elif isinstance(ins, (ir.Cas, ir.TestEvent)):
                nexts += [(pc + 1, put(L, ins.dest, t)) for t in (0, 1)]
            elif not isinstance(ins, ir.Return):
                nexts.append((pc + 1, L))
        except (_Fault, cint.ModelError):
            pass  # this path stops the process
        for n in nexts:
            if n not in seen:
                if len(seen) > FUTURE_LIMIT:
                    raise TooLarge("a process's own future is too large")
                seen.add(n)
                queue.append(n)
    return out


# ---------------------------------------------------------------- the reference


class Reference:
    """The full reachable graph of `system` (with the reference ghost) and the properties it violates.

    Graph: node = (state, ghost), edge = one or more steps between two nodes; the edge
    attribute `steps` lists (Step, lossy) for each of them.
    """

    def __init__(self, system, clean_exit: bool, max_states: int | None = None):
        self.system = system
        self.program = system.program
        self.clean_exit = clean_exit
        state, self.initial_events = system.initial()
        npos = len(system.init_values)
        self.initial = (state, ((frozenset(),) * npos, (0,) * system.R))
        self.product = self._reachable_graph(max_states)
        self.product_distance = nx.single_source_shortest_path_length(self.product, self.initial)
        # deadlock, events and dirty exit are properties of the system states alone
        self.graph = nx.DiGraph()
        self.graph.add_node(state)
        self.graph.add_edges_from((a[0], b[0]) for a, b in self.product.edges)
        self.distance = nx.single_source_shortest_path_length(self.graph, state)
        self.finals = {s for s in self.graph if system.is_final(s)}
        alive = set(self.finals)
        for f in self.finals:
            alive |= nx.ancestors(self.graph, f)
        self.doomed = set(self.graph) - alive
        self.stuck = self._stuck_states()

    # ------------------------------------------------------------ the reference ghost

    def _readers_meant(self, writer: int, holder: int, launches) -> set:
        R, B = self.system.R, self.system.B
        launch = launches[writer] if writer < R else launches[(writer - R) // B] - 1
        return {("host", holder)} | {("kernel", holder, b, launch) for b in range(B)}

    def _me(self, i: int, launches):
        R, B = self.system.R, self.system.B
        if i < R:
            return ("host", i)
        r, b = divmod(i - R, B)
        return ("kernel", r, b, launches[r] - 1)

    def next_ghost(self, state, ghost, step):
        """The reference ghost after `step` from (state, ghost), and whether the step lost a
        notification (the lossy overwrites, as (position, old, new, reader))."""
        pending, launches = ghost
        pending = list(pending)
        E = self.system.E
        i = step.process
        losses = []
        if isinstance(step.instr, ir.Launch):
            launches = launches[:i] + (launches[i] + 1,) + launches[i + 1:]
        if i >= 0:
            me = self._me(i, ghost[1])
            for pos, *_ in step.reads:
                pending[pos] = pending[pos] - {me}
        for pos, old, new in step.writes:
            holder = pos // E
            # sig-data.md: a STORE is like TNOTIFY Set for every property, a successful CAS
            # stores like a Set, a FETCH_ADD adds like AtomicAdd
            if isinstance(step.instr, (ir.Notify, ir.Store, ir.Cas, ir.FetchAdd)):
                meant = self._readers_meant(i, holder, ghost[1])
                is_set = step.instr.op == ir.SET if isinstance(step.instr, ir.Notify) else \
                    not isinstance(step.instr, ir.FetchAdd)
                if is_set and old != new:
                    losses += [(pos, old, new, p) for p in sorted(pending[pos]) if self.can_lose(state, ghost[1], p, pos, old, new)]
                    pending[pos] = frozenset(meant)
                else:
                    pending[pos] = pending[pos] | meant
            elif old != new:  # reset
                losses += [(pos, old, new, p) for p in sorted(pending[pos]) if self.can_lose(state, ghost[1], p, pos, old, new)]
                pending[pos] = frozenset()
        return (tuple(pending), launches), losses

    def can_lose(self, state, launches, reader, pos, old, new) -> bool:
        """Whether `reader` can still execute a read of `pos` that `old` satisfies and `new` does not."""
        system = self.system
        R, B = system.R, system.B
        if reader[0] == "host":
            r = reader[1]
            entry = state.procs[r]
            code, ctx = self.program.host, {"rank": r}
        else:
            _, r, b, launch = reader
            done = launches[r]  # launches started by rank r
            code, ctx = self.program.kernel, {"rank": r, "block": b, "launch_id": launch}
            if launch == done - 1:
                entry = state.procs[R + r * B + b]
            elif launch >= done:
                entry = (0, 0, ())
            else:
                entry = None
        if entry is None or entry[1] < 0:
            return False
        reads = future_reads(self.program, code, ctx, r, entry[0], entry[2])
        # an unknown operand (ANY) may be old or new, which decides every comparison
        return any(p == pos and any(HOLDS[cmp](old, w) and not HOLDS[cmp](new, w) for w in ((old, new) if v is ANY else (v,)))
                   for p, cmp, v in reads)

    # ------------------------------------------------------------ the graph

    def _reachable_graph(self, max_states: int | None) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_node(self.initial)
        queue = deque([self.initial])
        while queue:
            node = queue.popleft()
            state, ghost = node
            steps = self.system.successors(state)
            self._check_choices(state, steps)
            self._check_block_barriers(state, steps)
            for step in steps:
                ghost2, losses = self.next_ghost(state, ghost, step)
                nxt = (step.next, ghost2)
                if nxt not in g:
                    if max_states is not None and g.number_of_nodes() >= max_states:
                        raise TooLarge(f"more than {max_states} states")
                    g.add_node(nxt)
                    queue.append(nxt)
                if g.has_edge(node, nxt):
                    g.edges[node, nxt]["steps"].append((step, bool(losses)))
                else:
                    g.add_edge(node, nxt, steps=[(step, bool(losses))])
        return g

    def _check_choices(self, state, steps) -> None:
        """A process at an `any(lo, hi)` has one step per value of [lo, hi], computed here with
        this file's own interpreter (a fault step when the range is empty or too wide)."""
        system = self.system
        for i, p in enumerate(state.procs):
            if p is None or p[1] < 0:
                continue
            code = self.program.host if i < system.R else self.program.kernel
            ins = code.instrs[p[0]]
            if not isinstance(ins, ir.Choose):
                continue
            r, b = (i, 0) if i < system.R else divmod(i - system.R, system.B)
            ctx = {"rank": r} if i < system.R else {
                "rank": r, "block": b, "launch_id": state.launches[r] - 1 if state.launches else 0}
            lo, hi = _eval(ins.lo, p[2], ctx), _eval(ins.hi, p[2], ctx)
            mine = [s for s in steps if s.process == i]
            if lo > hi or hi - lo + 1 > ir.MAX_CHOICES:
                assert len(mine) == 1 and [ev.kind for ev in mine[0].events] == ["error"], mine
                continue
            got = sorted(s.events[0].value for s in mine)
            assert got == list(range(lo, hi + 1)), (got, lo, hi)

    def _check_block_barriers(self, state, steps) -> None:
        """Rank r's joint block_barrier step is enabled exactly when every block of its launch
        stands at a block_barrier (a finished block never arrives); it moves all of them, and
        the blocks at a block_barrier take no step of their own."""
        system, code = self.system, self.program.kernel
        R, B = system.R, system.B
        for r in range(R):
            blocks = [state.procs[R + r * B + b] for b in range(B)]
            at = [p is not None and p[1] >= 0 and isinstance(code.instrs[p[0]], ir.BlockBarrier) for p in blocks]
            joint = [s for s in steps if s.process == -2 - r]
            assert len(joint) == (1 if all(at) else 0), (r, blocks, joint)
            for b, here in enumerate(at):
                if here:
                    assert not any(s.process == R + r * B + b for s in steps)
            for s in joint:
                changed = [k for k in range(len(state.procs)) if s.next.procs[k] != state.procs[k]]
                assert set(changed) <= set(range(R + r * B, R + (r + 1) * B)) and s.next.signals == state.signals

    def states(self) -> set:
        """The reachable system states."""
        return set(self.graph)

    def transitions(self):
        """Every (source node, Step, target node, lossy) of the product, one per step."""
        for a, b, steps in self.product.edges(data="steps"):
            for step, lossy in steps:
                yield a, step, b, lossy

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

    def _sources(self, prop: str) -> list:
        """The source states (nodes, for lost_notification) of the transitions that show `prop`."""
        if prop == "lost_notification":
            return [a for a, _, _, lossy in self.transitions() if lossy]
        return [a[0] for a, step, _, _ in self.transitions() if any(getattr(ev, "kind", None) == prop
                                                                  for ev in step.events)]

    def dirty_finals(self) -> list:
        return [s for s in self.finals if self.system.dirty(s)]

    def violated(self, clean_exit: bool | None = None) -> set[str]:
        """The violated properties; `clean_exit` overrides the spec's `check clean_exit;`."""
        clean_exit = self.clean_exit if clean_exit is None else clean_exit
        found = set()
        for prop in EVENT_PROPERTIES:
            if any(ev.kind == prop for ev in self.initial_events) or self._sources(prop):
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
        to a nearest stuck node (deadlock), dirty final node (dirty_exit), or source of an
        edge showing `prop` plus that edge (0 when the initial state's own events show it)."""
        if prop == "deadlock":
            return min(self.distance[n] for n in self.stuck)
        if prop == "dirty_exit":
            return min(self.distance[n] for n in self.dirty_finals())
        if prop in EVENT_PROPERTIES and any(ev.kind == prop for ev in self.initial_events):
            return 0
        if prop == "lost_notification":
            return min(self.product_distance[a] for a in self._sources(prop)) + 1
        return min(self.distance[a] for a in self._sources(prop)) + 1

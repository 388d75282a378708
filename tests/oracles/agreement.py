"""The checker against the plain references: the agreement checks the differential tests
(tests/model/) and the deep runs (tests/deep/) share.

`agree` (the plain search, BFS and DFS, against the networkx reference), `reduced_agrees`
and `data_reduced_agrees` (partial-order reduction; with `symmetric`, the rank rotation over
data), `symmetric_agrees` and
`symmetry_is_real` (rank-rotation symmetry), `data_agrees` (data_race against the
brute-force happens-before reference); `replay` follows a reported trace on the unreduced
transition system. Each takes a spec text and fails with the disagreement.
"""

from __future__ import annotations

from collections import Counter

from helpers import check_text
from helpers import compile_text as compile_spec_text
from hypothesis import HealthCheck, reject, settings
from oracles.reference import EVENT_PROPERTIES, Reference, TooLarge
from oracles.reference_hb import RaceReference

from checker.check import Options, check_program
from checker.explore import explore
from checker.properties import Monitor
from model import System, compile_spec, ir, parse
from model.semantics import Semantics
from model.independence import Reduction
from model.symmetry import Symmetry
from model.system import Chosen


MAX_STATES = 4000  # larger random specs are skipped (rejected), not checked


DEEP = settings(max_examples=3000, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def compile_text(text: str):
    return compile_spec(parse(text, "x.sig"), {})


def build_reference(program, atomic_waits: bool, max_states: int | None = MAX_STATES) -> Reference:
    return Reference(System(program, Semantics(tensor_wait="atomic" if atomic_waits else "pass")), program.clean_exit, max_states=max_states)


def replay(ref: Reference, violation) -> None:
    """Follow the trace on the transition system; its end must violate the property."""
    system = ref.system
    node, events, losses = ref.initial, ref.initial_events, []
    for n, shown in enumerate(violation.trace, 1):
        assert shown.step == n
        writes = tuple((e.element.name, e.old, e.new) for e in shown.effects if e.kind == "write")
        chose = tuple((e.name, e.value) for e in shown.effects if e.kind == "choose")
        matches = []
        for step in system.successors(node[0]):
            shown_writes = tuple((system.element(p).name, old, new) for p, old, new in step.writes
                                 if old != new or not isinstance(step.instr, ir.Reset))
            step_chose = tuple((ev.name, ev.value) for ev in step.events if isinstance(ev, Chosen))
            if (system.process_name(step.process), step.instr.span, step.instr.text, shown_writes, step_chose) == \
                    (shown.process, shown.span, shown.statement, writes, chose):
                matches.append(step)
        assert len(matches) == 1, f"{violation.property}: step {n} {shown} matches {len(matches)} successors"
        ghost, losses = ref.next_ghost(node[0], node[1], matches[0])
        node, events = (matches[0].next, ghost), matches[0].events
    prop = violation.property
    if prop == "deadlock":
        assert not ref.can_finish(node[0]), "the deadlock trace ends in a state that can still finish"
        assert node[0] in ref.stuck, "the deadlock trace does not end in a stuck state"
    elif prop in EVENT_PROPERTIES:
        assert any(getattr(ev, "kind", None) == prop for ev in events), f"the last step of the {prop} trace has no {prop} event"
    elif prop == "lost_notification":
        assert losses, "the last step of the lost_notification trace loses no notification"
    elif prop == "dirty_exit":
        assert system.is_final(node[0]) and system.dirty(node[0]), "the dirty_exit trace ends clean or unfinished"
    else:
        raise AssertionError(f"unknown property {prop}")


def agree(text: str, atomic_waits: bool = False, max_states: int | None = MAX_STATES) -> Reference:
    """Check `text` with the checker (BFS and DFS) and with the reference; they must agree."""
    program = compile_text(text)
    try:
        ref = build_reference(program, atomic_waits, max_states)
    except TooLarge:
        reject()
    nodes = ref.states()
    transitions = sum(len(ref.system.successors(s)) for s in nodes)
    expected = ref.violated()
    for order in ("bfs", "dfs"):
        system = System(program, Semantics(tensor_wait="atomic" if atomic_waits else "pass"))
        ex = explore(system, Monitor(system), order=order)
        assert ex.complete and set(ex.states) == nodes, f"{order}: a different reachable state set"
        result = check_program(program, "x.sig", Options(order=order, semantics=Semantics(tensor_wait="atomic" if atomic_waits else "pass"), por=False, symmetry=False))
        assert result.stop is None, result.stop
        assert result.stats.states == len(nodes), f"{order}: a different number of reachable states"
        assert result.stats.transitions == transitions
        assert set(result.violated) == expected, f"{order}: checker {result.violated}, reference {sorted(expected)}"
        assert len(result.violations) == len(expected), "one counterexample per violated property"
        for v in result.violations:
            if order == "bfs":
                assert len(v.trace) == ref.shortest(v.property), \
                    f"{v.property}: BFS trace of {len(v.trace)} steps, shortest is {ref.shortest(v.property)}"
            replay(ref, v)
    if not program.clean_exit:  # `--check clean_exit` on the command line
        result = check_program(program, "x.sig", Options(semantics=Semantics(tensor_wait="atomic" if atomic_waits else "pass"), clean_exit=True, por=False, symmetry=False))
        assert set(result.violated) == ref.violated(clean_exit=True)
        for v in result.violations:
            if v.property == "dirty_exit":
                assert len(v.trace) == ref.shortest("dirty_exit")
                replay(ref, v)
    return ref


def data_agrees(text: str, memory_model: str) -> None:
    program = compile_spec_text(text)
    ref = RaceReference(System(program, Semantics(memory_model=memory_model)))
    try:
        expected = ref.has_race()
    except (OverflowError, RecursionError):
        reject()
    r = check_text(text, memory_model=memory_model, max_states=50_000)
    if r.stop is not None:
        reject()
    assert ("data_race" in r.violated) == expected, f"checker {r.violated}, reference race={expected}"


DATA = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


DEEP_DATA = settings(DATA, max_examples=1500, derandomize=False, database=None)  # pytest -m deep --hypothesis-seed=N


def reduced_agrees(text: str, atomic_waits: bool = False, max_states: int = 4000) -> None:
    program = compile_text(text)
    try:
        ref = build_reference(program, atomic_waits, max_states)
    except TooLarge:
        reject()
    everything = len(ref.states())
    terminal = [ref.distance[n] for n in ref.stuck if not ref.system.successors(n)]
    for clean_exit in (False, True):
        expected = ref.violated(clean_exit=clean_exit or program.clean_exit)
        for order in ("bfs", "dfs"):
            result = check_program(program, "x.sig", Options(order=order, semantics=Semantics(tensor_wait="atomic" if atomic_waits else "pass"),
                                                             clean_exit=clean_exit))
            assert result.stop is None, result.stop
            assert set(result.violated) == expected, \
                f"{order}: reduced {sorted(result.violated)}, reference {sorted(expected)}"
            assert result.stats.states <= everything
            for v in result.violations:
                replay(ref, v)
                if v.property == "deadlock" and order == "bfs" and terminal and \
                        min(terminal) == ref.shortest("deadlock"):
                    # a terminal deadlock is reached by a permutation of a shortest path
                    assert len(v.trace) == ref.shortest("deadlock")


def data_reduced_agrees(text: str, memory_model: str = "pto", symmetric: bool = False) -> None:
    """The reduced search judges a data program as the plain search does (which
    tests/model/test_data.py holds to the brute-force happens-before reference), for BFS and DFS,
    with and without `check clean_exit`, and never stores more states. With `symmetric` the
    program is a symmetric one: the rank rotation (over the happens-before clocks too) must be
    used, with and without the partial-order reduction. Each counterexample is a run of the
    unreduced semantics: a race's names two accesses of its own trace (checker/races.py finds
    them there), the others replay step by step (but one with a TEST_EVENT step, whose two
    outcomes look the same in a trace)."""
    program = compile_text(text)
    semantics = Semantics(memory_model=memory_model)
    try:
        ref = Reference(System(program, semantics), program.clean_exit, max_states=4000)
    except TooLarge:
        reject()
    for clean_exit in (False, True):
        for order in ("bfs", "dfs"):
            plain = check_program(program, "x.sig", Options(order=order, semantics=semantics, clean_exit=clean_exit,
                                                            por=False, symmetry=False))
            assert plain.stop is None
            for por in (False, True) if symmetric else (True,):
                result = check_program(program, "x.sig", Options(order=order, semantics=semantics,
                                                                 clean_exit=clean_exit, por=por))
                assert result.stop is None
                if symmetric:
                    assert result.stats.symmetry is not None, "the rotation was not used"
                assert result.violated == plain.violated, \
                    f"{order} por={por}: reduced {result.violated}, plain {plain.violated}"
                assert result.stats.states <= plain.stats.states
                for v in result.violations:
                    if v.property == "data_race":
                        _race_is_in_its_trace(v)
                    elif not any(t.statement.startswith("TEST_EVENT") for t in v.trace):
                        replay(ref, v)


def _race_is_in_its_trace(v) -> None:
    r, last = v.race, v.trace[-1]
    assert (r.second.process, r.second.span) == (last.process, last.span), "the race's second access is not " \
        "the trace's last step"
    assert any((t.process, t.span) == (r.first.process, r.first.span) for t in v.trace[:-1]), \
        "the race's first access is not a step of its trace"
    assert r.first.process != r.second.process and r.first.element == r.second.element


MAX = 3000


def reachable(system, limit=MAX):
    init = system.initial()[0]
    seen = {init: system.successors(init)}
    todo = [init]
    while todo:
        s = todo.pop()
        for step in seen[s]:
            if step.next not in seen:
                if len(seen) >= limit:
                    raise TooLarge
                seen[step.next] = system.successors(step.next)
                todo.append(step.next)
    return seen


def _event_kinds(step, sym, k):
    out = []
    for ev in step.events:
        kind = type(ev).__name__
        if kind == "Fault":
            out.append((kind, ev.kind, ev.span, sym.process(ev.process, k)))
        elif kind == "Overwrite":
            out.append((kind, ev.old, ev.new, len(ev.readers)))
        else:
            out.append((kind,))
    return tuple(sorted(map(repr, out)))


def symmetry_is_real(text: str, atomic_waits: bool = False) -> Symmetry | None:
    system = System(compile_text(text), Semantics(tensor_wait="atomic" if atomic_waits else "pass"))
    sym, reasons = Symmetry.rotation_of(system)
    if sym is None:
        assert reasons and all(r.message for r in reasons)
        return None
    try:
        graph = reachable(system)
    except TooLarge:
        reject()
    rotation_maps_the_graph(sym, graph)
    return sym


def rotation_maps_the_graph(sym, graph) -> None:
    """Renaming by +1 maps every state of `graph` (the whole unreduced graph) to a state of it
    and its successors, with their processes and events, onto the image's; every rotation
    of a state has the state's representative."""
    for s, steps in graph.items():
        image = sym.rotate(s, 1)
        assert image in graph, "a renamed reachable state is not reachable"
        want = Counter((sym.rotate(t.next, 1), sym.process(t.process, 1), _event_kinds(t, sym, 1)) for t in steps)
        have = Counter((t.next, t.process, _event_kinds(t, sym, 0)) for t in graph[image])
        assert want == have, "renaming does not map the successors onto the successors"
        rep, k = sym.canon_k(s)
        assert rep == sym.rotate(s, k)
        assert all(sym.canon(sym.rotate(s, j)) == rep for j in range(sym.R)), "two representatives for one orbit"


def symmetric_agrees(text: str, atomic_waits: bool = False) -> None:
    program = compile_text(text)
    try:
        ref = build_reference(program, atomic_waits, MAX)
    except TooLarge:
        reject()
    everything = len(ref.states())
    for clean_exit in (False, True):
        expected = ref.violated(clean_exit=clean_exit or program.clean_exit)
        for order in ("bfs", "dfs"):
            for por in (False, True):
                result = check_program(program, "x.sig", Options(order=order, semantics=Semantics(tensor_wait="atomic" if atomic_waits else "pass"),
                                                                 clean_exit=clean_exit, por=por))
                assert result.stop is None, result.stop
                assert set(result.violated) == expected, \
                    f"{order} por={por}: symmetric {sorted(result.violated)}, reference {sorted(expected)}"
                assert result.stats.states <= everything
                for v in result.violations:
                    replay(ref, v)


def blocks_are_real(text: str, atomic_waits: bool = False):
    """The block permutations (model/symmetry.py `Blocks`) that the detector claims, checked on
    the whole unreduced graph: each generator (a transposition of two neighbouring blocks of
    a class, on one rank or on every rank alike, and the rotation by one rank if there is
    one) maps every reachable state to a reachable state and its successors, with their
    processes and events, onto the image's successors; the group's composition and inverse
    act as they say; each state's representative is in its orbit, and with a permutation
    per rank it is the same for every image of the state under a generator."""
    system = System(compile_text(text), Semantics(tensor_wait="atomic" if atomic_waits else "pass"))
    sym, reasons = Symmetry.of(system)
    if sym is None or sym.group != "blocks":
        reject()
    try:
        graph = reachable(system)
    except TooLarge:
        reject()
    blocks_map_the_graph(sym, graph)
    return sym


def blocks_map_the_graph(sym, graph) -> None:
    """`blocks_are_real` on the whole unreduced graph `graph`."""
    gens = []
    for p in sym._generators():
        if sym.per_rank:
            gens += [(0, sym._one(r, p)) for r in range(sym.R)]
        else:
            gens.append((0, sym._one(0, p)))
    if sym.rotation is not None:
        gens.append((1, None))
    for s, steps in graph.items():
        for g in gens:
            image = sym.apply(s, g)
            assert image in graph, f"a renamed reachable state is not reachable ({g})"
            want = Counter((sym.apply(t.next, g), sym.process(t.process, g), _event_kinds(t, sym, g)) for t in steps)
            have = Counter((t.next, t.process, _event_kinds(t, sym, sym.identity)) for t in graph[image])
            assert want == have, f"renaming by {g} does not map the successors onto the successors"
            back = sym.apply(image, sym.inverse(g))
            assert back == s, "the inverse does not undo the renaming"
        for a in gens:
            for b in gens:
                ab = sym.compose(b, a)
                assert sym.apply(sym.apply(s, a), b) == sym.apply(s, ab), "composition is not renaming twice"
                assert sym.apply(sym.apply(s, ab), sym.inverse(ab)) == s, "the inverse does not undo a composition"
        rep, g = sym.canon_k(s)
        assert rep == sym.apply(s, g), "the representative is not the state renamed"
        assert sym.canon_k(rep) == (rep, sym.canon_k(rep)[1]) and sym.canon(rep) == rep, \
            "the representative of a representative is another state"
        if sym.per_rank:
            assert all(sym.canon(sym.apply(s, h)) == rep for h in gens), "two representatives for one orbit"


def same_stubborn_sets(program, atomic_waits: bool = False, limit: int = MAX) -> int | None:
    """On every reachable state: the stubborn set the reduction picks when each rank's future
    is rank 0's renamed (model/independence.py with the symmetry) is the one it picks when
    every rank's future is computed on its own. Returns how many states had a proper subset
    (None: no symmetry, no reduction, or too many states to compare)."""
    system = System(program, Semantics(tensor_wait="atomic" if atomic_waits else "pass"))
    sym, _ = Symmetry.of(system)
    own = Reduction(system)
    if sym is None or not own.enabled:
        return None
    shared = Reduction(system, symmetry=sym)
    try:
        graph = reachable(system, limit)
    except TooLarge:
        return None
    chosen = 0
    for s, steps in graph.items():
        want, got = own.ample(s, steps), shared.ample(s, steps)
        assert (None if want is None else [t.label for t in want]) == (None if got is None else [t.label for t in got])
        chosen += want is not None
    return chosen

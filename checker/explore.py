"""Exhaustive state-space exploration. Entry point: `explore`.

One loop; the frontier (BFS queue or DFS stack) is a parameter. Each state is stored once,
packed, in a visited-state store (checker/store.py: exact by default, 64-bit fingerprints
with `store="fingerprint"`), with its predecessor and the label of the step that reached it;
traces, and any state by its index, are rebuilt from those pointers by taking the steps
again. The explorer knows the model only through `initial()`, `successors(state)` and
`step(state, label)` (step records); it hands every step with events and every expanded state
to a judge, which may ask it to stop. It keeps the successor lists (one 32-bit index per
distinct successor) only because a spinning deadlock needs the graph, and the identities of
the instructions that some enabled step of an expanded state executes (`executed`: coverage).
"""

from __future__ import annotations

import os
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Callable, Protocol

from checker.result import Stop
from checker.store import make_store
from model.system import LocalStepLimit


class Judge(Protocol):
    # dead_ends_only: bool (optional) -- `expanded` judges only states with no step, so the
    # compiled search (checker/native.py) calls it only for those
    # judges_overwrites: bool (optional, default True) -- False once Overwrite events can no
    # longer change a finding: the compiled search then takes their steps in C
    def initial(self, state, events: tuple) -> bool: ...
    def step(self, src: int, state, step, dst: int) -> bool: ...
    def expanded(self, index: int, state, nsteps: int) -> bool: ...


class _States:
    """The stored states as a read-only sequence (index -> State), rebuilt on demand."""

    def __init__(self, ex: "Exploration"):
        self._ex = ex

    def __len__(self) -> int:
        return len(self._ex.store)

    def __getitem__(self, i: int):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self._ex.state(i % n)

    def __iter__(self):
        return (self._ex.state(i) for i in range(len(self)))


@dataclass
class Exploration:
    store: object  # checker/store.py: packed state -> index (0 = the initial state)
    system: object
    initial: object  # the initial State
    parent: array  # index -> predecessor index (-1 for the initial state)
    label: array  # index -> label of the step that reached it from its predecessor
    succ: array  # distinct successors other than the state itself, per expanded state in order
    order: array  # expanded states, in the order they were expanded
    count: array  # ... and how many entries of `succ` each has
    final: bytearray  # index -> 1 for an expanded state in which every process has finished
    key_of: Callable  # State -> its store key (what `explore` stored it under)
    transitions: int = 0
    stop: Stop | None = None
    seconds: float = 0.0
    peak_bytes: int = 0
    extra: dict = field(default_factory=dict)
    symmetry: object = None  # the model.symmetry.Symmetry whose representatives are stored, if any
    executed: set = field(default_factory=set)  # id() of every instruction an enabled step of an expanded state takes

    @property
    def complete(self) -> bool:
        return self.stop is None

    @property
    def states(self) -> _States:
        return _States(self)

    def state(self, index: int):
        """The state of `index`: unpacked from the exact store, or rebuilt by taking the steps of
        its predecessor chain again from the initial state (the fingerprint store keeps no state)."""
        if self.store.kind == "exact":
            return self.store.state(index)
        path = []
        while index > 0:
            path.append(index)
            index = self.parent[index]
        state = self.initial
        for k in reversed(path):
            state = self.system.step(state, self.label[k]).next
            if self.symmetry is not None:
                state = self.symmetry.canon(state)
        return state

    def each_state(self):
        """Every stored state once, in index order: unpacked from the exact store, or (fingerprint
        store) rebuilt by one step from its predecessor's, which is held only until its last
        successor is rebuilt (so a pass costs one step per state, not one per step of its trace)."""
        n = len(self.store)
        if self.store.kind == "exact":
            yield from (self.store.state(i) for i in range(n))
            return
        parent, label, step, canon = self.parent, self.label, self.system.step, self.symmetry
        last = array("i", [-1]) * n  # index -> the index of its last successor in the store
        for i in range(1, n):
            last[parent[i]] = i
        held = {0: self.initial}
        yield self.initial
        for i in range(1, n):
            p = parent[i]
            state = step(held[p], label[i]).next
            if canon is not None:
                state = canon.canon(state)
            if last[p] == i:
                del held[p]
            if last[i] >= 0:
                held[i] = state
            yield state

    def index(self, state) -> int:
        """The index of a stored state, or -1."""
        return self.store.find(self.key_of(state))

    def store_bytes(self) -> int:
        """Bytes held for the stored states: the store, the predecessor links and labels."""
        return self.store.nbytes() + self.parent.itemsize * len(self.parent) + self.label.itemsize * len(self.label)

    def graph_bytes(self) -> int:
        """Bytes of the successor lists kept for the spinning-deadlock analysis."""
        return sum(a.itemsize * len(a) for a in (self.succ, self.order, self.count)) + len(self.final)


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def explore(system, judge: Judge, *, order: str = "bfs", max_states: int | None = None,
            deadline: float | None = None, max_memory: int | None = None,
            progress: Callable[[int, int, float], None] | None = None,
            reduce: Callable | None = None, store: str = "exact", symmetry=None, watch=None,
            engine: str = "auto", cycles: Callable[[], Callable | None] | None = None) -> Exploration:
    """Explore every reachable state of `system` (BFS by default: first traces are shortest).
    `deadline` is a time.monotonic() value. `reduce(state, steps)` may name a stubborn subset
    of the enabled steps to follow instead of all (partial-order reduction); the cycle
    proviso is applied here: a state is expanded fully when a step of the subset leads back
    to itself or to a state already expanded, so every cycle of the reduced graph has a fully
    expanded state. `cycles()`, asked once, the first time the proviso would expand a
    state fully (model/independence.py `Reduction.cycles`), answers None when the state graph
    has no cycle: the proviso is then left out for the rest of the search; or a function
    (state, step) -> whether the step may lie on a cycle: only such a step (or one back to
    its own state) then calls for the full expansion, since every cycle of the reduced graph
    is made of them. `store`
    is "exact" or "fingerprint" (checker/store.py). With `symmetry`
    (model/symmetry.py) every state is stored as the representative of its orbit,
    `symmetry.canon(state)`: a stored link then means "the step with that label from the
    predecessor leads to a state in this one's orbit" (checker/trace.py rebuilds concrete
    traces from that). `ex.executed` records the id() of every instruction some enabled step
    takes; with `watch` (instructions), only of those, and the search stops recording once
    every one of them has been taken (coverage costs nothing after that). `engine` "auto" runs
    the search compiled (checker/native.py) where it applies, "python" always here; both give
    the same Exploration."""
    return run(exploring(system, judge, order=order, max_states=max_states, deadline=deadline,
                         max_memory=max_memory, progress=progress, reduce=reduce, store=store,
                         symmetry=symmetry, watch=watch, engine=engine, cycles=cycles))


def run(search) -> Exploration:
    """Take a search of `exploring` to its end; its Exploration."""
    while True:
        try:
            next(search)
        except StopIteration as end:
            return end.value


def exploring(system, judge: Judge, *, order: str = "bfs", max_states: int | None = None,
              deadline: float | None = None, max_memory: int | None = None,
              progress: Callable[[int, int, float], None] | None = None,
              reduce: Callable | None = None, store: str = "exact", symmetry=None, watch=None,
              engine: str = "auto", cycles: Callable[[], Callable | None] | None = None):
    """`explore` as a generator that yields, every 64 expansions (256 compiled), the work done so
    far (here: the states stored), and returns its Exploration (StopIteration.value): so that
    two searches can take turns (checker/race.py). The points where it yields and what it
    yields depend only on the search, never on the clock."""
    if engine == "auto":
        from checker.native import exploring_native, why_not

        if why_not(system, reduce=reduce, symmetry=symmetry, store=store, judge=judge) is None:
            return (yield from exploring_native(system, judge, order=order, max_states=max_states,
                                                deadline=deadline, max_memory=max_memory, progress=progress,
                                                watch=watch))
    start = time.monotonic()
    init, init_events = system.initial()
    if symmetry is not None:
        init = symmetry.canon(init)
    # long signal vectors and ghost marks are interned a rank's worth at a time (short ones whole:
    # cheaper)
    visited = make_store(store, system.nprocs, chunk=system.E if system.R * system.E >= 256 else 0,
                         ghost_chunk=-(-system.G // system.R) if system.G >= 256 else 0)
    # the one place a state becomes its store key (a canonicalisation, e.g. under symmetry,
    # goes here); a key is added or looked up right after it is made
    codec = visited.codec
    pack = codec.pack
    if symmetry is not None:
        canon, raw = symmetry.canon, codec.pack

        def pack(state):
            return raw(canon(state))
    add, find = visited.add, visited.find
    add(pack(init))
    ex = Exploration(store=visited, system=system, initial=init, parent=array("i", [-1]), label=array("i", [0]),
                     succ=array("i"), order=array("i"), count=array("i"), final=bytearray(1), key_of=pack,
                     symmetry=symmetry)
    if judge.initial(init, init_events):
        ex.stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
        return finished(ex, start)
    # the frontier holds what the store needs to give a state back: its index (exact), or its
    # index and packed key (fingerprint: the store keeps neither the state nor the key)
    if visited.kind == "exact":
        frontier = deque([0])

        def held(t, key):
            return t

        def restore(t):
            return t, visited.state(t)
    else:
        frontier = deque([(0, pack(init))])
        unpack = visited.codec.unpack

        def held(t, key):
            return t, key

        def restore(item):
            return item[0], unpack(item[1])
    take = frontier.popleft if order == "bfs" else frontier.pop
    successors = system.successors
    # every enabled step is a real one, taken or not by a reduction
    watched = None if watch is None else {id(i) for i in watch}
    pending = ex.executed = set(watched) if watched is not None else ex.executed
    record = pending.difference_update if watched is not None else pending.update
    instr_of = attrgetter("instr")
    parent, labels, succ, final = ex.parent, ex.label, ex.succ, ex.final
    transitions = 0
    expanded = 0
    done = bytearray(1)  # index -> 1 once expanded (for the cycle proviso)
    proviso = True
    ask, on_cycle = cycles, _always  # `cycles`, until asked
    full = 0  # states the proviso expanded fully
    limit = max_states if max_states is not None else -1
    try:
        while frontier:
            item = take()
            expanded += 1
            if expanded & 63 == 0:  # the clock often: a state of a large spec can take 30 ms
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    ex.stop = Stop("timeout", "")
                    frontier.append(item)
                    break
                yield len(visited)
            if expanded & 1023 == 0:
                if max_memory is not None and expanded & 4095 == 0:
                    rss = rss_bytes()
                    ex.peak_bytes = max(ex.peak_bytes, rss)
                    if rss > max_memory:
                        ex.stop = Stop("memory", f"memory limit of {max_memory // 2**20} MiB reached")
                        break
                if progress is not None:
                    progress(len(visited), transitions, now - start)
            s, state = restore(item)
            steps = all_steps = successors(state)
            if pending or watched is None:
                record(map(id, map(instr_of, all_steps)))
            keys = None
            if reduce is not None:
                kept = reduce(state, steps)
                if kept is not None and not proviso:
                    steps = kept
                elif kept is not None:
                    keys = []
                    generation = codec.generation
                    for step in kept:
                        key = pack(step.next)
                        t = find(key)
                        if t >= 0 and (t == s or done[t]):
                            if ask is not None:
                                on_cycle, ask = ask(), None
                                if on_cycle is None:  # no cycle to close: no proviso
                                    proviso = False
                            if proviso and (t == s or on_cycle(state, step)):
                                full += 1
                                keys = None
                                break
                        keys.append(key)
                    else:
                        steps = kept
                        if codec.generation != generation:  # the keys' entry ids grew wider meanwhile
                            keys = None
            mine: list = []  # the distinct successors of s other than itself
            stop = False
            for n, step in enumerate(steps):
                nxt = step.next
                key = pack(nxt) if keys is None else keys[n]
                if limit >= 0 and len(visited) >= limit:
                    t = find(key)
                    if t < 0:
                        ex.stop = Stop("max_states", f"state limit of {max_states} reached")
                        stop = True
                        break
                else:
                    t, new = add(key)
                    if new:
                        parent.append(s)
                        labels.append(step.label)
                        frontier.append(held(t, key))
                        done.append(0)
                        final.append(0)
                transitions += 1
                if t != s and t not in mine:
                    mine.append(t)
                if step.events and judge.step(s, state, step, t):
                    ex.stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
                    stop = True
                    break
            if stop:
                break
            succ.extend(mine)
            done[s] = 1
            if not all_steps and system.is_final(state):
                final[s] = 1
            ex.order.append(s)
            ex.count.append(len(mine))
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
    if watched is not None:
        ex.executed = watched - pending
    if reduce is not None:
        ex.extra["proviso_full"] = full
    return finished(ex, start)


def _always(state, step) -> bool:
    return True


def finished(ex: Exploration, start: float) -> Exploration:
    ex.seconds = time.monotonic() - start
    ex.peak_bytes = max(ex.peak_bytes, rss_bytes())
    return ex

"""A brute-force reference for data races (contract sig-data.md), for the differential tests.

It shares nothing with model/hb.py: it walks every execution of a small program (every
path of `model.System`'s steps from the initial state, to its end or to a depth bound),
computes for each event the set of events that happen before it straight from the
contract's definition (program order with the pto exception, synchronizes-with through
release sequences, launch / join / host_barrier order, async transfers joined by
WAIT_EVENT or a true TEST_EVENT), and compares every pair of conflicting accesses of the
execution. No vector clocks, no last-access summary.
"""

from __future__ import annotations

from model import ir


class Knowledge:
    """The reference's view of one execution prefix (immutable: every step makes a new one)."""

    __slots__ = ("know", "last", "rel", "pend", "fenced", "pipe", "writes", "transfers", "accesses", "n", "know_of",
                 "fresh")

    def __init__(self):
        self.know = {}  # process -> frozenset of event ids that happen before its next event
        self.last = {}  # process -> its last event id
        self.rel = {}  # signal position -> frozenset carried by its release sequence
        self.pend = {}  # process -> frozenset a multi-element pass would acquire
        self.fenced = {}  # process -> event ids of its data writes covered by a complete fence
        self.pipe = {}  # process -> its data writes before its last pipe_barrier(PIPE_ALL)
        self.writes = {}  # process -> its data-write event ids
        self.transfers = {}  # (process, event number) -> (transfer event id, what it knows)
        self.accesses = ()  # (event id, process, data position, kind)
        self.n = 0
        self.know_of = {}  # event id -> the events that happen before it
        self.fresh = 0  # how many of the accesses the last step added

    def copy(self):
        k = Knowledge()
        for f in self.__slots__:
            v = getattr(self, f)
            setattr(k, f, dict(v) if isinstance(v, dict) else v)
        return k


def _conflict(a: str, b: str) -> bool:
    return (a != "read" or b != "read") and not (a == "atomic" and b == "atomic")


class RaceReference:
    def __init__(self, system, max_depth: int = 60, max_paths: int = 200_000, max_steps: int = 200_000):
        self.system = system
        self.sc = system.memory_model == "sc"
        self.max_depth = max_depth
        self.max_paths = max_paths
        self.max_steps = max_steps  # an example with more executions than this is skipped, not judged
        self.paths = 0
        self.steps = 0

    def has_race(self) -> bool:
        state, _ = self.system.initial()
        k = Knowledge()
        for h in range(self.system.R):
            k.know[h] = frozenset()
        return self._walk(state, k, 0)

    def _walk(self, state, k, depth) -> bool:
        if depth >= self.max_depth:
            return False
        steps = self.system.successors(state)
        if not steps:
            self.paths += 1
            if self.paths > self.max_paths:
                raise OverflowError("too many executions")
            return False
        for step in steps:
            self.steps += 1
            if self.steps > self.max_steps:
                raise OverflowError("too many executions")
            k2 = self.apply(k, step, state)
            if self._new_race(k2) or self._walk(step.next, k2, depth + 1):
                return True
        return False

    # ------------------------------------------------------------ one step

    def _event(self, k, p) -> int:
        """A new event of process p, after everything p knows (program order)."""
        e = k.n
        k.n += 1
        prev = k.last.get(p)
        base = k.know.get(p, frozenset())
        if prev is not None:
            base = base | {prev}
        k.know[p] = base
        k.last[p] = e
        k.know_of[e] = base
        return e

    def _release(self, k, p) -> frozenset:
        """What a signal write by p carries: all it knows, but (pto) not its own unfenced data
        writes."""
        carried = k.know[p] | {k.last[p]}
        if self.sc:
            return carried
        unfenced = k.writes.get(p, frozenset()) - k.fenced.get(p, frozenset())
        return carried - unfenced

    def apply(self, k, step, state):
        system = self.system
        k = k.copy()
        n_before = len(k.accesses)
        k.fresh = 0
        ins = step.instr
        if step.process == -1:  # host_barrier: every host knows what every host did
            events = [self._event(k, h) for h in range(system.R)]
            every = frozenset().union(*(k.know[h] for h in range(system.R))) | set(events)
            for h in range(system.R):
                k.know[h] = every
            return k
        p = step.process
        e = self._event(k, p)
        if isinstance(ins, ir.Launch):
            for b in range(system.B):
                q = system.R + p * system.B + b
                k.know[q] = k.know[p] | {e}
                k.last.pop(q, None)
                k.pend.pop(q, None)
        elif isinstance(ins, ir.Join):
            for b in range(system.B):
                q = system.R + p * system.B + b
                if q in k.last:
                    k.know[p] = k.know[p] | k.know[q] | {k.last[q]}
            k.know_of[e] = k.know[p]
        # acquires: completed waits, true tests, loads, fetch-adds and CAS reads
        if step.reads:
            positions = [r[0] for r in step.reads]
            if isinstance(ins, (ir.Wait, ir.Test)):
                entry, before = step.next.procs[p], state.procs[p]
                ok = all(r[3] for r in step.reads)
                mid_pass = ok and entry is not None and entry[0] == before[0] and entry[1] == before[1] + 1
                completed = not mid_pass and not (isinstance(ins, ir.Wait) and not ok)
                if not completed:  # inside a multi-element pass
                    if ok:
                        k.pend[p] = k.pend.get(p, frozenset()).union(*(k.rel.get(q, frozenset()) for q in positions))
                    else:
                        k.pend.pop(p, None)
                else:
                    gained = k.pend.pop(p, frozenset())
                    if ok:
                        gained = gained.union(*(k.rel.get(q, frozenset()) for q in positions))
                        k.know[p] = k.know[p] | gained
            else:
                k.know[p] = k.know[p].union(*(k.rel.get(q, frozenset()) for q in positions))
        # releases: signal writes
        for pos, old, new in step.writes:
            if isinstance(ins, ir.Reset):
                k.rel[pos] = frozenset()
            elif isinstance(ins, (ir.Notify, ir.Store, ir.FetchAdd, ir.Cas)):
                carried = self._release(k, p)
                extend = isinstance(ins, ir.FetchAdd) or (isinstance(ins, ir.Notify) and ins.op == ir.ATOMIC_ADD)
                k.rel[pos] = (k.rel.get(pos, frozenset()) | carried) if extend else carried
        if isinstance(ins, ir.Fence):
            mine = k.writes.get(p, frozenset())
            if ins.kind == "pipe":
                k.pipe[p] = mine
            elif ins.kind == "dsb":
                if p in k.pipe:
                    k.fenced[p] = k.fenced.get(p, frozenset()) | k.pipe.pop(p)
            else:
                k.fenced[p] = k.fenced.get(p, frozenset()) | mine
                k.pipe.pop(p, None)
        if isinstance(ins, ir.Copy) and ins.event is not None and step.accesses:
            t = k.n  # the transfer: its own event, after the issue
            k.n += 1
            k.know_of[t] = k.know[p] | {e}
            k.transfers[(p, ins.event[1])] = (t, k.know_of[t])
            if self.sc:
                k.know[p] = k.know[p] | k.know_of[t] | {t}
            k.accesses = k.accesses + tuple((t, p, a.position, a.kind) for a in step.accesses)
        elif step.accesses:
            # The pto exception holds back data *writes* only: a statement that reads and writes
            # (TPUT, TGET) has its writes as an event of their own, right after its reads, so a
            # later TNOTIFY without a fence still carries the reads.
            w = e
            if any(a.kind == "read" for a in step.accesses) and any(a.kind != "read" for a in step.accesses):
                w = k.n
                k.n += 1
                k.know_of[w] = k.know_of[e] | {e}
                k.know[p] = k.know[p] | {e}
                k.last[p] = w
            if any(a.kind != "read" for a in step.accesses):
                k.writes[p] = k.writes.get(p, frozenset()) | {w}
            k.accesses = k.accesses + tuple((e if a.kind == "read" else w, p, a.position, a.kind)
                                            for a in step.accesses)
        k.fresh = len(k.accesses) - n_before
        completes = isinstance(ins, ir.WaitEvent) or (isinstance(ins, ir.TestEvent) and step.label == p
                                                      and (p, ins.event) in k.transfers)
        if completes and (p, ins.event) in k.transfers:
            t, knew = k.transfers[(p, ins.event)]
            k.know[p] = k.know[p] | knew | {t}
        return k

    def _new_race(self, k) -> bool:
        """Whether the accesses of the last step race with an earlier access."""
        if not k.fresh:
            return False
        newest = k.accesses[-k.fresh:]
        older = k.accesses[:-k.fresh]
        for e2, p2, d2, k2 in newest:
            for e1, p1, d1, k1 in older:
                if d1 == d2 and p1 != p2 and _conflict(k1, k2) and e1 not in k.know_of[e2]:
                    return True
        return False

"""Happens-before for the data extension (contract sig-data.md), as vector clocks in the state.

Entry point: `Clocks(...)`; every method takes and returns the hb part of a state (a tuple),
so the explorer's states stay plain tuples. Only programs with buffers have one.

Components: each process slot p has a read clock (2p) and a write clock (2p+1) — separate,
because under the `pto` memory model a TNOTIFY releases the process's reads but only the
writes before its last complete fence — and one clock per `event` declaration of its code
(2P + p*K + k) for its async transfers, which join the process only at WAIT_EVENT (or a
TEST_EVENT that returned true). A signal element keeps the clock its release sequence
carries (a Set or STORE starts one, AtomicAdd/FETCH_ADD extend it, reset ends it); a read
that observes the value acquires it. Each data element keeps its last plain write, the
atomic-add writes since, and the reads since (one entry per clock): an access that conflicts
with one of them that it does not know of (its clock is behind) is a data race. That is
exact: an execution with a race has its first race reported here.
"""

from __future__ import annotations

from typing import NamedTuple

COMPLETE = 1 << 48  # an event's local: a TEST_EVENT saw its transfer complete


class Access(NamedTuple):
    position: int  # global data position: rank * data_per_rank + offset
    kind: str  # "read" | "write" | "atomic"
    clock: int  # the component that timestamps it
    time: int


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return tuple(x if x >= y else y for x, y in zip(a, b))


class Clocks:
    def __init__(self, nprocs: int, nhosts: int, events: int, npositions: int, ndata: int, model: str):
        self.P = nprocs
        self.R = nhosts
        self.K = events
        self.C = 2 * nprocs + nprocs * events
        self.npositions = npositions
        self.ndata = ndata
        self.sc = model == "sc"

    # hb = (vcs, marks, pending, releases, joined, shadow)
    #   vcs[p]: vector clock or None (not running); marks[p]: (pipe mark, fence mark, issued counts)
    #   pending[p]: what the reads of the current multi-element pass would acquire
    #   releases[pos]: the clock of the signal element's release sequence; joined[r]: the
    #   clocks of rank r's finished blocks; shadow[d]: (last write, atomic writes, reads)

    def initial(self) -> tuple:
        zero = (0,) * self.C
        vcs = tuple(zero if p < self.R else None for p in range(self.P))
        marks = tuple((None, 0, (0,) * self.K) for _ in range(self.P))
        return (vcs, marks, (None,) * self.P, (None,) * self.npositions, (None,) * self.R, (None,) * self.ndata)

    def process_of(self, clock: int) -> int:
        return clock // 2 if clock < 2 * self.P else (clock - 2 * self.P) // max(self.K, 1)

    def event_clock(self, p: int, k: int) -> int:
        return 2 * self.P + p * self.K + k

    @staticmethod
    def _set(t: tuple, i: int, v) -> tuple:
        return t[:i] + (v,) + t[i + 1:]

    # ------------------------------------------------------------ synchronization

    def _release_clock(self, hb, p) -> tuple:
        vc = hb[0][p]
        if self.sc:
            return vc
        return self._set(vc, 2 * p + 1, min(vc[2 * p + 1], hb[1][p][1]))

    def release(self, hb, p: int, pos: int, extend: bool) -> tuple:
        """A signal write by p: starts (Set, STORE, successful CAS) or extends (AtomicAdd,
        FETCH_ADD) the release sequence of element `pos`."""
        rel = self._release_clock(hb, p)
        if extend:
            rel = _join(hb[3][pos], rel)
        return hb[:3] + (self._set(hb[3], pos, rel),) + hb[4:]

    def clear(self, hb, pos: int) -> tuple:
        """A reset ends the release sequence."""
        return hb[:3] + (self._set(hb[3], pos, None),) + hb[4:]

    def acquire(self, hb, p: int, positions) -> tuple:
        vc = hb[0][p]
        for pos in positions:
            vc = _join(vc, hb[3][pos])
        return (self._set(hb[0], p, vc),) + hb[1:]

    def pend(self, hb, p: int, pos: int) -> tuple:
        """A satisfied read inside a multi-element pass: acquired only if the pass completes."""
        return hb[:2] + (self._set(hb[2], p, _join(hb[2][p], hb[3][pos])),) + hb[3:]

    def settle_pass(self, hb, p: int, completed: bool) -> tuple:
        pending = hb[2][p]
        if pending is None:
            return hb
        if completed:
            hb = (self._set(hb[0], p, _join(hb[0][p], pending)),) + hb[1:]
        return hb[:2] + (self._set(hb[2], p, None),) + hb[3:]

    def fence(self, hb, p: int, kind: str) -> tuple:
        pipe, mark, issued = hb[1][p]
        now = hb[0][p][2 * p + 1]
        if kind == "pipe":
            pipe = now
        elif kind == "dsb":
            if pipe is not None:
                mark, pipe = max(mark, pipe), None
        else:
            mark, pipe = now, None
        return (hb[0], self._set(hb[1], p, (pipe, mark, issued))) + hb[2:]

    def launch(self, hb, host: int, kernels) -> tuple:
        vcs, marks = list(hb[0]), list(hb[1])
        for k in kernels:
            vcs[k] = hb[0][host] if hb[0][k] is None else _join(hb[0][host], hb[0][k])
            vcs[k] = _join(vcs[k], hb[4][host]) if hb[4][host] is not None else vcs[k]
            marks[k] = (None, vcs[k][2 * k + 1], hb[1][k][2])
        return (tuple(vcs), tuple(marks)) + hb[2:]

    def finish(self, hb, p: int, rank: int) -> tuple:
        """Kernel process p returned (or stopped): its clock waits for the host's join."""
        if p < self.R or hb[0][p] is None:
            return hb
        joined = self._set(hb[4], rank, _join(hb[4][rank], hb[0][p]))
        keep = self._set(hb[0], p, None)
        # the slot's own clocks go on counting in its next launch (through the host's clock)
        return (keep, hb[1], self._set(hb[2], p, None), hb[3], joined, hb[5])

    def join(self, hb, host: int) -> tuple:
        vc = _join(hb[0][host], hb[4][host])
        return (self._set(hb[0], host, vc),) + hb[1:4] + (self._set(hb[4], host, None), hb[5])

    def barrier(self, hb, members=None) -> tuple:
        """Every member (default: the hosts) knows what any of them knew."""
        members = range(self.R) if members is None else members
        vc = None
        for h in members:
            vc = _join(vc, hb[0][h])
        vcs = tuple(vc if h in members else hb[0][h] for h in range(self.P))
        return (vcs,) + hb[1:]

    # ------------------------------------------------------------ async transfers

    def issue(self, hb, p: int, k: int) -> tuple[tuple, int, tuple]:
        """An async transfer from p's event k: (hb, its time, the clock it runs with)."""
        pipe, mark, issued = hb[1][p]
        t = issued[k] + 1
        hb = (hb[0], self._set(hb[1], p, (pipe, mark, self._set(issued, k, t)))) + hb[2:]
        c = self.event_clock(p, k)
        clock = self._set(hb[0][p], c, t)
        if self.sc:  # program order orders the transfer before what follows
            hb = (self._set(hb[0], p, clock),) + hb[1:]
        return hb, t, clock

    def complete(self, hb, p: int, k: int, t: int) -> tuple:
        c = self.event_clock(p, k)
        vc = hb[0][p]
        return (self._set(hb[0], p, self._set(vc, c, max(vc[c], t))),) + hb[1:]

    # ------------------------------------------------------------ data accesses

    def tick(self, hb, p: int, write: bool) -> tuple[tuple, int, int]:
        """A new time on p's read or write clock: (hb, clock, time)."""
        c = 2 * p + (1 if write else 0)
        vc = hb[0][p]
        t = vc[c] + 1
        return (self._set(hb[0], p, self._set(vc, c, t)),) + hb[1:], c, t

    def access(self, hb, knows: tuple, position: int, kind: str, clock: int, time: int):
        """Record one access made by the agent with vector clock `knows`; returns (hb, the
        earlier accesses it races with)."""
        me = self.process_of(clock)
        entry = hb[5][position] or (None, (), ())
        last, atomics, reads = entry
        races = []

        def unknown(c, t):
            return self.process_of(c) != me and knows[c] < t

        if last is not None and unknown(*last):
            races.append(Access(position, "write", *last))
        if kind != "atomic":
            races += [Access(position, "atomic", c, t) for c, t in atomics if unknown(c, t)]
        if kind != "read":
            races += [Access(position, "read", c, t) for c, t in reads if unknown(c, t)]
        if kind == "read":
            entry = (last, atomics, _put(reads, clock, time))
        elif kind == "atomic":
            entry = (last, _put(atomics, clock, time), reads)
        else:
            entry = ((clock, time), (), ())
        return hb[:5] + (self._set(hb[5], position, entry),), races


def _put(pairs: tuple, clock: int, time: int) -> tuple:
    """`pairs` (sorted (clock, time), one per clock) with `clock` at `time`."""
    out = [x for x in pairs if x[0] != clock]
    out.append((clock, time))
    out.sort()
    return tuple(out)

"""The lost-notification instrument: the ghost marks a state carries for that property only.

Entry point: `Marks(system)`; `System` calls its hooks (`notified`, `erase`, `seen`,
`settle`, `launched`) only when the program has a ghost slot (`Marks.G > 0`), so a program
without one pays nothing. The marks of a state (`State.ghost`) hold, for each element that a
notification can reach, a Set or reset can overwrite and a wait can read (a ghost slot), a
bitmask of the readers the notification now in it is meant for that have not read it and
whose code may still read it (bit 0: the holder's host; bit 1 + k*B + b: block b of the
holder's launch k after its latest started one). A Set or reset that replaces a pending
notification produces an `Overwrite` event naming those readers; checker/properties.py
judges whether one of them loses it.
"""

from __future__ import annotations

import bisect
from typing import Callable, NamedTuple

from model import ir
from model.errors import Span

HOST = -1  # the `block` of a host reader


class Reader(NamedTuple):
    rank: int
    block: int  # HOST for the rank's host
    launch: int | None  # the kernel's launch number (None for a host)


class Overwrite(NamedTuple):
    position: int
    old: int
    new: int
    readers: tuple  # Readers the replaced notification was meant for that had not read it
    span: Span
    clobber: bool = False  # erased by the stale write-back of a cache line (--set-granularity line)


class Marks:
    """The ghost slots of a program and the hooks that keep the marks of a state."""

    def __init__(self, analysis, nranks: int, nblocks: int, elems_per_rank: int, lines: bool,
                 line_of: Callable[[int], tuple[int, int]]):
        self.R, self.B, self.E = nranks, nblocks, elems_per_rank
        self._token_memo: dict = {}  # memo of _tokens: (slot, launch offset, entries of the rank's readers)
        self._drops: dict = {}  # memo of settle: (process, entry) -> (its reader bit, slots it can no longer read)
        totals = analysis.totals()
        notified = 0
        for kind, r, b in analysis.contexts():
            for ins, fp in zip(analysis.codes[kind].instrs, analysis.footprints(kind, r, b)):
                if isinstance(ins, (ir.Notify, ir.Store, ir.FetchAdd, ir.Cas)):
                    notified |= fp.writes
        sets = totals.sets
        if lines:  # a Set writes back its whole line
            for pos in [p for p in range(sets.bit_length()) if (sets >> p) & 1]:
                first, last = line_of(pos)
                sets |= ((1 << (last - first + 1)) - 1) << first
        mask = sets & notified & totals.reads
        if mask and not lines:  # (a Set that writes back its line may write an older value)
            mask &= ~analysis.never_lost(mask)
        positions = [p for p in range(mask.bit_length()) if (mask >> p) & 1]
        self.positions = tuple(positions)
        self.G = len(positions)
        self.slot = {p: g for g, p in enumerate(positions)}  # element position -> ghost slot
        self.ranges = []  # per rank, (lo, hi): its ghost slots are lo..hi-1 (slots are in position order)
        for r in range(self.R):
            lo = bisect.bisect_left(positions, r * self.E)
            hi = bisect.bisect_left(positions, (r + 1) * self.E)
            self.ranges.append((lo, hi))
        self.reads: dict = {}  # (is_host, rank, block) -> per pc, the ghost slots the process may still read
        if self.G:
            for kind, r, b in analysis.contexts():
                per_pc = []
                for m in analysis.reachable_reads(kind, r, b):
                    g = 0
                    for p, k in self.slot.items():
                        if (m >> p) & 1:
                            g |= 1 << k
                    per_pc.append(g)
                self.reads[(kind == "host", r, b)] = tuple(per_pc)

    # ------------------------------------------------------------ hooks

    def notified(self, ghost: tuple, procs: tuple, launches: tuple, i: int, entry, pos: int, old: int, new: int,
                 replaces: bool, span) -> tuple[tuple, tuple]:
        """The marks after process i (then at `entry`) wrote element `pos` (a Set-like write
        when `replaces`), and the Overwrite event if it replaced an unread notification."""
        g = self.slot.get(pos)
        if g is None:
            return ghost, ()
        procs_after = procs[:i] + (entry,) + procs[i + 1:]
        rank = pos // self.E
        pending = ghost[g]
        writer_launch = launches[i] if i < self.R else launches[(i - self.R) // self.B] - 1
        tokens = self._tokens(procs_after, launches, writer_launch, rank, g)
        events: tuple = ()
        if replaces and old != new:
            if pending:
                events = (Overwrite(pos, old, new, self.readers(pending, rank, launches), span),)
            value_g = tokens
        else:
            value_g = pending | tokens
        return ghost[:g] + (value_g,) + ghost[g + 1:], events

    def erase(self, ghost: tuple, pos: int, old: int, new: int, rank: int, launches: tuple, span, events: list,
              clobber: bool = False) -> tuple:
        """The marks after a reset (or a cache line's stale write-back) replaced the value of
        `pos` by another; an Overwrite is appended to `events` if a notification was pending."""
        g = self.slot.get(pos)
        if g is None:
            return ghost
        if ghost[g]:
            events.append(Overwrite(pos, old, new, self.readers(ghost[g], rank, launches), span, clobber=clobber))
        return ghost[:g] + (0,) + ghost[g + 1:]

    def seen(self, ghost: tuple, i: int, reads: tuple) -> tuple:
        """The marks after process i read the elements of `reads` ((position, ...) records)."""
        bit = self._bit(i)
        rank = i if i < self.R else (i - self.R) // self.B
        for r in reads:
            g = self.slot.get(r[0])
            if g is not None and ghost[g] & bit and r[0] // self.E == rank:
                ghost = ghost[:g] + (ghost[g] & ~bit,) + ghost[g + 1:]
        return ghost

    def settle(self, ghost: tuple, procs: tuple, movers) -> tuple:
        """Drop the marks of the processes in `movers` that can no longer read their slot."""
        drops = self._drops
        for i in movers:
            key = (i, procs[i])
            gone = drops.get(key)
            if gone is None:  # the ghost slots of its rank that process i can no longer read
                lo, hi = self.ranges[i if i < self.R else (i - self.R) // self.B]
                may = self._may(i, procs[i])
                gone = drops[key] = (self._bit(i), tuple(g for g in range(lo, hi) if not (may >> g) & 1))
            bit = gone[0]
            for g in gone[1]:
                if ghost[g] & bit:
                    ghost = ghost[:g] + (ghost[g] & ~bit,) + ghost[g + 1:]
        return ghost

    def launched(self, ghost: tuple, procs_after: tuple, r: int) -> tuple:
        """The marks after host r started its next launch: the notifications meant for that
        launch now wait in its running blocks."""
        lo, hi = self.ranges[r]
        if hi <= lo:
            return ghost
        ghost = ghost[:lo] + tuple((e & 1) | ((e >> (1 + self.B)) << 1) for e in ghost[lo:hi]) + ghost[hi:]
        return self.settle(ghost, procs_after, range(self.R + r * self.B, self.R + (r + 1) * self.B))

    def readers(self, t: int, r: int, launches: tuple) -> tuple:
        """The Readers of a mark `t` on rank r."""
        out = []
        if t & 1:
            out.append(Reader(r, HOST, None))
        rest, off, full = t >> 1, 0, (1 << self.B) - 1
        while rest:
            chunk = rest & full
            for b in range(self.B):
                if (chunk >> b) & 1:
                    out.append(Reader(r, b, launches[r] - 1 + off))
            rest >>= self.B
            off += 1
        return tuple(out)

    # ------------------------------------------------------------ tables

    def _may(self, i: int, entry) -> int:
        """Ghost slots process i (at entry) may still read."""
        if entry is None or entry[1] < 0:
            return 0
        if i < self.R:
            return self.reads[(True, i, 0)][entry[0]]
        r, b = divmod(i - self.R, self.B)
        return self.reads[(False, r, b)][entry[0]]

    def _bit(self, i: int) -> int:
        return 1 if i < self.R else 1 << (1 + (i - self.R) % self.B)

    def _tokens(self, procs: tuple, launches: tuple, writer_launch: int, r: int, g: int) -> int:
        """The readers on rank r a notification of launch `writer_launch` into ghost slot g is for."""
        off = writer_launch - (launches[r] - 1)
        base = self.R + r * self.B
        key = (g, off, procs[r], procs[base: base + self.B] if off == 0 else None)
        t = self._token_memo.get(key)
        if t is None:
            t = self._token_memo[key] = self._tokens_of(procs, launches, writer_launch, r, g)
        return t

    def _tokens_of(self, procs: tuple, launches: tuple, writer_launch: int, r: int, g: int) -> int:
        t = 0
        if (self._may(r, procs[r]) >> g) & 1:
            t = 1
        off = writer_launch - (launches[r] - 1)
        base = self.R + r * self.B
        if off == 0:
            for b in range(self.B):
                if (self._may(base + b, procs[base + b]) >> g) & 1:
                    t |= 1 << (1 + b)
        elif off > 0:
            for b in range(self.B):
                if (self.reads[(False, r, b)][0] >> g) & 1:
                    t |= 1 << (1 + off * self.B + b)
        return t

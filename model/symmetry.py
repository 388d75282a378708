"""Rank symmetry: the rotations of the ranks under which the transition relation is invariant,
and one canonical state per orbit. Entry point: `Symmetry.of(system)`.

A ring written the usual way (`next = (rank + 1) % nranks`, flags indexed by round) runs the
same code on every rank, and renaming rank r to rank r + k (mod N) everywhere, in the process
table, in the signal memory, in every local that holds a rank and in every signal index that
stands for a rank, maps each run to a run. The explorer then stores one state per orbit.

Whether a program has that symmetry is decided from the typed IR, never assumed: every value
is typed either *rank* (it names a rank and is renamed with it: `rank`, a local assigned from
a rank, `(r + c) % nranks` for a rank r and a number c >= 0, `any(0, nranks - 1)`) or
*number* (it is the same on every rank: constants, `block`, `launch_id`, signal values).
What keeps a program symmetric (docs/trust.md, section 3b):

- a rank may be compared with a rank by == and != only, used as `@` target, as the index of
  a signal dimension of size nranks (which then stands for ranks), and in `(r + c) % nranks`;
- everything else sees numbers only: no rank constant (`rank == 0`, `@ 0`), no rank in
  arithmetic or ordering (`p < rank`), no loop counter used as a rank (`for (p = 0; ...)`
  visits the ranks in a fixed order, which renaming does not preserve);
- a signal dimension is either a rank dimension (every index a rank, or the whole dimension)
  or a number dimension;
- a hardware TWAIT/TTEST over several elements of a rank dimension reads them in index
  order, which renaming does not preserve: allowed only with --atomic-waits.

Data statements are typed like signal statements (a copy or an access touches all its
elements in one step, so the order of a view's elements is not seen), and the happens-before
part of the state (model/hb.py) is renamed with the ranks: clocks move with their process
(their components renamed), release clocks with their signal element, access shadows with
their data element. Block permutations do not rename it: programs with buffers get the
rotation only. --set-granularity line is not reduced. Every rejection is kept with its
location, for `--explain-symmetry`.
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass

from model import ir
from model.analysis import TOP, evaluate
from model.errors import Span

RANK, NUMBER = "rank", "number"
# memo tables of the renaming, bounded (they hold renamed process entries, most of them of
# states seen before and not stored: a run at 32 ranks kept twice as many as its store)
RENAMED_KEPT = 1024  # (entry, k) -> the renamed entry, per kind of process
ENTRIES_KEPT = 4096  # a renamed entry -> the one object for it
CLOCKS_KEPT = 1024  # a renamed vector clock -> the one object for it


@dataclass(frozen=True)
class Reason:
    span: Span | None
    message: str

    def render(self) -> str:
        return f"{self.span}: {self.message}" if self.span is not None else self.message


class _Typing:
    """The rank/number types of one program's locals, signal dimensions and expressions."""

    def __init__(self, program: ir.Program, analysis, atomic_waits: bool, any_rank: bool):
        self.program = program
        self.any_rank = any_rank  # whether any(0, nranks - 1) gives a rank (else a number)
        self.analysis = analysis
        self.atomic_waits = atomic_waits
        self.R = program.nranks
        self.slots = {"host": {}, "kernel": {}}  # kind -> slot -> RANK | NUMBER
        self.dims: dict = {}  # (signal name, dim) -> (RANK | NUMBER, span of the first use)
        self.reasons: list[Reason] = []
        self._final = False
        self._kind = "kernel"
        self._pc = 0

    def reject(self, span, message) -> None:
        if self._final and len(self.reasons) < 50:
            r = Reason(span, message)
            if r not in self.reasons:
                self.reasons.append(r)

    # ------------------------------------------------------------ expressions

    def expr(self, e) -> str | None:
        """The type of `e` (None: a local whose type is not known yet)."""
        if isinstance(e, ir.Const):
            return NUMBER
        if isinstance(e, ir.Builtin):
            return RANK if e.name == "rank" else NUMBER
        if isinstance(e, ir.Local):
            t = self.slots[self._kind].get(e.slot)
            if t is None:
                return NUMBER if self._final else None
            return t
        if isinstance(e, ir.Unary):
            return self.number(e.operand, f"`{e.op}` applied to a rank")
        if isinstance(e, ir.Select):
            self.number(e.test, "a rank used as a condition")
            a, b = self.expr(e.then), self.expr(e.orelse)
            if a is not None and b is not None and a != b:
                self.reject(e.span, "one branch of `?:` gives a rank, the other a number")
                return NUMBER
            return a or b
        if isinstance(e, ir.Binary):
            return self.binary(e)
        if isinstance(e, ir.ArrayRead):  # one of the array's locals, chosen by a number
            self.number(e.index, "a rank as the index of a local array")
            types = {self.expr(x) for x in e.elems} - {None}
            if len(types) > 1:
                self.reject(e.span, f"the local array `{e.name}` holds ranks and numbers")
                return NUMBER
            return types.pop() if types else None
        self.reject(getattr(e, "span", None), "an expression the symmetry check does not know")
        return NUMBER

    def number(self, e, why: str) -> str:
        if self.expr(e) == RANK:
            self.reject(e.span, why)
        return NUMBER

    def binary(self, e: ir.Binary) -> str | None:
        op = e.op
        if op in ("==", "!="):
            a, b = self.expr(e.left), self.expr(e.right)
            if a is not None and b is not None and a != b:
                self.reject(e.span, "compares a rank with a number (a fixed rank, or a counter), "
                                    "which renaming the ranks does not preserve")
            return NUMBER
        if op == "%" and isinstance(e.right, ir.Const) and e.right.value == self.R:
            terms = self.linear(e.left)
            if terms is None:
                return self.number(e.left, "a rank in arithmetic other than `(rank + c) % nranks`")
            ranks = [t for sign, t in terms if self.expr(t) == RANK]
            if not ranks:
                return None if any(self.expr(t) is None for _, t in terms) else NUMBER
            if len(ranks) > 1 or any(sign < 0 and self.expr(t) == RANK for sign, t in terms):
                self.reject(e.span, "only `(r + c) % nranks` with one rank r added is renamed with the ranks")
                return NUMBER
            numbers = [(sign, t) for sign, t in terms if self.expr(t) != RANK]
            if not self.nonnegative(numbers):
                self.reject(e.span, "cannot show that the number added to the rank here is never negative "
                                    "(C's % of a negative value is negative)")
            return RANK
        for side in (e.left, e.right):
            if self.expr(side) == RANK:
                what = "orders ranks" if op in ("<", "<=", ">", ">=") else f"uses a rank in `{op}`"
                self.reject(side.span, f"{what}, which renaming the ranks does not preserve "
                                       f"(only ==, != and (rank + c) % nranks do)")
        return NUMBER

    def linear(self, e):
        """`e` as [(sign, term)] if it is a sum and difference of terms, else None."""
        if isinstance(e, ir.Binary) and e.op in ("+", "-"):
            a, b = self.linear(e.left), self.linear(e.right)
            if a is None or b is None:
                return None
            return a + ([(-s, t) for s, t in b] if e.op == "-" else b)
        if isinstance(e, ir.Binary) and e.op in ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "min", "max"):
            if any(self.expr(x) == RANK for x in (e.left, e.right)) and not (
                    e.op == "%" and isinstance(e.right, ir.Const) and e.right.value == self.R):
                return None
        return [(1, e)]

    def nonnegative(self, terms) -> bool:
        """Whether sum(sign * term) >= 0 wherever this instruction runs, from the value sets of
        the locals there (model/analysis.py), on every rank."""
        for kind, r, b in self.analysis.contexts():
            if kind != self._kind:
                continue
            envs, ctx = self.analysis.envs(kind, r, b)
            env = envs[self._pc]
            if env is None:
                continue
            low = 0
            for sign, t in terms:
                try:
                    vals = evaluate(t, env, ctx)
                except Exception:
                    return False
                if vals is TOP:
                    return False
                if not vals:
                    continue
                low += min(vals) if sign > 0 else -max(vals)
            if low < 0:
                return False
        return True

    # ------------------------------------------------------------ views

    def view(self, v: ir.View, multi_ok: bool) -> None:
        if v.layout is not None:
            self.reject(v.span, f"the declared view `{v.layout.name}` is not renamed with the ranks")
            return
        if v.at is not None and self.expr(v.at) == NUMBER:
            self.reject(v.at.span, "a signal on a fixed or counted rank (`@` a number): renaming the ranks "
                                   "moves the signal, not this rank")
        sig = v.signal
        over_rank_dim = False
        for d, size in enumerate(sig.dims):
            sel = v.selectors[d] if d < len(v.selectors) else None
            if isinstance(sel, ir.Index):
                t = self.expr(sel.expr)
                if t is not None:
                    self.dim(sig, d, t, sel.span)
            elif sel is None or self.whole(sel, size):
                if self.dims.get((sig.name, d), (None,))[0] == RANK:
                    over_rank_dim = True
                for x in ((sel.start, sel.stop, sel.step) if sel is not None else ()):
                    if x is not None:
                        self.number(x, "a rank as a slice bound")
            else:
                for x in (sel.start, sel.stop, sel.step):
                    if x is not None:
                        self.number(x, "a rank as a slice bound")
                self.dim(sig, d, NUMBER, sel.span)
        if over_rank_dim and not multi_ok:
            self.reject(v.span, "a hardware wait reads the elements of a rank dimension in index order, which "
                                "renaming the ranks does not preserve (use --atomic-waits if the wait is one read)")

    def whole(self, sel: ir.Slice, size: int) -> bool:
        def const(x, default):
            return default if x is None else (x.value if isinstance(x, ir.Const) else None)
        return const(sel.start, 0) == 0 and const(sel.stop, size) == size and const(sel.step, 1) == 1

    def dim(self, sig, d: int, t: str, span) -> None:
        key = (sig.name, d)
        if t == RANK and sig.dims[d] != self.R:
            self.reject(span, f"a rank indexes dimension {d + 1} of `{sig.name}`, whose size is not nranks")
            return
        have = self.dims.get(key)
        if have is None:
            self.dims[key] = (t, span)
        elif have[0] != t:
            first = "a rank" if have[0] == RANK else "a number"
            self.reject(span, f"dimension {d + 1} of `{sig.name}` is indexed by {first} at {have[1]} and by "
                              f"{'a rank' if t == RANK else 'a number'} here")

    # ------------------------------------------------------------ instructions

    def assign(self, slot: int, t: str | None, span) -> None:
        if t is None:
            return
        have = self.slots[self._kind].get(slot)
        if have is None:
            self.slots[self._kind][slot] = t
            self.changed = True
        elif have != t:
            name = self.program.host.slot_names[slot] if self._kind == "host" else self.program.kernel.slot_names[slot]
            self.reject(span, f"`{name}` holds a rank in one place and a number in another")

    def instr(self, ins) -> None:
        if isinstance(ins, ir.Assign):
            self.assign(ins.slot, self.expr(ins.value), ins.span)
        elif isinstance(ins, ir.Choose):
            lo, hi = ins.lo, ins.hi
            self.number(lo, "a rank as a bound of any()")
            self.number(hi, "a rank as a bound of any()")
            every_rank = (isinstance(lo, ir.Const) and lo.value == 0 and isinstance(hi, ir.Const)
                          and hi.value == self.R - 1)
            # any rank: the set of choices is renamed onto itself
            self.assign(ins.slot, RANK if every_rank and self.any_rank else NUMBER, ins.span)
        elif isinstance(ins, ir.Branch):
            self.number(ins.cond, "a rank used as a condition")
        elif isinstance(ins, (ir.Assert, ir.Observe)):
            self.number(ins.cond, "a rank used as a condition")
        elif isinstance(ins, ir.Notify):
            self.view(ins.view, True)
            self.number(ins.value, "a rank written into a signal")
        elif isinstance(ins, (ir.Wait, ir.Test)):
            self.view(ins.view, self.atomic_waits)
            self.number(ins.value, "a rank as a wait operand")
            if isinstance(ins, ir.Test):
                self.assign(ins.dest, NUMBER, ins.span)
        elif isinstance(ins, ir.Reset):
            self.view(ins.view, True)
        elif isinstance(ins, (ir.Load, ir.Store, ir.FetchAdd, ir.Cas)):
            self.view(ins.view, False)
            for x in (getattr(ins, "value", None), getattr(ins, "expected", None), getattr(ins, "new", None)):
                if x is not None:
                    self.number(x, "a rank written into a signal")
            if getattr(ins, "dest", None) is not None:
                self.assign(ins.dest, NUMBER, ins.span)
        elif isinstance(ins, ir.Copy):  # every element in one step: the order of a view's elements is not seen
            self.view(ins.dst, True)
            self.view(ins.src, True)
            if ins.event is not None:
                self.assign(ins.event[0], NUMBER, ins.span)
        elif isinstance(ins, ir.Access):
            self.view(ins.view, True)
        elif isinstance(ins, ir.TestEvent):
            self.assign(ins.dest, NUMBER, ins.span)
        elif isinstance(ins, (ir.Jump, ir.Return, ir.Launch, ir.Join, ir.HostBarrier, ir.Fence, ir.BlockBarrier,
                              ir.WaitEvent)):
            pass
        else:
            self.reject(ins.span, f"a statement the symmetry check does not know ({type(ins).__name__})")

    def run(self) -> None:
        codes = (("host", self.program.host), ("kernel", self.program.kernel))
        for _ in range(8):  # the slot types only grow: a fixpoint within a few passes
            self.changed = False
            for kind, code in codes:
                self._kind = kind
                for pc, ins in enumerate(code.instrs):
                    self._pc = pc
                    self.instr(ins)
            if not self.changed:
                break
        self._final = True
        for kind, code in codes:
            self._kind = kind
            for pc, ins in enumerate(code.instrs):
                self._pc = pc
                self.instr(ins)
            live0 = self.analysis.live[kind][0]
            for slot, t in self.slots[kind].items():
                if t == RANK and slot in live0:
                    self.reject(code.instrs[0].span, f"`{code.slot_names[slot]}` may be read as a rank before "
                                                     f"it is assigned")


def analyse(program: ir.Program, analysis, atomic_waits: bool = False) -> _Typing:
    """The slot types and rank dimensions of `program`, and the reasons it is not symmetric.
    A choice any(0, nranks - 1) is tried as a rank first, then as a number."""
    if program.nranks < 2:
        t = _Typing(program, analysis, atomic_waits, True)
        t.reasons.append(Reason(None, "one rank: there is nothing to rename"))
        return t
    first = None
    for any_rank in (True, False):
        t = _Typing(program, analysis, atomic_waits, any_rank)
        t.run()
        if not t.reasons:
            return t
        first = first or t
    return first


def _picker(positions: tuple):
    """A function from a tuple t to tuple(t[p] for p in positions)."""
    if not positions:
        return lambda t: ()
    if len(positions) == 1:
        (p,) = positions
        return lambda t: (t[p],)
    return operator.itemgetter(*positions)


class Symmetry:
    """The rotations r -> r + k (mod N) of the ranks, for a system they leave invariant. Its
    group elements are the ints k; `Blocks` (below) adds block permutations."""

    group = "rotation"
    identity = 0

    @classmethod
    def of(cls, system) -> tuple["Symmetry | Blocks | None", list[Reason]]:
        """The symmetry of `system` (the rank rotation, the block permutations, or both), or
        None and the reasons it has none (the rank reasons first, then the block reasons)."""
        rotation, reasons = cls.rotation_of(system)
        blocks, why_not = Blocks.of(system, rotation)
        if blocks is not None:
            return blocks, reasons
        if rotation is not None:
            return rotation, why_not
        return None, reasons + why_not

    @classmethod
    def rotation_of(cls, system) -> tuple["Symmetry | None", list[Reason]]:
        """The rank rotation of `system`, or None and the reasons it has none."""
        if system.lines:
            return None, [Reason(None, "--set-granularity line is not reduced by symmetry")]
        typing = analyse(system.program, system.analysis, system.atomic_waits)
        if typing.reasons:
            return None, typing.reasons
        sym = cls(system, typing)
        problem = sym._consistent()
        if problem:
            return None, [Reason(None, problem)]
        return sym, []

    @property
    def rotation(self) -> "Symmetry":
        return self

    # the group of the rotations: k after j is j + k
    def apply(self, state, k: int):
        return self.rotate(state, k)

    def compose(self, a: int, b: int) -> int:
        return (a + b) % self.R

    def inverse(self, k: int) -> int:
        return (-k) % self.R

    def __init__(self, system, typing: _Typing):
        self.system = system
        R, B, E = system.R, system.B, system.E
        self.R, self.B, self.E = R, B, E
        program = system.program
        rank_dims = {key for key, (t, _) in typing.dims.items() if t == RANK}
        offsets = [s.offset for s in program.signals]
        # rot[k][pos]: where the element at pos goes when rank r becomes rank r + k (the tables
        # share one int object per position: R tables of R * E fresh ints were most of their size)
        self.rot = []
        position = list(range(R * E))
        for k in range(R):
            out = []
            for pos in range(R * E):
                r, off = divmod(pos, E)
                sig = program.signals[bisect.bisect_right(offsets, off) - 1]
                idx = list(sig.index_of(off - sig.offset))
                for d in range(len(idx)):
                    if (sig.name, d) in rank_dims:
                        idx[d] = (idx[d] + k) % R
                flat = 0
                for d, size in enumerate(sig.dims):
                    flat = flat * size + idx[d]
                out.append(position[((r + k) % R) * E + sig.offset + flat])
            self.rot.append(tuple(out))
        self.inv = [tuple(self.rot[(-k) % R][q] for q in range(R * E)) for k in range(R)]  # new[q] = old[inv[k][q]]
        gidx = system.ghost_slot
        self.G = system.G
        self.ghost_ok = all(self.rot[k][p] in gidx for k in range(R) for p in system.ghost_positions)
        if self.ghost_ok:
            self.ginv = [tuple(gidx[self.rot[(-k) % R][p]] for p in system.ghost_positions) for k in range(R)]
        # the rank-typed locals kept at each pc (the others are zeroed when dead)
        self.rslots = {}
        for is_host, kind, code in ((True, "host", program.host), (False, "kernel", program.kernel)):
            ranks = sorted(s for s, t in typing.slots[kind].items() if t == RANK)
            per_pc = []
            for pc in range(len(code.instrs)):
                keep = system.live_slots[is_host][pc]
                per_pc.append(tuple(s for s in ranks if keep is None or s in keep))
            self.rslots[is_host] = tuple(per_pc)
        self.any_rank_slots = any(any(v) for v in self.rslots.values())
        # the pcs of the choices any(0, nranks - 1) of a rank (their alternatives are renamed too)
        self.rank_choices = {}
        for is_host, kind, code in ((True, "host", program.host), (False, "kernel", program.kernel)):
            self.rank_choices[is_host] = frozenset(
                pc for pc, ins in enumerate(code.instrs)
                if isinstance(ins, ir.Choose) and typing.slots[kind].get(ins.slot) == RANK)
        # processes: host r -> host r + k, block b of rank r -> block b of rank r + k
        n = system.nprocs
        self.pinv = []  # new[i] = old[pinv[k][i]]
        self.pmap = []
        for k in range(R):
            m = [0] * n
            for i in range(n):
                if i < R:
                    m[i] = (i + k) % R
                else:
                    r, b = divmod(i - R, B)
                    m[i] = R + ((r + k) % R) * B + b
            self.pmap.append(tuple(m))
            inv = [0] * n
            for i, j in enumerate(m):
                inv[j] = i
            self.pinv.append(tuple(inv))
        self.clocks = system.clocks  # a program with buffers: the happens-before part is renamed too
        self.data_ok = self.clocks is None or self._data_tables(system, rank_dims)
        # the relative view of rank r: rank 0's elements (and ghost slots) renamed onto rank r
        self.rel_pos = [tuple(self.rot[r][p] for p in range(E)) for r in range(R)]
        g0 = [g for g, p in enumerate(system.ghost_positions) if p < E] if self.ghost_ok else []
        self.rel_ghost = [tuple(gidx[self.rot[r][system.ghost_positions[g]]] for g in g0) for r in range(R)] \
            if self.ghost_ok else []
        self.rel_procs = [(r,) + tuple(R + r * B + b for b in range(B)) for r in range(R)]
        # a renamed process entry -> the one object kept for it (the stores find entries by object
        # id first), the latest few thousand: most states renamed are seen before and not stored
        self._same: dict = {None: None}
        self._clocks: dict = {}  # see _rotate_hb
        # per kind of process (a host's entry and a block's may be equal tuples, with different
        # rank-typed locals): (entry, k) -> the entry with its rank-typed locals renamed by +k
        self._renamed: dict = {True: {}, False: {}}
        # the same tables as functions that pick those elements of a tuple, as a tuple (in C)
        self._inv = [_picker(t) for t in self.inv]
        self._ginv = [_picker(t) for t in self.ginv] if self.ghost_ok and self.G else []
        self._rel_pos = [_picker(t) for t in self.rel_pos]
        self._rel_ghost = [_picker(t) for t in self.rel_ghost]
        self._rel_pick = [_picker(t) for t in self.rel_procs]

    def _data_tables(self, system, rank_dims) -> bool:
        """The renaming of the happens-before part of the state (model/hb.py), or False if a
        buffer's access blocks are not renamed onto access blocks. A data shadow position
        (an access block of a buffer's grain, model/grain.py) goes where its elements go: to
        rank r + k, with the buffer's rank dimensions renamed as a signal's. A vector-clock
        component (a process's read and write clocks, its event clocks) goes with its
        process. The independence masks put the data positions after the R * E signal
        elements: `rot` is extended over them."""
        R, E, D = self.R, self.E, system.D
        # by one rank: a buffer without rank dimensions moves whole to the next rank; one with
        # them is renamed element by element, and each access block must land on one block
        one = list(range(D, R * D)) + list(range(D))
        for buf in system.program.buffers:
            dims = [d for d in range(len(buf.dims)) if (buf.name, d) in rank_dims]
            if not dims:
                continue
            g, first = system.blocks_of(buf.name)
            for r in range(R):
                for block in range(buf.size // g):
                    goes = set()
                    for f in range(block * g, (block + 1) * g):
                        idx = list(buf.index_of(f))
                        for d in dims:
                            idx[d] = (idx[d] + 1) % R
                        flat = 0
                        for d, size in enumerate(buf.dims):
                            flat = flat * size + idx[d]
                        goes.add(((r + 1) % R) * D + first + flat // g)
                    if len(goes) != 1:
                        return False
                    one[r * D + first + block] = goes.pop()
        if sorted(one) != list(range(R * D)):
            return False
        drot = [tuple(range(R * D))]  # drot[k][d]: where shadow position d goes (k times one rank)
        for _ in range(1, R):
            drot.append(tuple(map(one.__getitem__, drot[-1])))
        self.rot = [t + tuple(R * E + q for q in d) for t, d in zip(self.rot, drot)]
        self.dinv = [drot[(-k) % R] for k in range(R)]  # new[d] = old[dinv[k][d]]: drot[-k] inverts drot[k]
        P, K = system.nprocs, system.program.events
        self.comp = []  # comp[k][c]: where component c goes
        for m in self.pmap:
            c = [0] * (2 * P + P * K)
            for p in range(P):
                c[2 * p], c[2 * p + 1] = 2 * m[p], 2 * m[p] + 1
                for e in range(K):
                    c[2 * P + p * K + e] = 2 * P + m[p] * K + e
            self.comp.append(tuple(c))
        self._cinv = [_picker(self.comp[(-k) % R]) for k in range(R)]  # a clock renamed by +k
        return True

    def _rotate_hb(self, hb: tuple, k: int) -> tuple:
        """The happens-before part of a state renamed by +k: each process's clocks move with
        it, their components renamed; a release clock moves with its signal element, a joined
        clock with its rank, an access shadow with its data position (each access's clock
        renamed, the lists kept sorted as model/hb.py keeps them)."""
        vcs, marks, pending, releases, joined, shadow = hb
        R = self.R
        pinv, cp, comp = self.pinv[k], self._cinv[k], self.comp[k]
        if len(self._clocks) > CLOCKS_KEPT:
            self._clocks.clear()
        same = self._clocks.setdefault

        def clock(x):
            # one object per renamed clock value (the latest few thousand): a state's clocks are
            # mostly its predecessor's, and a renamed copy of each was a state's worth of memory
            if x is None:
                return None
            c = cp(x)
            return same(c, c)

        def accesses(xs):
            return tuple(sorted((comp[c], t) for c, t in xs)) if xs else xs

        def entry(x):
            if x is None:
                return None
            last, atomics, reads = x
            e = (None if last is None else (comp[last[0]], last[1]), accesses(atomics), accesses(reads))
            return same(e, e)

        parts = (tuple(clock(vcs[j]) for j in pinv), tuple(marks[j] for j in pinv),
                 tuple(clock(pending[j]) for j in pinv), tuple(clock(releases[q]) for q in self.inv[k]),
                 tuple(clock(joined[(r - k) % R]) for r in range(R)), tuple(entry(shadow[d]) for d in self.dinv[k]))
        return tuple(same(x, x) for x in parts)

    def describe(self) -> str:
        return f"rotation of the {self.R} ranks"

    def _consistent(self) -> str | None:
        """A second look at the system's own tables: renaming must map them onto themselves."""
        s = self.system
        if not self.ghost_ok:
            return "the lost-notification bookkeeping is not the same on every rank"
        if not self.data_ok:
            return "a buffer's access blocks (model/grain.py) are not renamed onto access blocks"
        if s.ghost_reads:
            for (is_host, r, b), per_pc in s.ghost_reads.items():
                other = s.ghost_reads[(is_host, (r + 1) % self.R, b)]
                for g_here, g_there in zip(per_pc, other):
                    image = 0
                    for g in range(self.G):
                        if (g_here >> g) & 1:
                            image |= 1 << s.ghost_slot[self.rot[1][s.ghost_positions[g]]]
                    if image != g_there:
                        return "the processes may read different elements on different ranks"
        return None

    # ------------------------------------------------------------ states

    def _entry(self, entry, is_host: bool, k: int):
        """A process entry with its rank-typed locals renamed by +k."""
        if entry is None or not self.any_rank_slots:
            return entry
        slots = self.rslots[is_host][entry[0]]
        if not slots:
            return entry
        memo = self._renamed[is_host]
        key = (entry, k)
        out = memo.get(key)
        if out is None:
            L = list(entry[2])
            R = self.R
            for s in slots:
                L[s] = (L[s] + k) % R
            out = (entry[0], entry[1], tuple(L)) + tuple(entry[3:])
            if len(memo) > RENAMED_KEPT:
                memo.clear()
            memo[key] = out
        return out

    def renamed(self, entry, is_host: bool, k: int):
        """A process entry (pc, status, locals, ...) as it reads after renaming rank r to r + k."""
        return self._entry(entry, is_host, k % self.R)

    def rotate(self, state, k: int):
        """The state with every rank r renamed r + k."""
        k %= self.R
        if k == 0:
            return state
        R = self.R
        procs = state.procs
        pinv = self.pinv[k]
        if len(self._same) > ENTRIES_KEPT:
            self._same.clear()
        same = self._same.setdefault
        new_procs = tuple(same(e, e) for e in (self._entry(procs[pinv[i]], pinv[i] < R, k) for i in range(len(procs))))
        sig = state.signals
        new_sig = self._inv[k](sig)
        ghost = state.ghost
        new_ghost = self._ginv[k](ghost) if self.G else ghost
        launches = state.launches
        new_launches = tuple(launches[(r - k) % R] for r in range(R)) if launches else launches
        hb = state.hb
        return state._replace(procs=new_procs, signals=new_sig, ghost=new_ghost, launches=new_launches,
                              hb=self._rotate_hb(hb, k) if hb else hb)

    def relative_entries(self, procs, r: int) -> tuple:
        """Rank r's processes (its host, then its blocks) as rank 0's would read: their entries
        with the rank-typed locals renamed by -r, () for one not running."""
        ents = self._rel_pick[r](procs)
        if self.any_rank_slots:
            R, k = self.R, -r % self.R
            return tuple(() if e is None else self._entry(e, i < R, k) for e, i in zip(ents, self.rel_procs[r]))
        if None in ents:
            return tuple(() if e is None else e for e in ents)
        return ents

    def canon_k(self, state, relative=None):
        """(the representative of the state's orbit, the k with representative = rotate(state, k)).
        `relative`, if given, is `relative_entries` of each rank (computed already)."""
        procs = state.procs
        R = self.R
        sig, ghost, launches = state.signals, state.ghost, state.launches
        segs = []
        for r in range(R):
            ents = relative[r] if relative is not None else self.relative_entries(procs, r)
            seg = (ents, self._rel_pos[r](sig))
            if self.G:
                seg += (self._rel_ghost[r](ghost),)
            if launches:
                seg += (launches[r],)
            segs.append(seg)
        best = 0
        doubled = segs + segs
        for s in range(1, R):
            if doubled[s:s + R] < doubled[best:best + R]:
                best = s
        if state.hb:
            # the happens-before part is not in the segments: among the rotations that tie on
            # them, the least by its text (a total order on these tuples of ints and None)
            least = doubled[best:best + R]
            ties = [s for s in range(best, R) if doubled[s:s + R] == least]
            if len(ties) > 1:
                k = min(((-s) % R for s in ties), key=lambda j: repr(self.rotate(state, j).hb))
                return (self.rotate(state, k), k) if k else (state, 0)
        k = (-best) % R
        return (self.rotate(state, k), k) if k else (state, 0)

    def canon(self, state):
        return self.canon_k(state)[0]

    def label(self, state, label: int, k: int) -> int:
        """The label of the step `label` of `state`, renamed by +k (a step of the renamed state)."""
        n = self.system.nprocs
        if label < 0:
            return self.process(label, k)
        i, alt = label % n, label // n
        entry = state.procs[i]
        if entry is not None and entry[0] in self.rank_choices[i < self.R]:
            alt = (alt + k) % self.R  # any(0, nranks - 1): the choice of rank v becomes v + k
        return self.process(i, k) + alt * n

    def process(self, i: int, k: int) -> int:
        """Process i renamed by +k (hosts and blocks, and the joint barrier steps)."""
        k %= self.R
        if i >= 0:
            return self.pmap[k][i]
        if i == -1:
            return i
        return -2 - ((-2 - i + k) % self.R)


# ---------------------------------------------------------------- blocks

BLOCK = "block"
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class _BlockTyping:
    """Which blocks of a rank are interchangeable, from the typed IR: every value is typed
    *block* (`block` itself) or *number*. A block may be compared with a constant (which cuts
    the blocks into intervals: `block == 0` sets block 0 apart, `block < 2` blocks 0-1 from
    the others), compared with `block` by == and !=, used as a condition (`block != 0`), and
    index a signal dimension of size nblocks (which then stands for blocks: indexed by
    blocks and constants only). Anything else that sees a block (arithmetic, a local that
    holds it, a value written into a signal, a loop counter indexing a block dimension)
    refuses the symmetry with its location."""

    def __init__(self, program: ir.Program, atomic_waits: bool):
        self.program = program
        self.B = program.nblocks
        self.atomic_waits = atomic_waits
        self.cuts = {0, self.B}
        self.dims: dict = {}  # (signal name, dim) -> {"block": span, "const": {values}, "other": span}
        self.signals: dict = {}  # signal name -> SignalInfo
        self.slices: list = []  # (signal, dim, selector, span, several elements read in order)
        self.laid_out: dict = {}  # signal name -> span of a declared view on it
        self.remote = None  # span of the first view whose block index is on another rank
        self.reasons: list[Reason] = []

    def reject(self, span, message) -> None:
        if len(self.reasons) < 50:
            r = Reason(span, message)
            if r not in self.reasons:
                self.reasons.append(r)

    def cut(self, c: int) -> None:
        if 0 < c < self.B:
            self.cuts.add(c)

    def expr(self, e) -> str:
        if isinstance(e, ir.Builtin):
            return BLOCK if e.name == "block" else NUMBER
        if isinstance(e, (ir.Const, ir.Local)):
            return NUMBER
        if isinstance(e, ir.Unary):
            if e.op in ("!", "bool"):
                self.cond(e.operand)
            else:
                self.number(e.operand, f"`{e.op}` applied to a block number")
            return NUMBER
        if isinstance(e, ir.Select):
            self.cond(e.test)
            self.number(e.then, "a block number chosen by `?:`")
            self.number(e.orelse, "a block number chosen by `?:`")
            return NUMBER
        if isinstance(e, ir.Binary):
            return self.binary(e)
        if isinstance(e, ir.ArrayRead):
            self.number(e.index, "a block number as the index of a local array")
            return NUMBER
        self.reject(getattr(e, "span", None), "an expression the block symmetry check does not know")
        return NUMBER

    def number(self, e, why: str) -> None:
        if self.expr(e) == BLOCK:
            self.reject(e.span, why)

    def cond(self, e) -> None:
        """`e` used as a condition: a bare block number means `block != 0`."""
        if self.expr(e) == BLOCK:
            self.cut(0)
            self.cut(1)

    def binary(self, e: ir.Binary) -> str:
        op = e.op
        if op in ("&&", "||"):
            self.cond(e.left)
            self.cond(e.right)
            return NUMBER
        a, b = self.expr(e.left), self.expr(e.right)
        if BLOCK not in (a, b):
            return NUMBER
        if op in _FLIP:
            if a == b == BLOCK:
                if op not in ("==", "!="):
                    self.reject(e.span, "orders two block numbers, which renaming the blocks does not preserve")
                return NUMBER
            c, op = (e.right, op) if a == BLOCK else (e.left, _FLIP[op])
            if not isinstance(c, ir.Const):
                self.reject(e.span, "compares a block number with a value that is not a constant "
                                    "(a counter, a signal value), which renaming the blocks does not preserve")
                return NUMBER
            v = c.value
            if op in ("==", "!="):
                self.cut(v)
                self.cut(v + 1)
            else:
                self.cut(v if op in ("<", ">=") else v + 1)
            return NUMBER
        self.reject(e.span, f"uses a block number in `{op}`, which renaming the blocks does not preserve "
                            f"(only comparisons with constants and block indices do)")
        return NUMBER

    def use(self, sig, d: int, kind: str, value) -> None:
        u = self.dims.setdefault((sig.name, d), {"block": None, "const": set(), "other": None})
        self.signals[sig.name] = sig
        if kind == "const":
            u["const"].add(value)
        elif u[kind] is None:
            u[kind] = value

    def view(self, v: ir.View, in_order: bool) -> None:
        """`in_order`: a read of several elements, one at a time in index order."""
        sig = v.signal
        self.signals[sig.name] = sig
        if v.at is not None:
            self.number(v.at, "a block number as a rank")
        own = v.at is None or (isinstance(v.at, ir.Builtin) and v.at.name == "rank")
        if v.layout is not None:
            self.laid_out.setdefault(sig.name, v.span)
            for sel in v.selectors:
                for x in ((sel.expr,) if isinstance(sel, ir.Index) else (sel.start, sel.stop, sel.step)):
                    if x is not None:
                        self.number(x, "a block number indexes a declared view")
            return
        for d in range(len(sig.dims)):
            sel = v.selectors[d] if d < len(v.selectors) else None
            if isinstance(sel, ir.Index):
                t = self.expr(sel.expr)
                if t == BLOCK:
                    self.use(sig, d, "block", sel.span)
                    if not own and self.remote is None:
                        self.remote = sel.span
                elif isinstance(sel.expr, ir.Const):
                    self.use(sig, d, "const", sel.expr.value)
                else:
                    self.use(sig, d, "other", sel.span)
            else:
                for x in ((sel.start, sel.stop, sel.step) if sel is not None else ()):
                    if x is not None:
                        self.number(x, "a block number as a slice bound")
                self.slices.append((sig, d, sel, sel.span if sel is not None else v.span, in_order))

    def instr(self, ins) -> None:
        if isinstance(ins, ir.Assign):
            self.number(ins.value, "a local holds a block number, which is not renamed with the blocks")
        elif isinstance(ins, ir.Choose):
            self.number(ins.lo, "a block number as a bound of any()")
            self.number(ins.hi, "a block number as a bound of any()")
        elif isinstance(ins, (ir.Branch, ir.Assert, ir.Observe)):
            self.cond(ins.cond)
        elif isinstance(ins, ir.Notify):
            self.view(ins.view, False)
            self.number(ins.value, "a block number written into a signal")
        elif isinstance(ins, (ir.Wait, ir.Test)):
            self.view(ins.view, not self.atomic_waits)
            self.number(ins.value, "a block number as a wait operand")
        elif isinstance(ins, ir.Reset):
            self.view(ins.view, False)
        elif isinstance(ins, (ir.Load, ir.Store, ir.FetchAdd, ir.Cas)):
            self.view(ins.view, True)
            for x in (getattr(ins, "value", None), getattr(ins, "expected", None), getattr(ins, "new", None)):
                if x is not None:
                    self.number(x, "a block number written into a signal")
        elif isinstance(ins, (ir.Copy, ir.Access, ir.WaitEvent, ir.TestEvent)):
            self.reject(ins.span, "data statements are not reduced by block permutations")
        elif isinstance(ins, (ir.Jump, ir.Return, ir.Launch, ir.Join, ir.HostBarrier, ir.Fence, ir.BlockBarrier)):
            pass
        else:
            self.reject(ins.span, f"a statement the block symmetry check does not know ({type(ins).__name__})")

    def run(self) -> None:
        for code in (self.program.host, self.program.kernel):
            for ins in code.instrs:
                self.instr(ins)
        block_dims: dict = {}
        for (name, d), u in sorted(self.dims.items()):
            if u["block"] is None:
                continue
            sig = self.signals[name]
            if sig.dims[d] != self.B:
                self.reject(u["block"], f"a block number indexes dimension {d + 1} of `{name}`, whose size is not nblocks")
            if u["other"] is not None:
                self.reject(u["other"], f"dimension {d + 1} of `{name}` is indexed by a block number at {u['block']} "
                                        f"and by a counted or computed number here, which renaming the blocks "
                                        f"does not preserve")
            if name in self.laid_out:
                self.reject(self.laid_out[name], f"a declared view on `{name}`, whose dimension {d + 1} "
                                                 f"stands for blocks")
            if name in block_dims:
                self.reject(u["block"], f"`{name}` has two dimensions indexed by block numbers")
            block_dims[name] = d
            for c in u["const"]:
                self.cut(c)
                self.cut(c + 1)
        for sig, d, sel, span, in_order in self.slices:
            if block_dims.get(sig.name) != d:
                continue
            bounds = (0, self.B, 1) if sel is None else tuple(
                default if x is None else (x.value if isinstance(x, ir.Const) else None)
                for x, default in ((sel.start, 0), (sel.stop, self.B), (sel.step, 1)))
            if None in bounds or bounds[2] != 1:
                self.reject(span, f"a slice of the block dimension of `{sig.name}` with a computed bound or a step")
                continue
            if in_order and bounds[1] - bounds[0] > 1:
                self.reject(span, "a hardware wait reads the elements of a block dimension in index order, which "
                                  "renaming the blocks does not preserve (use --atomic-waits if the wait is one read)")
            self.cut(bounds[0])
            self.cut(bounds[1])
        self.block_dims = block_dims

    def classes(self) -> tuple:
        """The intervals (lo, hi) of at least two blocks that no statement tells apart."""
        cuts = sorted(self.cuts)
        return tuple((lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi - lo > 1)


class Blocks:
    """The permutations of interchangeable blocks (model/symmetry.py `_BlockTyping`), with the
    rank rotation if the system has that too. A group element is (k, perms): perms is None
    (no block moves) or, per rank r, None or the tuple p with block b of rank r renamed p[b];
    the state is renamed by perms first and then rotated by k. Blocks whose block-indexed
    signals are all on their own rank are permuted independently on every rank; otherwise
    one permutation renames the blocks of every rank alike."""

    group = "blocks"

    @classmethod
    def of(cls, system, rotation: Symmetry | None) -> tuple["Blocks | None", list[Reason]]:
        program = system.program
        if program.nblocks < 2:
            return None, []
        if system.lines:
            return None, []
        if program.buffers:
            return None, [Reason(program.buffers[0].span, "data buffers: block permutations do not rename the "
                                                          "happens-before clocks (the rank rotation does)")]
        typing = _BlockTyping(program, system.atomic_waits)
        typing.run()
        if typing.reasons:
            return None, typing.reasons
        classes = typing.classes()
        if not classes:
            return None, [Reason(None, "every block is told apart by a comparison with a constant")]
        sym = cls(system, typing, classes, rotation)
        problem = sym._consistent()
        if problem:
            return None, [Reason(None, problem)]
        return sym, []

    def __init__(self, system, typing: _BlockTyping, classes: tuple, rotation: Symmetry | None):
        self.system = system
        self.rotation = rotation
        self.classes = classes
        self.per_rank = typing.remote is None
        R, B, E = system.R, system.B, system.E
        self.R, self.B, self.E = R, B, E
        self.identity = (0, None)
        program = system.program
        # the block-indexed elements of one rank: (offset of block 0's element, stride)
        fams = []
        for sig in program.signals:
            d = typing.block_dims.get(sig.name)
            if d is None:
                continue
            stride = 1
            for size in sig.dims[d + 1:]:
                stride *= size
            for flat in range(sig.size):
                if sig.index_of(flat)[d] == 0:
                    fams.append((sig.offset + flat, stride))
        self.fams = tuple(fams)
        # per rank and block: the slices of the signal vector that hold the block's elements
        runs = []  # per signal with a block dimension: (offset, outer count, inner size)
        for sig in program.signals:
            d = typing.block_dims.get(sig.name)
            if d is not None:
                outer, inner = 1, 1
                for size in sig.dims[:d]:
                    outer *= size
                for size in sig.dims[d + 1:]:
                    inner *= size
                runs.append((sig.offset, outer, inner))
        self.slices = []
        for r in range(R):
            per_block = []
            for b in range(B):
                out = []
                for off, outer, inner in runs:
                    start = r * E + off
                    if inner == 1:
                        out.append(slice(start + b, start + outer * B, B))
                    else:
                        out += [slice(start + (o * B + b) * inner, start + (o * B + b + 1) * inner)
                                for o in range(outer)]
                per_block.append(tuple(out))
            self.slices.append(tuple(per_block))
        self.G = system.G
        gslot = system.ghost_slot
        self.granges = system.marks.ranges if self.G else [(0, 0)] * R
        # per rank: the ghost slots that are block-indexed elements, as (family, block)
        self.gfam = []
        for r in range(R):
            out = []
            for f, (base, stride) in enumerate(fams):
                for b in range(B):
                    g = gslot.get(r * E + base + b * stride)
                    if g is not None:
                        out.append((g, f, b))
            self.gfam.append(tuple(out))
        self._bits: dict = {}  # (mark, perm) -> the mark with its block readers renamed
        self._swaps: dict = {}  # (rank, a, b) -> `swap`
        self._plain = [list(range(n)) for n in range(B + 1)]  # the identity order of n blocks

    def first_of(self, b: int) -> int:
        """The first block of b's class (b itself if no other block is like it)."""
        for lo, hi in self.classes:
            if lo <= b < hi:
                return lo
        return b

    def swap(self, r: int, a: int, b: int) -> tuple:
        """Where each element position goes when blocks a and b of rank r (of every rank, if
        one permutation renames them all) trade places."""
        key = (r, a, b)
        table = self._swaps.get(key)
        if table is None:
            p = list(range(self.B))
            p[a], p[b] = b, a
            image = self._position_map(self._one(r, tuple(p)))
            table = tuple(image.get(q, q) for q in range(self.R * self.E))
            self._swaps[key] = table
        return table

    def describe(self) -> str:
        names = ", ".join(f"{lo}-{hi - 1}" for lo, hi in self.classes)
        where = "on each rank" if self.per_rank else "alike on every rank"
        blocks = f"permutations of blocks {names} {where}"
        return f"{self.rotation.describe()} and {blocks}" if self.rotation is not None else blocks

    # ------------------------------------------------------------ the tables

    def _generators(self):
        """Per rank (or None: every rank alike), each transposition of two neighbouring blocks
        of a class: (rank, perm)."""
        for lo, hi in self.classes:
            for b in range(lo, hi - 1):
                p = list(range(self.B))
                p[b], p[b + 1] = b + 1, b
                yield tuple(p)

    def _consistent(self) -> str | None:
        """A second look at the system's own tables: renaming must map them onto themselves."""
        s = self.system
        if not self.G:
            return None
        for p in self._generators():
            for r in range(self.R):
                perms = self._one(r, p)
                image = self._position_map(perms)
                if any(image.get(q, q) not in s.ghost_slot for q in s.ghost_positions):
                    return "the lost-notification bookkeeping is not the same for every block"
                for (is_host, rr, b), per_pc in s.ghost_reads.items():
                    other = s.ghost_reads[(is_host, rr, b if is_host or perms[rr] is None else p[b])]
                    for g_here, g_there in zip(per_pc, other):
                        mapped = 0
                        for g in range(self.G):
                            if (g_here >> g) & 1:
                                q = s.ghost_positions[g]
                                mapped |= 1 << s.ghost_slot[image.get(q, q)]
                        if mapped != g_there:
                            return "the blocks may read different elements"
                if not self.per_rank:
                    break
        return None

    def _one(self, r: int, p: tuple):
        return tuple(p for _ in range(self.R)) if not self.per_rank else \
            tuple(p if q == r else None for q in range(self.R))

    def _position_map(self, perms) -> dict:
        out = {}
        E = self.E
        for r, p in enumerate(perms):
            if p is None:
                continue
            for base, stride in self.fams:
                for b in range(self.B):
                    if p[b] != b:
                        out[r * E + base + b * stride] = r * E + base + p[b] * stride
        return out

    # ------------------------------------------------------------ the group

    def compose(self, a, b):
        """a after b."""
        k2, p2 = a
        k1, p1 = b
        R = self.R
        k = (k1 + k2) % R
        if p1 is None and p2 is None:
            return (k, None)
        out = []
        for r in range(R):
            x = p1[r] if p1 is not None else None
            y = p2[(r + k1) % R] if p2 is not None else None
            if y is None:
                out.append(x)
            elif x is None:
                out.append(y)
            else:
                out.append(tuple(y[x[i]] for i in range(self.B)))
        return (k, tuple(out))

    def inverse(self, g):
        k, p = g
        R = self.R
        if p is None:
            return ((-k) % R, None)
        out = []
        for r in range(R):
            x = p[(r - k) % R]
            if x is None:
                out.append(None)
            else:
                inv = [0] * self.B
                for i, j in enumerate(x):
                    inv[j] = i
                out.append(tuple(inv))
        return ((-k) % R, tuple(out))

    def apply(self, state, g):
        k, perms = g
        if perms is not None:
            state = self.permute(state, perms)
        return self.rotation.rotate(state, k) if k else state

    def process(self, i: int, g) -> int:
        k, perms = g
        if i >= self.R and perms is not None:
            r, b = divmod(i - self.R, self.B)
            p = perms[r]
            if p is not None:
                i = self.R + r * self.B + p[b]
        return self.rotation.process(i, k) if self.rotation is not None else i

    def label(self, state, label: int, g) -> int:
        """The label of the step `label` of `state`, renamed by g (a step of the renamed state)."""
        n = self.system.nprocs
        if label < 0:
            return self.process(label, g)
        i, alt = label % n, label // n
        rot = self.rotation
        if rot is not None:
            entry = state.procs[i]
            if entry is not None and entry[0] in rot.rank_choices[i < self.R]:
                alt = (alt + g[0]) % self.R
        return self.process(i, g) + alt * n

    # ------------------------------------------------------------ states

    def _mark(self, m: int, p: tuple) -> int:
        """A ghost mark with its block readers renamed by p (bit 1 + k*B + b: block b)."""
        key = (m, p)
        out = self._bits.get(key)
        if out is None:
            B = self.B
            out, rest, j = m & 1, m >> 1, 0
            while rest:
                if rest & 1:
                    k, b = divmod(j, B)
                    out |= 1 << (1 + k * B + p[b])
                rest >>= 1
                j += 1
            if len(self._bits) > 100_000:
                self._bits.clear()
            self._bits[key] = out
        return out

    def permute(self, state, perms):
        """The state with block b of rank r renamed perms[r][b]."""
        R, B, E = self.R, self.B, self.E
        old_p, old_s, old_g = state.procs, state.signals, state.ghost
        procs, sig = list(old_p), list(old_s)
        ghost = list(old_g) if self.G else None
        for r, p in enumerate(perms):
            if p is None:
                continue
            base = R + r * B
            for b in range(B):
                procs[base + p[b]] = old_p[base + b]
            rE = r * E
            where = self.slices[r]
            for b in range(B):
                if p[b] != b:
                    for src, dst in zip(where[b], where[p[b]]):
                        sig[dst] = old_s[src]
            if ghost is not None:
                lo, hi = self.granges[r]
                for g in range(lo, hi):
                    ghost[g] = self._mark(old_g[g], p)
                moved = {}
                for g, f, b in self.gfam[r]:
                    moved[g] = ghost[g]
                for g, f, b in self.gfam[r]:
                    base_f, stride = self.fams[f]
                    ghost[self.system.ghost_slot[rE + base_f + p[b] * stride]] = moved[g]
        return state._replace(procs=tuple(procs), signals=tuple(sig),
                              ghost=tuple(ghost) if ghost is not None else old_g)

    def _keys(self, state, r: int, relative, bits: bool) -> list:
        """The sort key of each block of rank r: its entry (`relative`: the rank's entries with
        their rank-typed locals renamed relative to it, from `Symmetry.relative_entries`, host
        first; None: as they are), its block-indexed signal values, and (`bits`) its reader
        bits in the rank's marks."""
        B = self.B
        if relative is not None:
            keys = list(relative[1:])
        else:
            base = self.R + r * B
            keys = [() if e is None else e for e in state.procs[base:base + B]]
        if self.fams:
            sig = state.signals
            for b, sl in enumerate(self.slices[r]):
                vals = sig[sl[0]]
                for one in sl[1:]:
                    vals += sig[one]
                keys[b] = (keys[b], vals)
        if bits:
            lo, hi = self.granges[r]
            marks = state.ghost[lo:hi]
            for b in range(B):
                out = []
                for m in marks:
                    m, v, j = m >> (1 + b), 0, 0
                    while m:
                        v |= (m & 1) << j
                        m >>= B
                        j += 1
                    out.append(v)
                keys[b] = (keys[b], tuple(out))
        return keys

    def _sorting(self, keys) -> tuple | None:
        """The permutation that sorts each class by its keys (None: it is the identity)."""
        p = None
        for lo, hi in self.classes:
            part = keys[lo:hi]
            order = sorted(range(hi - lo), key=part.__getitem__, reverse=True)
            if order == self._plain[hi - lo]:
                continue
            for j, b in enumerate(order):
                if b != j:
                    if p is None:
                        p = list(range(self.B))
                    p[lo + b] = lo + j
        return tuple(p) if p is not None else None

    def canon_k(self, state):
        """(the representative of the state's orbit, the g with representative = apply(state, g)).
        Per rank, each class of blocks is sorted by its keys (most advanced first), then the
        ranks are rotated to the least rotation. With one permutation for every rank and the
        rotation, a block's key is the sorted tuple of its keys on every rank, which rotating
        does not change. Either way the keys do not change under the rotation and a sorted
        state sorts to itself, so the representative of a representative is itself (the
        explorer and the trace rebuild rely on that)."""
        R, G = self.R, self.G
        ghost = state.ghost
        bits = [any(ghost[lo:hi]) for lo, hi in self.granges] if G else [False] * R
        rotation = self.rotation
        # with the rotation, keys read each rank's entries relative to it (the rotation's canon
        # reads the same, and is handed them when no block moves)
        relative = [rotation.relative_entries(state.procs, r) for r in range(R)] if rotation is not None else None
        if self.per_rank:
            perms = [self._sorting(self._keys(state, r, relative and relative[r], bits[r])) for r in range(R)]
            perms = tuple(perms) if any(p is not None for p in perms) else None
        else:
            some = any(bits)  # one shape of key on every rank (they are compared with each other)
            per_rank = [self._keys(state, r, relative and relative[r], some) for r in range(R)]
            keys = list(zip(*per_rank))
            if rotation is not None:
                keys = [tuple(sorted(k)) for k in keys]
            p = self._sorting(keys)
            perms = tuple(p for _ in range(R)) if p is not None else None
        if perms is not None:
            state, relative = self.permute(state, perms), None
        if rotation is None:
            return state, (0, perms)
        rep, k = rotation.canon_k(state, relative)
        return rep, (k, perms)

    def canon(self, state):
        return self.canon_k(state)[0]

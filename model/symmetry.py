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

Programs with data buffers (happens-before clocks) and --set-granularity line are not
reduced. Every rejection is kept with its location, for `--explain-symmetry`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from model import ir
from model.analysis import TOP, evaluate
from model.errors import Span

RANK, NUMBER = "rank", "number"


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
        elif isinstance(ins, (ir.Copy, ir.Access, ir.WaitEvent, ir.TestEvent)):
            self.reject(ins.span, "data statements are not reduced by symmetry")
        elif isinstance(ins, (ir.Jump, ir.Return, ir.Launch, ir.Join, ir.HostBarrier, ir.Fence, ir.BlockBarrier)):
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
    if program.buffers:
        t = _Typing(program, analysis, atomic_waits, True)
        t.reasons.append(Reason(program.buffers[0].span, "data buffers: the happens-before clocks are not "
                                                         "renamed, so programs with buffers are not reduced"))
        return t
    first = None
    for any_rank in (True, False):
        t = _Typing(program, analysis, atomic_waits, any_rank)
        t.run()
        if not t.reasons:
            return t
        first = first or t
    return first


class Symmetry:
    """The rotations r -> r + k (mod N) of the ranks, for a system they leave invariant."""

    group = "rotation"

    @classmethod
    def of(cls, system) -> tuple["Symmetry | None", list[Reason]]:
        """The symmetry of `system`, or None and the reasons it has none."""
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

    def __init__(self, system, typing: _Typing):
        self.system = system
        R, B, E = system.R, system.B, system.E
        self.R, self.B, self.E = R, B, E
        program = system.program
        rank_dims = {key for key, (t, _) in typing.dims.items() if t == RANK}
        offsets = [s.offset for s in program.signals]
        # rot[k][pos]: where the element at pos goes when rank r becomes rank r + k
        self.rot = []
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
                out.append(((r + k) % R) * E + sig.offset + flat)
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
        # the relative view of rank r: rank 0's elements (and ghost slots) renamed onto rank r
        self.rel_pos = [tuple(self.rot[r][p] for p in range(E)) for r in range(R)]
        g0 = [g for g, p in enumerate(system.ghost_positions) if p < E] if self.ghost_ok else []
        self.rel_ghost = [tuple(gidx[self.rot[r][system.ghost_positions[g]]] for g in g0) for r in range(R)] \
            if self.ghost_ok else []
        self.rel_procs = [(r,) + tuple(R + r * B + b for b in range(B)) for r in range(R)]
        self._same: dict = {None: None}  # a renamed process entry -> the one object kept for it

    def describe(self) -> str:
        return f"rotation of the {self.R} ranks"

    def _consistent(self) -> str | None:
        """A second look at the system's own tables: renaming must map them onto themselves."""
        s = self.system
        if not self.ghost_ok:
            return "the lost-notification bookkeeping is not the same on every rank"
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
        L = list(entry[2])
        R = self.R
        for s in slots:
            L[s] = (L[s] + k) % R
        return (entry[0], entry[1], tuple(L)) + tuple(entry[3:])

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
        # one object per distinct renamed entry (the stores find entries by object id first)
        same = self._same.setdefault
        new_procs = tuple(same(e, e) for e in (self._entry(procs[pinv[i]], pinv[i] < R, k) for i in range(len(procs))))
        sig = state.signals
        new_sig = tuple(sig[j] for j in self.inv[k])
        ghost = state.ghost
        new_ghost = tuple(ghost[j] for j in self.ginv[k]) if self.G else ghost
        launches = state.launches
        new_launches = tuple(launches[(r - k) % R] for r in range(R)) if launches else launches
        return state._replace(procs=new_procs, signals=new_sig, ghost=new_ghost, launches=new_launches)

    def canon_k(self, state):
        """(the representative of the state's orbit, the k with representative = rotate(state, k))."""
        procs = state.procs
        for p in procs:
            if p is not None and p[1] < 0:  # a process that spins in a local loop keeps its stale locals
                return state, 0
        R = self.R
        sig, ghost, launches = state.signals, state.ghost, state.launches
        segs = []
        for r in range(R):
            ents = []
            for i in self.rel_procs[r]:
                e = procs[i]
                ents.append(() if e is None else self._entry(e, i < R, -r))
            seg = (tuple(ents), tuple(sig[p] for p in self.rel_pos[r]))
            if self.G:
                seg += (tuple(ghost[g] for g in self.rel_ghost[r]),)
            if launches:
                seg += (launches[r],)
            segs.append(seg)
        best = 0
        doubled = segs + segs
        for s in range(1, R):
            if doubled[s:s + R] < doubled[best:best + R]:
                best = s
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

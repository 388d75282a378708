"""Which steps commute: stubborn sets for partial-order reduction. Entry point: `Reduction(system)`.

`Reduction(system).ample(state, steps)` gives a subset of the enabled `steps` of `state` that is
a stubborn set (or None: explore them all). It is built per state from the processes:
start from one process that can move and close the set under "must come along":

- a process that can move needs every other process whose *future* steps (any statement
  still reachable in its code from where it stands, over-approximated from the footprints of
  model/analysis.py) may conflict with its step: a write to an element the other may read or
  write, a read of an element the other may write, or, where the lost-notification ghost
  lives, a step of a possible reader of an element the other may Set or reset (the step can
  drop the reader's pending mark, and the judgement of an overwrite depends on the readers'
  positions);
- a block whose future conflicts only beyond a TWAIT it cannot pass now is not needed if
  every process that may write what that TWAIT reads is in the set (or, for a GE/GT count,
  if those left out can only add, and less than it lacks): `_gated`;
- a process that cannot move needs every process that may enable it: the writers of the
  elements its wait reads at its locals, the blocks its `launch` waits for, the hosts a `host_barrier`
  waits for, the blocks of its rank a `block_barrier` waits for (one that has not arrived
  is enough: none of them can pass before it moves).

A host with a `launch` still ahead counts its kernel's footprint (every block, every launch)
and, where the ghost exists, the ghost elements of its rank (a launch shifts their marks)
as its own. A running block's own host is never needed by it: the host can do nothing
before all its blocks return.

Every step kept commutes with every step the processes left out may take before one of the
kept processes moves, and none of those can enable a kept process that is blocked: the set
is stubborn (conditions D1 and D2 of Valmari), so every terminal state and, with the
explorer's cycle proviso (a state is expanded fully when a kept step closes a cycle),
every reachable fault, overwrite and doomed state has a representative in the reduced graph.
A program whose state graph has no cycle (`cycles()` is None: no process can come back to a
point, model/analysis.py `repeat_points`) needs no proviso, and elsewhere only a step whose
mover stands where its kind of process may loop can close a cycle (docs/trust.md 3a).
docs/trust.md gives the argument. `--set-granularity line` is not reduced: `supported` is
False for it.

Programs with data statements (buffers, TPUT/TGET, READ/WRITE, LOAD/STORE/FETCH_ADD/CAS,
events, fences) are reduced in the *data mode*: their state carries happens-before clocks
(model/hb.py), so a signal step does more than change a value: a write starts or extends
the element's release sequence and a passing read acquires it. Every rule that lets two
steps on one element commute because of their values (writes that cannot falsify a wait,
Sets of one value, increases of rising elements) is off, by taking every access of a step
as an arbitrary one (`_touch`): its writes conflict with every other access of the
element, its reads with every write. Only two AtomicAdds of one direction (on an element
only ever added to that way, or whose adds cannot overflow) still commute: each extends the
release sequence by joining its clock, in either order. A data statement counts, for itself and
in every future that may reach it, as a write of every element it may touch (a LOAD of its
signal element, copies and accesses of their buffer elements, placed after the signal
elements in the masks; STORE, FETCH_ADD and CAS write their element already); events and
fences touch only the process's own clocks. Steps of different processes that touch no common
element then change disjoint parts of the state (values, release clocks, access shadows,
each process's own clock), so they commute and lead to the same state.
"""

from __future__ import annotations

import functools
import operator

from model import analysis as A
from model import ir
from model.cint import COMPARE
from model.vocabulary import FALLING_CMPS, RISING_CMPS

_DATA = (ir.Load, ir.Store, ir.FetchAdd, ir.Cas, ir.Copy, ir.Access, ir.WaitEvent, ir.TestEvent, ir.Fence)


def supported(system) -> tuple[bool, str]:
    """Whether the reduction applies to `system`, and why not."""
    if system.lines:
        return False, "--set-granularity line is not reduced"
    return True, ""


class _Future:
    """Per instruction of one process context: what the process may still touch from there
    (the instruction itself included), as bitmasks of global positions."""

    __slots__ = ("rw", "w", "s", "m", "r_up", "r_down", "w_up", "w_down", "reads", "later", "lg", "now_r", "now_w",
                 "info", "own", "gates", "gate", "launch_pcs")

    def __init__(self, n):
        self.rw = [0] * n  # any access
        self.w = [0] * n  # writes
        self.s = [0] * n  # Set / reset writes
        self.m = [0] * n  # wait / test reads of ghost elements
        self.r_up = [0] * n  # reads whose outcome an increase can change (all but GE/GT waits)
        self.r_down = [0] * n  # reads whose outcome a decrease can change (all but LE/LT waits)
        self.w_up = [0] * n  # writes other than AtomicAdds of values >= 0
        self.w_down = [0] * n  # writes other than AtomicAdds of values <= 0
        self.reads = [0] * n  # the TWAIT / TTEST instructions reachable (a bitmask of their indices)
        self.later = [0] * n  # a host: what the kernels of its launches still ahead may touch
        self.lg = [0] * n  # a host with a launch ahead: its rank's ghost elements (a launch shifts their marks)
        self.info = [None] * n  # per TWAIT / TTEST: (positions, cmp, smallest, largest operand or None, mono,
        #                        operand values or TOP)
        self.now_r = [0] * n  # the instruction's own reads
        self.now_w = [0] * n  # ... and writes
        self.own = None  # {field: per instruction, its own masks} (before the suffix unions)
        self.launch_pcs = ()  # a host: the `launch` instructions it may still reach (its kernel's footprint is not in `own`)
        self.gate = [False] * n  # a TWAIT that can be a gate (`Reduction._gated`): one element, or atomic, never faults
        self.gates = {}  # (pc, wait pc) -> the `_CONFLICT` masks of what is reachable from pc short of the wait


_FIELDS = ("rw", "w", "s", "m", "r_up", "r_down", "w_up", "w_down", "reads")
_CONFLICT = ("rw", "w", "s", "r_up", "r_down", "w_up", "w_down", "lg")  # the masks a conflict is judged on
_POSITIONS = ("rw", "w", "s", "m", "r_up", "r_down", "w_up", "w_down", "later", "lg", "now_r", "now_w")  # masks of elements
_COLUMNS = _POSITIONS + ("reads", "info", "gate")  # the per-instruction lists of a _Future
_UP, _DOWN = RISING_CMPS, FALLING_CMPS


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _single(view: ir.View) -> bool:
    """Whether a view names one element (an index for every dimension)."""
    return len(view.selectors) == len(view.shape()[1]) and all(isinstance(x, ir.Index) for x in view.selectors)


def _safe(ins: ir.Wait, env, ctx) -> bool:
    """Whether a TWAIT on its own rank surely cannot fault under `env`: indices in range and
    no operand that may raise (a wait that faults is a step whatever the values)."""
    if ins.view.at is not None or A.may_fault(ins.value, env, ctx):
        return False
    _, dims, _, _ = ins.view.shape()
    for sel, d in zip(ins.view.selectors, dims):
        if not isinstance(sel, ir.Index) or A.may_fault(sel.expr, env, ctx):
            return False
        v = A.evaluate(sel.expr, env, ctx)
        if v is A.TOP or not all(0 <= x < d for x in v):
            return False
    return True


# statements that leave a block's locals as they are (a failed assert or a fault stops the
# block: following it further only adds to what it may do)
_LOCALS_STAY = (ir.Wait, ir.Notify, ir.Fence, ir.Access, ir.Store, ir.Reset, ir.Assert, ir.Observe, ir.BlockBarrier)


_UNASKED = object()
REFINED_KEPT = 256  # refined futures computed (model/independence.py `_reachable`), per generation
IMAGES_KEPT = 256  # refined futures renamed onto another rank or block: cheap to remake, so only so many are kept
RECENT_KEPT = 8  # per process, the futures of its latest entries (`_future`): a state's processes mostly stand where they stood


def _may_close(R: int, members, host, kernel, state, step) -> bool:
    """Whether `step` of `state` may lie on a cycle: one of its movers stands at a pc where its
    kind of process may loop (`host`, `kernel`: sets of pcs, None for every pc)."""
    procs = state.procs
    for j in members(step.process):
        pcs = host if j < R else kernel
        if pcs is None or procs[j][0] in pcs:
            return True
    return False


def _kept(gate: tuple, members, adds) -> bool:
    """Whether the stubborn set `members` holds gate (keepers, the counter element or None,
    what the wait lacks): every keeper is in; for a count, every keeper left out can only add
    to the counter (`adds(k, q)` is not None), and all they can add falls short of what the
    wait lacks. The adds are asked only of keepers left out, and only until one fails."""
    keepers, q, lacks = gate
    if q is None:
        return keepers <= members
    total, need = 0, max(lacks, 1)
    for k in keepers:
        if k in members:
            continue
        n = adds(k, q)
        if n is None:
            return False
        total += n
        if total >= need:
            return False
    return True


class Reduction:
    def __init__(self, system, commute_adds: bool = True, symmetry=None):
        self.system = system
        self.commute_adds = commute_adds
        # with the system's rank rotation (model/symmetry.py), a process's future from where it
        # stands is the image of rank 0's from the renamed place: computed once, renamed per rank
        # (block permutations are not used here: each block's future is its own)
        self.symmetry = symmetry.rotation if symmetry is not None else None
        # with block permutations, a block's future is the image of its class's first block's
        self.blocks = symmetry if symmetry is not None and symmetry.group == "blocks" else None
        self._images: dict = {}  # rank r -> {mask: its image under the renaming of rank 0 onto rank r}
        ok, why = supported(system)
        self.enabled = ok
        self.why_not = why
        if not ok:
            return
        s = system
        self.R, self.B, self.n = s.R, s.B, s.nprocs
        p = s.program
        # the data mode (see the module's docstring): conflicts by element, whatever the values
        self.data = bool(p.buffers) or any(isinstance(x, _DATA) for c in (p.host, p.kernel) for x in c.instrs)
        self._not_up = self._not_down = 0  # elements some instruction writes otherwise than by an increase
        self._remote_not_up = self._remote_not_down = 0  # elements some process of another rank touches
        #                                                  otherwise than by an AtomicAdd >= 0 (<= 0)
        self._not_set, self._set_values = 0, {}  # elements written otherwise than by a Set of one constant
        self.ghost = 0
        for p in s.ghost_positions:
            self.ghost |= 1 << p
        an = s.analysis
        # elements whose value never decreases (model/analysis.py `rising`), outside the ghost:
        # a Set of one is an increase (or changes nothing), like an AtomicAdd of a value >= 0
        sets = an.totals().sets & ~self.ghost
        self.rising = an.rising(sets) if sets else 0
        self._fut = {}
        kernel_union = {}
        for kind, r, b in an.contexts():
            self._fut[(kind, r, b)] = self._reachable(kind, r, b)
        for r in range(self.R):
            u = dict.fromkeys(_FIELDS, 0)
            for b in range(self.B):
                f = self._fut[("kernel", r, b)]
                if f.rw:
                    for name in _FIELDS:
                        u[name] |= getattr(f, name)[0]
            kernel_union[r] = u
        self._kernel_union = kernel_union
        # hosts: the kernel counts from every instruction that can still reach a launch
        code = an.codes["host"]
        for r in range(self.R):
            f = self._fut[("host", r, 0)]
            reach = self._reaches_launch(code)
            u = kernel_union[r]
            for pc in range(len(code.instrs)):
                if reach[pc]:
                    for name in _FIELDS:
                        if name != "reads":  # instruction indices of another code
                            getattr(f, name)[pc] |= u[name]
                    f.later[pc] = u["rw"]
                    f.lg[pc] = self.ghost & (((1 << s.E) - 1) << (r * s.E))
        # elements only ever increased (decreased) by AtomicAdds: two such adds commute, but for
        # which one overflows; see `commute_adds` and checker/check.py
        everything = (1 << (s.R * s.E)) - 1
        self.up_only = everything & ~self._not_up if commute_adds else 0
        self.down_only = everything & ~self._not_down if commute_adds else 0
        # two AtomicAdds of one sign to an element commute, but for which one overflows, whatever
        # else writes it: every other write (a Set, a reset, an add of the other sign) stays
        # dependent with them (docs/trust.md, section 3a). (A ghost element's adds are judged
        # apart: `_touch` never counts them as increases or decreases.)
        self.one_sign_adds = everything if commute_adds else 0
        # ghost elements that the processes of other ranks only add to, all with one sign (a
        # count of arrivals at a root): two such remote adds commute, but for which one
        # overflows. Each ORs the same readers of the holder's rank into the element's mark
        # (model/ghost.py `notified`: the readers are the holder's processes, which neither
        # add moves), and neither replaces a notification. Everything of the holder's rank
        # that touches the element stays dependent with them. Not in the data mode.
        self.remote_adds = self.ghost & ((everything & ~self._remote_not_up) | (everything & ~self._remote_not_down)) \
            if commute_adds and not self.data else 0
        # elements written only by AtomicAdds that can never overflow: any two adds commute
        # (asked only of those whose adds do not commute already)
        self.bounded_adds = an.bounded_adds(everything & ~(self.up_only | self.down_only))
        # elements every write of which is a Set of one and the same constant: such Sets commute
        # with each other, and the element never holds an unread notification that one of them
        # replaces (it changes value once, from its initial value, before anything is pending)
        self.same_set = 0
        if commute_adds:
            for q, vs in self._set_values.items():
                if len(vs) == 1 and not (self._not_set >> q) & 1:
                    self.same_set |= 1 << q
        self.kinds = tuple(self._fut[("host", i, 0)] if i < self.R else
                           self._fut[("kernel", (i - self.R) // self.B, (i - self.R) % self.B)]
                           for i in range(self.n))
        self._instrs = (code.instrs, an.codes["kernel"].instrs)
        self._rank_mask = tuple(((1 << s.E) - 1) << (r * s.E) for r in range(self.R))
        self._host_barriers = any(isinstance(x, ir.HostBarrier) for x in code.instrs)
        self._cycles = _UNASKED
        self.reduced = 0  # states where a proper subset was kept
        # (rank, block, launch id, pc, locals) -> _Future from there: two generations of
        # REFINED_KEPT (a run seldom comes back to a future it has not asked for lately)
        self._refined: dict = {}
        self._refined_before: dict = {}
        # the same for the images of those futures on other ranks and blocks, the latest ones only
        # (two generations of IMAGES_KEPT): they are many, and cheap to make again
        self._imaged: dict = {}
        self._imaged_before: dict = {}
        self._image_columns: dict = {}  # ... and their columns
        self._columns: dict = {}  # a column of a refined future, a mask of a way -> the one object kept for it
        self._ways: dict = {}  # (block, launch id, pc, locals) -> the wait it surely reaches, or None
        self._paths: dict = {}  # (block, launch id, pc, locals) -> `_way`
        self._waits: dict = {}  # (process, launch count, pc, locals) -> what its blocked TWAIT reads
        self._standing: dict = {}  # (process, entry, next entry, launch counts) -> `_still_touched`
        self._cur: dict = {}  # per state: process -> its _Future from where it stands
        self._masks: dict = {}  # per state: running process -> `_at` its pc of that future: the masks
        self._reach: dict = {}  # ... and their union
        # per running process: its latest entries, by object (id -> (entry, launch id, _Future,
        # masks, union: `_at`)), at most RECENT_KEPT. The futures of a state are asked for every process, and
        # 98-99% of them are those of the very entry object the process stood at in one of the
        # last few states (epoch and DeepEP barriers at 32 ranks). A record holds its entry, so
        # while it is kept no other object has that id.
        self._recent: tuple = tuple({} for _ in range(self.n))
        self._home = tuple(-1 if j < self.R else (j - self.R) // self.B for j in range(self.n))  # a block's rank

    def acyclic(self) -> bool:
        """Whether no sequence of steps comes back to a state (docs/trust.md 3a, "Without
        cycles"): then the explorer needs no cycle proviso."""
        return self.cycles() is None

    def cycles(self):
        """None when no sequence of steps comes back to a state; else a function (state, step)
        -> whether the step may lie on a cycle of the state graph (docs/trust.md 3a, "Cycles
        only where a process loops"): a step whose movers all stand at pcs where their kind of
        process never loops cannot close one, and the explorer's proviso needs only the
        others. Computed when first asked (the explorer asks only when the proviso would
        expand a state fully): the walks cost up to 0.2 s at 32 ranks."""
        if self._cycles is _UNASKED:
            s = self.system
            points = dict(s.analysis.repeat_points())
            for kind, code in (("host", s.program.host), ("kernel", s.program.kernel)):
                restarts = {q for q, x in enumerate(code.instrs)  # a multi-element pass starts over
                            if isinstance(x, ir.Wait) and not (s.atomic_waits or _single(x.view))}
                if restarts and points[kind] is not None:
                    points[kind] = points[kind] | restarts
            if all(v is not None and not v for v in points.values()):
                self._cycles = None
            else:
                self._cycles = functools.partial(_may_close, self.R, self._members,
                                                 points["host"], points["kernel"])
        return self._cycles

    def _future(self, j: int, entry, launches) -> _Future:
        """Process j's future from its entry: a kernel block's from its pc and locals (cached),
        a host's from its pc."""
        if entry[1] < 0:
            return self.kinds[j]
        if j < self.R:
            kind, r, b, lid = "host", j, 0, 0
        else:
            r, b = divmod(j - self.R, self.B)
            kind, lid = "kernel", launches[r] - 1 if launches else 0
        return self._refined_future(kind, r, b, lid, entry)

    def _recent_future(self, j: int, entry, launches) -> tuple:
        """(entry, launch id, future, *`_at` of it) of running process j, kept among its latest."""
        recent = self._recent[j]
        if len(recent) >= RECENT_KEPT:
            recent.clear()
        f = self._future(j, entry, launches)
        r = self._home[j]
        hit = recent[id(entry)] = (entry, launches[r] - 1 if r >= 0 and launches else 0, f, *self._at(f, entry[0]))
        return hit

    def _refined_future(self, kind: str, r: int, b: int, lid: int, entry) -> _Future:
        """The future of process (kind, r, b) in launch `lid` from its entry (cached)."""
        key = (kind, r, b, lid, entry[0], entry[2])
        hit = self._refined.get(key)
        if hit is None:
            hit = self._refined_before.get(key)
            if hit is not None:  # one of the generation before: kept on
                self._refined[key] = hit
                return hit
            hit = self._imaged.get(key)
            if hit is not None:
                return hit
            hit = self._imaged_before.get(key)
            if hit is not None:  # one of the generation before: kept on
                self._imaged[key] = hit
                return hit
            first = self.blocks.first_of(b) if self.blocks is not None and kind == "kernel" else b
            if self.symmetry is not None and r:
                base = self._refined_future(kind, 0, b, lid, self.symmetry.renamed(entry, kind == "host", -r))
                hit = self._image(base, r, self.symmetry.rot[r])
            elif first != b:
                base = self._refined_future(kind, r, first, lid, entry)
                hit = self._image(base, (r, first, b), self.blocks.swap(r, first, b))
            else:
                if len(self._refined) >= REFINED_KEPT:  # a new generation: the one before is dropped
                    self._refined_before, self._refined = self._refined, {}
                    self._columns = {}
                hit = self._refined[key] = self._shared(self._reachable(kind, r, b, (lid, entry[0], entry[2])))
                return hit
            if len(self._imaged) >= IMAGES_KEPT:  # a new generation: the one before is dropped
                self._imaged_before, self._imaged = self._imaged, {}
                self._image_columns = {}
                self._images.clear()
            self._imaged[key] = hit = self._shared(hit, self._image_columns)
        return hit

    def _shared(self, f: _Future, columns: dict | None = None) -> _Future:
        """`f` with each column (per instruction: a mask, a read's facts) frozen and shared with
        the equal columns of the other refined futures: they are few (a tenth on the epoch
        barrier at 32 ranks) where the futures are many, and none changes once made."""
        same = (self._columns if columns is None else columns).setdefault
        for name in _COLUMNS:
            col = tuple(getattr(f, name))
            setattr(f, name, same(col, col))
        if f.own is not None:
            f.own = {name: same(tuple(col), tuple(col)) for name, col in f.own.items()}
        return f

    def _image(self, f: _Future, key, rot) -> _Future:
        """Rank 0's future `f` renamed onto rank r (key r, rot the rotation by r), or block
        a's renamed onto block b (key (r, a, b), rot their transposition): every element
        through `rot` (the instructions, comparisons and operand values stay: they are the
        same on every rank and every block of a class, which the symmetry check made sure of)."""
        memo = self._images.setdefault(key, {0: 0})

        def image(m: int) -> int:
            out = memo.get(m)
            if out is None:
                out = 0
                for q in _bits(m):
                    out |= 1 << rot[q]
                memo[m] = out
            return out

        g = _Future(0)
        for name in _POSITIONS:
            setattr(g, name, [image(m) for m in getattr(f, name)])
        g.reads = f.reads
        g.info = [None if x is None else (image(x[0]),) + x[1:] for x in f.info]
        if f.own is not None:
            g.own = {name: [image(m) for m in col] for name, col in f.own.items()}
        g.gate = f.gate
        g.launch_pcs = f.launch_pcs
        return g

    def _reachable(self, kind, r, b, start=None) -> _Future:
        """What process (kind, r, b) may touch from each instruction on. With `start` =
        (launch id, pc, locals), only from that point of one run: the value analysis then
        starts from those locals (a loop counter can only go on counting), which is what
        keeps the elements a ring's rank already wrote out of its future."""
        s = self.system
        an = s.analysis
        code = an.codes[kind]
        if start is None:
            fps = an.footprints(kind, r, b)
            envs, ctx = an.envs(kind, r, b)
        else:
            lid, pc0, L = start
            envs, fps, ctx = an.footprints_from(kind, r, b, lid, pc0, L)
        n = len(code.instrs)
        f = _Future(n)
        g = self.ghost
        for pc, (ins, fp, env) in enumerate(zip(code.instrs, fps, envs)):
            # the data mode: a data statement writes whatever it may touch
            touched = self._data_touch(ins, env, ctx, r) if self.data else 0
            f.now_r[pc] = fp.reads | touched
            f.now_w[pc] = fp.writes | touched
            f.rw[pc] = fp.reads | fp.writes | touched
            f.w[pc] = fp.writes | touched
            f.s[pc] = fp.sets
            f.m[pc] = fp.reads & g
            mono = isinstance(ins, ir.Wait) and (s.atomic_waits or _single(ins.view))
            f.r_up[pc], f.r_down[pc], f.w_up[pc], f.w_down[pc] = self._monotone(ins, fp, env, ctx, touched)
            if isinstance(ins, ir.READ_INSTRS) and fp.reads and env is not None:
                f.reads[pc] = 1 << pc
                values = A.evaluate(ins.value, env, ctx)
                lo, hi = (None, None) if values is A.TOP or not values else (min(values), max(values))
                f.info[pc] = (fp.reads, ins.cmp, lo, hi, mono, values)
                f.gate[pc] = mono and values is not A.TOP and isinstance(ins, ir.Wait) and _safe(ins, env, ctx)
            w_up, w_down = f.w_up[pc], f.w_down[pc]
            if fp.writes and start is None:  # the element classes are the static analysis's
                values = A.evaluate(ins.value, env, ctx) if isinstance(ins, ir.Notify) and ins.op == ir.SET \
                    and env is not None else A.TOP
                if values is not A.TOP and len(values) == 1:
                    (v,) = values
                    for q in _bits(fp.writes):
                        self._set_values.setdefault(q, set()).add(v)
                else:
                    self._not_set |= fp.writes
            if start is None:
                self._not_up |= w_up
                self._not_down |= w_down
                add = isinstance(ins, ir.Notify) and ins.op == ir.ATOMIC_ADD
                remote = (fp.reads | fp.writes | touched) & ~(((1 << s.E) - 1) << (r * s.E))
                if remote:
                    values = A.evaluate(ins.value, env, ctx) if add and env is not None else A.TOP
                    known = values is not A.TOP and values  # (a TWAIT or TTEST reads its own rank only)
                    self._remote_not_up |= 0 if known and min(values) >= 0 else remote
                    self._remote_not_down |= 0 if known and max(values) <= 0 else remote
        f.own = {name: list(getattr(f, name)) for name in _CONFLICT}
        if kind == "host":
            f.launch_pcs = tuple(pc for pc, (ins, env) in enumerate(zip(code.instrs, envs))
                                 if env is not None and isinstance(ins, ir.Launch))
        if start is not None and kind == "host" and f.launch_pcs:
            # a launch is still ahead of this host: its kernel's footprint counts from here
            pc0, u = start[1], self._kernel_union[r]
            for name in _FIELDS:
                if name != "reads":
                    getattr(f, name)[pc0] |= u[name]
            f.later[pc0] = u["rw"]
            f.lg[pc0] = self.ghost & (((1 << s.E) - 1) << (r * s.E))
        changed = True
        while changed:
            changed = False
            for pc in range(n - 1, -1, -1):
                for name in _FIELDS:
                    col = getattr(f, name)
                    m = col[pc]
                    for q in A.successors(code, pc):
                        m |= col[q]
                    if m != col[pc]:
                        col[pc] = m
                        changed = True
        return f

    def _monotone(self, ins, fp, env, ctx, touched: int) -> tuple:
        """(r_up, r_down, w_up, w_down) of one instruction with footprint `fp` under `env`: the
        reads whose outcome an increase (a decrease) can change, the writes other than
        AtomicAdds of values >= 0 (<= 0); ghost elements count whatever the values."""
        g = self.ghost
        if self.data:
            # the data mode: a read acquires the release clock that any write moves; a Set
            # starts a new release sequence; only AtomicAdds extend it, and commute
            r_up = r_down = fp.reads | touched
            w_up = w_down = fp.writes | touched
        else:
            r_up = r_down = fp.reads
            if isinstance(ins, ir.Wait) and (self.system.atomic_waits or _single(ins.view)):
                if ins.cmp in _UP:
                    r_up &= g
                elif ins.cmp in _DOWN:
                    r_down &= g
            w_up = w_down = fp.writes
        if isinstance(ins, ir.Notify) and ins.op == ir.SET:
            if not self.data:
                w_up &= ~self.rising
        elif isinstance(ins, ir.Notify) and env is not None:
            values = A.evaluate(ins.value, env, ctx)
            if values is not A.TOP and values:
                if min(values) >= 0:
                    w_up &= g
                if max(values) <= 0:
                    w_down &= g
        return r_up, r_down, w_up, w_down

    def _conflict_masks(self, ins, env, ctx, r: int) -> tuple:
        """The `_CONFLICT` masks of one kernel instruction under `env` (as `_reachable` makes them)."""
        fp = self.system.analysis.footprint(ins, env, ctx, r)
        touched = self._data_touch(ins, env, ctx, r) if self.data else 0
        r_up, r_down, w_up, w_down = self._monotone(ins, fp, env, ctx, touched)
        return (fp.reads | fp.writes | touched, fp.writes | touched, fp.sets, r_up, r_down, w_up, w_down, 0)

    def _data_touch(self, ins, env, ctx, rank: int) -> int:
        """The data mode: what a data statement may touch beyond its footprint, as a mask (the
        signal element a LOAD reads, which model/analysis.py leaves out; the buffer elements of
        a copy or an access, by block of the buffer's grain, model/grain.py: every access touches
        whole blocks, so two overlap exactly when their blocks do; after the R * E signal
        elements); 0 for events, fences and the rest. The buffer elements keep commuting steps
        meeting in the identical state (the
        access shadows record who came last); no verdict was seen to depend on them, since a
        race is found in either order of its two accesses."""
        if env is None:
            return 0
        s = self.system
        cls = ins.__class__
        if cls is ir.Load:  # (STORE, FETCH_ADD and CAS write it: their footprint has it already)
            return A.view_positions(ins.view, env, ctx, rank, s.R, s.E)
        views = (ins.dst, ins.src) if cls is ir.Copy else (ins.view,) if cls is ir.Access else ()
        out = 0
        for view in views:
            out |= A.view_positions(view, env, ctx, rank, s.R, s.D, *s.blocks_of(view.signal.name))
        return out << (s.R * s.E)

    @staticmethod
    def _reaches_launch(code: ir.Code) -> list[bool]:
        n = len(code.instrs)
        reach = [isinstance(x, ir.Launch) for x in code.instrs]
        changed = True
        while changed:
            changed = False
            for pc in range(n - 1, -1, -1):
                if not reach[pc] and any(reach[q] for q in A.successors(code, pc)):
                    reach[pc] = changed = True
        return reach

    # ------------------------------------------------------------ per state

    def ample(self, state, steps: list):
        """A stubborn subset of `steps` (the enabled steps of `state`), or None for all of them."""
        if len(steps) < 2:
            return None
        procs = state.procs
        moving: dict[int, list] = {}
        for st in steps:
            if st.process >= 0:
                moving.setdefault(st.process, []).append(st)
                continue
            for j in self._members(st.process):  # a joint barrier step belongs to each of its processes
                moving.setdefault(j, []).append(st)
        launches = state.launches
        self._cur, self._masks, self._reach = self._futures(procs, launches)
        touch = {i: self._touch(i, procs[i][0], sts, state) for i, sts in moving.items()}
        best = self._choose(procs, moving, touch, len(steps), state.signals, launches)
        if best is None:
            return None
        self.reduced += 1
        return [st for st in steps if (st.process if st.process >= 0 else self._members(st.process)[0]) in best]

    def _futures(self, procs, launches) -> tuple[dict, dict, dict]:
        """(every process's future from where it stands; for each running one, the masks of
        that future at its pc that `_choose` weighs, and their union: `_at`). This runs for
        every process of every state, so the latest entries of each process are looked up
        first, by object."""
        out, masks, reach = {}, {}, {}
        recent, home, kinds = self._recent, self._home, self.kinds
        for j, p in enumerate(procs):
            if p is None:
                continue
            if p[1] < 0:
                out[j] = kinds[j]
                continue
            r = home[j]
            hit = recent[j].get(id(p))
            if hit is None or hit[1] != (launches[r] - 1 if r >= 0 and launches else 0):
                hit = self._recent_future(j, p, launches)
            _, _, out[j], masks[j], reach[j] = hit
        return out, masks, reach

    @staticmethod
    def _at(f: _Future, pc: int) -> tuple:
        """(the masks of future `f` at `pc` that `_choose` weighs, their union)."""
        masks = (f.rw[pc], f.w[pc], f.s[pc], f.r_up[pc], f.r_down[pc], f.w_up[pc], f.w_down[pc], f.lg[pc])
        return masks, functools.reduce(operator.or_, masks)

    def _members(self, process: int) -> tuple:
        """The processes a step belongs to: its own, every host (host_barrier), or every block of
        the rank (block_barrier)."""
        if process >= 0:
            return (process,)
        if process == -1:
            return tuple(range(self.R))
        base = self.R + (-2 - process) * self.B
        return tuple(range(base, base + self.B))

    def _reader(self, i: int, entry, launches) -> tuple | None:
        """What process i (at `entry`) may still read of the ghost elements, as the judgement of
        an overwrite sees it: (positions, cmp, operand values, span) per TWAIT / TTEST."""
        if entry is None or entry[1] < 0:
            return None
        s = self.system
        if i < self.R:
            kind, r, b, lid = "host", i, 0, 0
        else:
            r, b = divmod(i - self.R, self.B)
            kind, lid = "kernel", launches[r] - 1 if launches else 0
        g = self.ghost
        return tuple((m & g, cmp, values, span) for m, cmp, values, span in
                     s.analysis.future_reads(kind, r, b, lid, entry[0], entry[2]) if m & g)

    def _must_wait(self, k: int, entry, launches, values) -> tuple | None:
        """(elements, the Sets' elements on the way) of the wait that block k surely reaches
        from `entry` before it can return or stop, and that cannot pass at the current
        `values` for the operand it will have; None when there is no such wait. The way there
        (`_way_to_wait`, cached per entry) is followed on k's own locals."""
        r = (k - self.R) // self.B
        lid = launches[r] - 1 if launches else 0
        key = (k, lid, entry[0], entry[2])
        plan = self._ways.get(key, False)
        if plan is False:
            if len(self._ways) > 200_000:
                self._ways.clear()
            plan = self._ways[key] = self._way_to_wait(k, lid, entry)
        if plan is None:
            return None
        m, written, cmp, c = plan
        holds = COMPARE[cmp]
        positions = list(_bits(m))
        if any(holds(values[q], c) for q in positions) if len(positions) > 1 else holds(values[positions[0]], c):
            return None
        return m, written

    def _waiting_on(self, i: int, entry, launches) -> int:
        """The elements a blocked TWAIT of process i reads at its current locals (cached): its
        locals cannot change while it waits, so only a write of one of them can let it pass.
        The future's own mask of the instruction is the union over every pass of a loop around
        it (a root waiting for peer 1 would need the writers of every peer's flag)."""
        key = (i, launches[(i - self.R) // self.B] if launches and i >= self.R else 0, entry[0], entry[2])
        hit = self._waits.get(key)
        if hit is None:
            s = self.system
            an = s.analysis
            if i < self.R:
                r, ctx = i, an.ctx("host", i)
            else:
                r, b = divmod(i - self.R, self.B)
                lid = launches[r] - 1 if launches else 0
                ctx = an.ctx("kernel", r, b, lid if s.program.uses_launch_id else 0)
            ins = self._instrs[i >= self.R][entry[0]]
            env = tuple(frozenset((v,)) for v in entry[2])
            hit = A.view_positions(ins.view, env, ctx, r, s.R, s.E) & self._cur[i].now_r[entry[0]]
            if len(self._waits) > 200_000:
                self._waits.clear()
            self._waits[key] = hit
        return hit

    def _way_to_wait(self, k: int, lid: int, entry) -> tuple | None:
        """(elements, Sets' elements on the way, cmp, operand) of the TWAIT of own elements that
        block k surely reaches from `entry`, through assignments, branches, jumps, fences and
        Sets of one element, none of which may fault (a block that stops returns as well)."""
        r, b = divmod(k - self.R, self.B)
        s = self.system
        an = s.analysis
        ctx = an.ctx("kernel", r, b, lid if s.program.uses_launch_id else 0)
        code = an.codes["kernel"]
        pc, L = entry[0], list(entry[2])
        written = 0
        for _ in range(64):
            ins = code.instrs[pc]
            env = tuple(frozenset((v,)) for v in L)
            cls = ins.__class__
            if cls is ir.Wait:
                if not (s.atomic_waits or _single(ins.view)) or A.can_fault(ins.value) or ins.view.at is not None:
                    return None  # (a TWAIT on another rank's copy is an error: the block stops)
                m = A.view_positions(ins.view, env, ctx, r, s.R, s.E)
                operand = A.evaluate(ins.value, env, ctx)
                if m == 0 or operand is A.TOP or len(operand) != 1 or m & written:
                    return None
                return m, written, ins.cmp, next(iter(operand))
            if cls is ir.Assign:
                if A.can_fault(ins.value):
                    return None
                v = A.evaluate(ins.value, env, ctx)
                if v is A.TOP or len(v) != 1:
                    return None
                L[ins.slot] = next(iter(v))
                pc += 1
            elif cls is ir.Branch:
                if A.can_fault(ins.cond):
                    return None
                v = A.evaluate(ins.cond, env, ctx)
                if v is A.TOP or len(v) != 1:
                    return None
                pc = pc + 1 if next(iter(v)) else ins.target
            elif cls is ir.Jump:
                pc = ins.target
            elif cls is ir.Fence:
                pc += 1
            elif cls is ir.Notify and ins.op == ir.SET and _single(ins.view) and not A.can_fault(ins.value):
                m = A.view_positions(ins.view, env, ctx, r, s.R, s.E)
                v = A.evaluate(ins.value, env, ctx)
                if m == 0 or m & (m - 1) or v is A.TOP or len(v) != 1 or \
                        not ir.INT32_MIN <= next(iter(v)) <= ir.INT32_MAX:
                    return None
                written |= m
                pc += 1
            else:
                return None
        return None

    def _touch(self, i: int, pc: int, sts: list, state) -> tuple:
        """What the steps of process i touch, by how they may interfere: elements written by an
        increase, a decrease, no change, anything; read by a wait that an increase (a decrease)
        cannot falsify, by anything; and the processes of a joint barrier step among them."""
        f = self._cur[i]
        ins = self._instrs[i >= self.R][pc]
        ghost = self.ghost
        w_up = w_down = w_nop = w_set = w_any = r_up = r_down = r_any = w_remote = 0
        remote_adds = self.remote_adds & ~self._rank_mask[i if i < self.R else (i - self.R) // self.B]
        barrier = ()
        notify = ins.__class__ is ir.Notify
        # a wait that completes, or a TTEST that holds now, keeps its outcome under increases
        # (GE, GT) or decreases (LE, LT) of what it reads
        mono = ins.__class__ in (ir.Wait, ir.Test) and (self.system.atomic_waits or _single(ins.view))
        for st in sts:
            if st.process < 0:
                barrier = self._members(st.process)
                continue
            if st.events:  # a faulting step (or one with an overwrite): whatever it may touch
                r_any |= f.now_r[pc]
                w_any |= f.now_w[pc]
            for q, old, new in st.writes:
                bit = 1 << q
                if not notify:
                    w_any |= bit
                elif ins.op == ir.SET:
                    if old == new:
                        if not bit & ghost:
                            w_nop |= bit
                        elif bit & self.same_set:
                            w_set |= bit  # adds its readers to the pending ones: not for blocked readers
                        else:
                            w_any |= bit
                    elif bit & ghost and state.ghost[self.system.ghost_slot[q]]:
                        w_any |= bit  # it replaces a notification some reader has not read
                    elif bit & self.rising and new > old:
                        w_up |= bit
                    else:
                        w_set |= bit
                elif bit & remote_adds:
                    w_remote |= bit
                elif bit & ghost:
                    w_any |= bit
                elif new > old:
                    w_up |= bit
                elif new < old:
                    w_down |= bit
                else:
                    w_nop |= bit
            for q in st.reads:
                bit = 1 << q[0]
                if mono and not q[3]:  # a TTEST that fails now: any write may change that
                    r_any |= bit
                elif mono and ins.cmp in _UP:
                    r_up |= bit
                elif mono and ins.cmp in _DOWN:
                    r_down |= bit
                else:
                    r_any |= bit
        if self.data:  # the data mode: every access by element, whatever the values, but for
            # AtomicAdds of one direction to elements only ever added to that way (or whose adds
            # cannot overflow): their release sequence joins the adders' clocks in either order
            if notify and ins.op != ir.SET:
                adds_up, adds_down = w_up & (self.up_only | self.bounded_adds), w_down & (self.down_only | self.bounded_adds)
            else:
                adds_up = adds_down = 0
            data_now = ins.__class__ in _DATA
            w_any |= (w_up & ~adds_up) | (w_down & ~adds_down) | w_nop | w_set | (f.now_w[pc] if data_now else 0)
            r_any |= r_up | r_down | (f.now_r[pc] if data_now else 0)
            w_up, w_down = adds_up, adds_down
            w_nop = w_set = r_up = r_down = 0
        # a launch re-bases the pending marks of its rank's ghost elements on the new launch: it
        # commutes with notifications (their marks are relative), not with overwrites (whose
        # judgement reads the readers' positions)
        l_now = f.lg[pc] if ins.__class__ is ir.Launch else 0
        # the ghost elements whose overwrite the step may judge differently: those it may still
        # read, unless it is a plain step after which it may still read them just as before
        m_now = self.kinds[i].m[pc]  # the system's own marks are per pc (System._may)
        if m_now and not barrier and len(sts) == 1:
            nxt = sts[0].next.procs[i]
            r = i if i < self.R else (i - self.R) // self.B
            key = (i, state.procs[i], nxt, state.launches[r] if state.launches else 0, sts[0].next.launches[r] if state.launches else 0)
            hit = self._standing.get(key)
            if hit is None:
                if len(self._standing) > 200_000:
                    self._standing.clear()
                hit = self._standing[key] = self._still_touched(i, m_now, state.procs[i], state.launches, nxt,
                                                                sts[0].next.launches)
            m_now = hit
        return (w_up, w_down, w_nop, w_set, w_any, r_up, r_down, r_any, barrier, m_now, l_now, w_remote)

    def _still_touched(self, i: int, m_now: int, entry, launches, nxt, next_launches) -> int:
        """Of the ghost elements `m_now` that process i may read at `entry`, those whose
        overwrite its step to `nxt` may judge differently. Per element: the judgement of an
        overwrite of q stays as it was when the TWAIT/TTEST i may still execute on q (with
        their operands) are unchanged and i still counts as a reader of q (the marks stay)."""
        before = self._reader(i, entry, launches)
        if before is None:
            return m_now
        after = self._reader(i, nxt, next_launches) if nxt is not None else ()
        if after is None:
            return m_now
        still = self.kinds[i].m[nxt[0]] if nxt is not None and nxt[1] >= 0 else 0
        keep = 0
        for q in _bits(m_now):
            if not (still >> q) & 1 or [x[1:] for x in before if (x[0] >> q) & 1] != \
                    [x[1:] for x in after if (x[0] >> q) & 1]:
                keep |= 1 << q
        return keep

    def _reads_of(self, j: int, pc: int, written: int):
        """(facts, elements of `written` it reads) of each TWAIT / TTEST that process j may still
        execute from pc and that reads some of `written`."""
        f = self._cur[j]
        for k in _bits(f.reads[pc]):
            info = f.info[k]
            hit = info[0] & written
            if hit:
                yield info, hit

    def _blocked(self, j: int, pc: int, written: int, values: tuple) -> bool:
        """Whether every TWAIT or TTEST that process j may still execute on the elements
        `written` is a wait (of one element, or atomic) that no operand it can have lets pass
        at their current values: j cannot get past it before they change."""
        if written & self._cur[j].later[pc]:
            return False
        for (positions, cmp, _, _, mono, operands), hit in self._reads_of(j, pc, written):
            if not mono or operands is A.TOP:
                return False
            holds = COMPARE[cmp]
            if any(holds(values[q], c) for q in _bits(hit) for c in operands):
                return False
        return True

    def _falsified(self, j: int, pc: int, written: int, up: bool, values: tuple) -> bool:
        """Whether an increase (`up`) or a decrease of the elements `written` may change the
        outcome of a TWAIT or TTEST that process j may still execute from pc. Not when the
        read is a wait that the change can only help (a completing wait stays complete), or a
        comparison that already holds at the current values for every operand it can have,
        as long as no process left out of the set can move the element the other way first:
        not on an element of `bounded_adds`, whose adds of both signs commute with this one
        (every other write that moves an element against the change conflicts with it by the
        adds' rule, so its writer is in the set)."""
        f = self._cur[j]
        if written & self.ghost & (f.r_up[pc] if up else f.r_down[pc]) or written & f.later[pc]:
            return True
        for (positions, cmp, lo, hi, mono, _), hit in self._reads_of(j, pc, written & ~self.ghost):
            if up and cmp in _UP:
                if mono:
                    continue
                if hi is not None and not hit & self.bounded_adds and all(COMPARE[cmp](values[q], hi) for q in _bits(hit)):
                    continue
            elif not up and cmp in _DOWN:
                if mono:
                    continue
                if lo is not None and not hit & self.bounded_adds and all(COMPARE[cmp](values[q], lo) for q in _bits(hit)):
                    continue
            return True
        return False

    def _gated(self, j: int, procs, launches, values, running, fut, conflicts, memo: dict) -> tuple:
        """Block j's future conflicts with a step, but perhaps only beyond a TWAIT that cannot
        pass now: the gatekeeper sets (the running processes that may write what such a wait
        reads), one per TWAIT w of j's future such that nothing j may do before reaching w
        conflicts with the step or writes what w reads. If one of these sets is in the stubborn
        set, j is not needed: no sequence of steps outside the set can change what w reads, so
        j cannot get past w (and to its conflicting steps) before a kept process moves."""
        entry = procs[j]
        out = []
        # the TWAITs on the block's own way from its locals: each with what comes before it
        for before, positions, cmp, c in self._way(j, entry, launches)[0]:
            holds = COMPARE[cmp]
            if any(holds(values[q], c) for q in _bits(positions)):
                continue  # it may pass now
            if conflicts(j, before):
                break  # (and so does everything before a later one)
            if before[1] & positions:
                continue
            keepers = [k for k in self._writers(positions, running, fut, memo) if k != j]
            if cmp in _UP and not positions & (positions - 1):
                # a count: the writers left out may add, as long as all they can still add
                # cannot make up what it lacks (each block's adds on its own way to its end)
                (q,) = _bits(positions)
                lacks = c - values[q] + (not COMPARE[cmp](c, c))  # GT needs one more than GE
                out.append((tuple(keepers), q, lacks))
            else:
                out.append((frozenset(keepers), None, 0))
        # any TWAIT of its future, with everything reachable short of it
        f = self._cur[j]
        pc = entry[0]
        for w in _bits(f.reads[pc]):
            if not f.gate[w]:
                continue
            positions, cmp, _, _, _, operands = f.info[w]
            holds = COMPARE[cmp]
            if any(holds(values[q], c) for q in _bits(positions) for c in operands):
                continue  # it may pass now
            before = f.gates.get((pc, w))
            if before is None:
                before = f.gates[(pc, w)] = tuple(self._short_of(f, "kernel", pc, w.__eq__)[1])
            if before[1] & positions or conflicts(j, before):
                continue
            out.append((frozenset(k for k in self._writers(positions, running, fut, memo) if k != j), None, 0))
        return tuple(out)

    @staticmethod
    def _writers(positions: int, running, fut, memo: dict) -> list:
        """The running processes whose future may write some of `positions` (memo: per state)."""
        hit = memo.get(positions)
        if hit is None:
            hit = memo[positions] = [k for k in running if fut[k][1] & positions]
        return hit

    def _adds(self, k: int, q: int, procs, launches) -> int | None:
        """All that process k can still add to element q, when it can only add to it (None:
        it may write it otherwise, or add without a bound known here): a block's AtomicAdds
        on its way (`_way`) when nothing it may do past the way's end writes q."""
        if k < self.R:
            return self._host_adds(k, q, procs[k], launches)
        _, adds, other, rest = self._way(k, procs[k], launches)
        return None if (other | rest) >> q & 1 else adds.get(q, 0)

    def _host_adds(self, k: int, q: int, entry, launches) -> int | None:
        """All that host k can add to element q before it reaches a host_barrier: the adds of
        the blocks of the one launch it may start on the way (None: it may write q otherwise,
        start more than one launch, or a block may write q otherwise). Asked only while no
        host_barrier can complete before a kept process moves (`_choose`: every host is kept
        with a joint barrier step, and any other seed is a running block or a host short of
        a barrier), so what lies beyond the barrier cannot happen first."""
        if not self._host_barriers or entry[1] < 0:
            return None
        region, _ = self._region(k, entry[0])
        f = self._cur[k]
        if any(f.own["w"][x] >> q & 1 for x in region):
            return None
        starts = [x for x in region if x in f.launch_pcs]
        if not starts:
            return 0
        code = self.system.analysis.codes["host"]
        if len(starts) > 1 or any(x in region and self._in_cycle(code, x, region) for x in starts):
            return None
        lid = launches[k] if launches else 0
        after = launches[:k] + (lid + 1,) + launches[k + 1:] if launches else launches
        total = 0
        for j in range(self.R + k * self.B, self.R + (k + 1) * self.B):
            first = self.system.start_of(j, lid)[0]
            if first is None:
                continue
            _, adds, other, rest = self._way(j, first, after)
            if (other | rest) >> q & 1:
                return None
            total += adds.get(q, 0)
        return total

    @staticmethod
    def _in_cycle(code, x: int, region) -> bool:
        """Whether instruction x lies on a cycle of the instructions `region`."""
        seen, work = set(), [n for n in A.successors(code, x) if n in region]
        while work:
            n = work.pop()
            if n == x:
                return True
            if n not in seen:
                seen.add(n)
                work.extend(m for m in A.successors(code, n) if m in region)
        return False

    def _way(self, j: int, entry, launches) -> tuple:
        """The TWAITs (one element or atomic, that cannot fault) that block j meets on its way
        from `entry`, followed on its own locals for as long as they stay known (through
        assignments, branches, jumps and the statements that leave the locals alone; not past
        a TTEST, LOAD, FETCH_ADD, CAS, choice or event), each as (the `_CONFLICT` masks of
        the statements before it on the way, its elements, cmp, operand). Cached per entry."""
        r, b = divmod(j - self.R, self.B)
        lid = launches[r] - 1 if launches else 0
        key = (j, lid, entry[0], entry[2])
        hit = self._paths.get(key)
        if hit is not None:
            return hit
        s = self.system
        an = s.analysis
        ctx = an.ctx("kernel", r, b, lid if s.program.uses_launch_id else 0)
        code = an.codes["kernel"]
        pc, L = entry[0], list(entry[2])
        same = self._columns.setdefault
        masks = [0] * len(_CONFLICT)
        out = []
        adds: dict = {}  # element -> the AtomicAdds of values >= 0 on the way
        other = 0  # elements written otherwise on the way
        rest = None
        for _ in range(256):
            ins = code.instrs[pc]
            cls = ins.__class__
            env = tuple(frozenset((v,)) for v in L)
            nxt = pc + 1
            if cls is ir.Wait:
                if (s.atomic_waits or _single(ins.view)) and _safe(ins, env, ctx):
                    m = A.view_positions(ins.view, env, ctx, r, s.R, s.E)
                    v = A.evaluate(ins.value, env, ctx)
                    if m and v is not A.TOP and len(v) == 1:
                        before = tuple(masks)  # (equal ones, and the masks, shared)
                        out.append((same(before, before), same(m, m), ins.cmp, next(iter(v))))
            elif cls is ir.Assign or cls is ir.Branch:
                e = ins.value if cls is ir.Assign else ins.cond
                v = None if A.may_fault(e, env, ctx) else A.evaluate(e, env, ctx)
                if v is None or v is A.TOP or len(v) != 1:
                    break
                if cls is ir.Assign:
                    L[ins.slot] = next(iter(v))
                elif not next(iter(v)):
                    nxt = ins.target
            elif cls is ir.Jump:
                nxt = ins.target
            elif cls is ir.Return:
                rest = 0
                break
            elif not (cls in _LOCALS_STAY or (cls is ir.Copy and ins.event is None)):
                break  # a statement that gives a local a value of its own
            own = self._conflict_masks(ins, env, ctx, r)
            for k, m in enumerate(own):
                masks[k] |= m
            w = own[1]
            if cls is ir.Notify and ins.op == ir.ATOMIC_ADD and w and not w & (w - 1):
                v = A.evaluate(ins.value, env, ctx)
                if v is not A.TOP and len(v) == 1 and next(iter(v)) >= 0:
                    q = w.bit_length() - 1
                    adds[q] = adds.get(q, 0) + next(iter(v))
                    w = 0
            other |= w
            pc = nxt
        if rest is None:  # stopped short of the end: whatever it may write from there
            rest = self._refined_future("kernel", r, b, lid, entry).w[pc]
        hit = (tuple(out), adds, other, rest)
        if len(self._paths) > 200_000:
            self._paths.clear()
        self._paths[key] = hit
        return hit

    def _region(self, j: int, pc: int) -> tuple:
        """(the instructions host j may reach from pc before it reaches a host_barrier, the
        `_CONFLICT` masks of what it may do there, the kernel of every launch among them
        included): all it can do while some other host has not arrived. Cached per future."""
        f = self._cur[j]
        hit = f.gates.get((pc, None))
        if hit is not None:
            return hit
        instrs = self._instrs[0]
        seen, masks = self._short_of(f, "host", pc, lambda q: isinstance(instrs[q], ir.HostBarrier))
        if any(x in seen for x in f.launch_pcs):  # its kernel runs before the barrier
            u, E = self._kernel_union[j], self.system.E
            for k, name in enumerate(_CONFLICT):
                masks[k] |= u[name] if name != "lg" else self.ghost & (((1 << E) - 1) << (j * E))
        hit = f.gates[(pc, None)] = (frozenset(seen), tuple(masks))
        return hit

    def _short_of(self, f: _Future, kind: str, pc: int, stop) -> tuple[frozenset, list]:
        """(the instructions a process of `kind` with future f may reach from pc on paths that
        enter no instruction q with `stop(q)`, the `_CONFLICT` masks of what it may do there)."""
        code = self.system.analysis.codes[kind]
        own = f.own
        masks = [0] * len(_CONFLICT)
        seen = set() if stop(pc) else {pc}
        work = list(seen)
        while work:
            q = work.pop()
            for k, name in enumerate(_CONFLICT):
                masks[k] |= own[name][q]
            for nxt in A.successors(code, q):
                if nxt not in seen and not stop(nxt):
                    seen.add(nxt)
                    work.append(nxt)
        return frozenset(seen), masks

    def _choose(self, procs, moving, touch, nsteps, values, launches):
        """The processes of the smallest stubborn set found (one seed per moving process), or
        None when every one of them needs all the steps."""
        R, B = self.R, self.B
        kinds = self._cur
        fut = self._masks  # running process j -> its future's masks at its pc
        reach = self._reach  # ... and their union: no conflict without one of its elements
        running = list(fut)
        need_cache: dict[int, tuple] = {}
        memo: dict = {}  # per state: the writers of a mask of elements, a block's adds to an element
        one_sign, same_set, bounded = self.one_sign_adds, self.same_set, self.bounded_adds
        data = self.data  # the data mode: an add conflicts with every read and every other kind of write

        def adds(k: int, q: int):
            """All block k can still add to element q (None: it may write q otherwise), per state."""
            n = memo.get((k, q), False)
            if n is False:
                n = memo[(k, q)] = self._adds(k, q, procs, launches)
            return n

        def stuck(h: int, i: int) -> bool:
            """Whether host h is inside `launch` with a block that cannot return before process
            i moves: it is blocked at a wait on elements that nobody else running may write, or
            it surely reaches such a wait (`_must_wait`) first; a block spinning forever never
            returns either. Then nothing after the launch can happen first, and h's future does
            not conflict with i's step."""
            if not isinstance(self._instrs[0][procs[h][0]], ir.Join):
                return False
            for k in range(R + h * B, R + (h + 1) * B):
                p = procs[k]
                if p is None:
                    continue
                if p[1] < 0 and k not in moving:
                    return True
                if k not in moving and isinstance(self._instrs[1][p[0]], ir.Wait):
                    reads = kinds[k].now_r[p[0]]
                elif p[1] == 0:
                    hit = self._must_wait(k, p, launches, values)
                    if hit is None:
                        continue
                    reads = hit[0]
                else:
                    continue
                if not any(j != i and j != h and j != k and reads & fut[j][1] for j in running):
                    return True
            return False

        def needs(i: int) -> tuple:
            hit = need_cache.get(i)
            if hit is not None:
                return hit
            pc = procs[i][0]
            own_host = (i - R) // B if i >= R else -1
            ins = self._instrs[i >= R][pc]
            # Hosts past a host_barrier: no host_barrier can complete before i moves. i is a
            # running block (its host stands at the launch's join) or a host short of a barrier,
            # or else its step is the joint barrier step, which keeps every host anyway. So a
            # host whose conflicting steps all lie beyond its next host_barrier is not needed
            # for i (`_region`: what it may do before it arrives).
            barriers = self._host_barriers
            out = []
            gated = []  # [j, conflicts, its gates or None]: j is needed unless one of its gates is kept
            if i in moving:
                w_up, w_down, w_nop, w_set, w_any, r_up, r_down, r_any, barrier, m_now, l_now, w_remote = touch[i]
                # every term of `conflicts` ands a mask of i's step with one of j's future: where
                # `touched` (all of the step's) meets none of `reach[j]` (all of the future's), none holds
                touched = functools.reduce(operator.or_, (m for m in touch[i] if m.__class__ is int))

                def conflicts(j: int, masks: tuple) -> bool:
                    """Whether a step of j that touches `masks` may not commute with i's step."""
                    rw, w, s, fr_up, fr_down, fw_up, fw_down, lg = masks
                    return bool((w_any & (rw | lg))                          # an arbitrary write: anything
                                or (w_remote & (rw | lg) & self._rank_mask[j if j < R else (j - R) // B])  # remote adds: the holder's rank
                                or (l_now & s & ~same_set)                       # a launch: later overwrites
                                or ((w_up | w_down) & ~one_sign & w             # adds: any other write, or
                                    | w_up & fw_up | w_down & fw_down) & ~bounded  # all but adds of one sign
                                or (w_nop & (w | (fr_up & fr_down)))             # a write of the same value
                                or (r_any & w) or (r_up & fw_up) or (r_down & fw_down)  # reads: writes that matter
                                or (data and ((w_up & (fr_up | fr_down | fw_up)) | (w_down & (fr_up | fr_down | fw_down))))
                                or (m_now & s & ~same_set)                       # a reader: later overwrites
                                or (w_set & w & ~same_set)                       # a Set: other writes
                                or (w_set & (fr_up | fr_down) and not self._blocked(j, procs[j][0], w_set, values))
                                or (w_up & fr_up and self._falsified(j, procs[j][0], w_up, True, values))
                                or (w_down & fr_down and self._falsified(j, procs[j][0], w_down, False, values)))

                for j in running:
                    if j == i or j == own_host:
                        continue
                    if touched & reach[j] and conflicts(j, fut[j]):
                        if j < R and (stuck(j, i) or barriers and not conflicts(j, self._region(j, procs[j][0])[1])):
                            continue
                        if j >= R:
                            gated.append([j, conflicts, None])  # its gates: asked only if it is not in anyway
                        else:
                            out.append(j)
                out.extend(h for h in barrier if h != i)
            elif isinstance(ins, ir.Join):
                # the launch completes only after every block returns, so one block that has
                # not is enough: it must move first (none, if one spins forever)
                base = R + i * B
                blocks = [k for k in range(base, base + B) if procs[k] is not None]
                if all(procs[k][1] >= 0 for k in blocks):
                    hit = need_cache[i] = (tuple(out), tuple(blocks), ())
                    return hit
            elif isinstance(ins, ir.HostBarrier):  # one host that has not arrived must move first
                late = [h for h in range(R) if procs[h] is None or not isinstance(
                    self._instrs[0][procs[h][0]], ir.HostBarrier)]
                if all(procs[h] is not None and procs[h][1] >= 0 for h in late):
                    hit = need_cache[i] = (tuple(out), tuple(late), ())
                    return hit
            elif isinstance(ins, ir.BlockBarrier):  # likewise one block of the rank that has not arrived
                base = R + own_host * B
                late = [k for k in range(base, base + B) if procs[k] is None or not isinstance(
                    self._instrs[1][procs[k][0]], ir.BlockBarrier)]
                if all(procs[k] is not None and procs[k][1] >= 0 for k in late):
                    hit = need_cache[i] = (tuple(out), tuple(late), ())
                    return hit
            else:  # a blocked wait: whoever may write what it reads (now, at its own locals)
                reads = self._waiting_on(i, procs[i], launches) if ins.__class__ is ir.Wait else kinds[i].now_r[pc]
                for j in running:
                    if j != i and j != own_host and reads & fut[j][1]:
                        if j < R and barriers and not reads & self._region(j, procs[j][0])[1][1]:
                            continue  # it writes them only beyond a host_barrier
                        out.append(j)
            hit = need_cache[i] = (tuple(out), (), tuple(gated))
            return hit

        best = None
        best_size = nsteps
        # processes whose step shows a violation first: its counterexample then comes early
        for seed in sorted(moving, key=lambda i: (not any(st.events for st in moving[i]), i)):
            members = {seed}
            work = [seed]
            size = 0
            pending = []  # gated conflicts: settled once nothing else is left to add
            while size < best_size:
                if not work:
                    # a gated j is needed unless every writer of one of its gate waits is in
                    work = []
                    for entry in pending:
                        j = entry[0]
                        if j in members:
                            continue
                        if entry[2] is None:
                            entry[2] = self._gated(j, procs, launches, values, running, fut, entry[1], memo)
                        if not any(_kept(g, members, adds) for g in entry[2]):
                            members.add(j)
                            work.append(j)
                    pending = []
                    if not work:
                        break
                i = work.pop()
                size += len(moving.get(i, ()))
                out, one_of, gated = needs(i)
                for j in out:
                    if j not in members:
                        members.add(j)
                        work.append(j)
                if one_of and members.isdisjoint(one_of):
                    j = next((k for k in one_of if k not in moving), one_of[0])
                    members.add(j)
                    work.append(j)
                pending.extend(gated)
            if not work and not pending and size < best_size:
                best, best_size = members, size
                if size == 1:
                    break
        return None if best is None else frozenset(best)

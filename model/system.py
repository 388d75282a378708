"""The transition system of a program: initial state, enabled steps and what each step did.

Entry point: `System(program)`. `initial()` gives the initial state and the events of the
hosts' first local statements; `successors(state)` gives every enabled `Step` record, and
`step(state, label)` the one step of one process (each process is deterministic, so a step
is named by its process index, the joint host_barrier step by BARRIER, rank r's joint
block_barrier step by block_barrier(r)). A Step carries the
instruction, the elements read (with the value seen, the operand and whether the comparison
held), the elements written (old and new values) and the events: `Fault` for an assertion,
error or overflow, `Overwrite` for a Set or reset that replaced a notification that some of
its readers had not read yet (the lost-notification property judges it).

States are opaque outside model/: use the accessors of System. Inside, a State holds
- procs: per process, hosts first (index r), then kernel slots (R + r*B + b): None when
  finished (or not running), else (pc, idx, locals) at a visible instruction, idx the element
  a tensor wait/test reads next (-1: spinning forever in a local loop), locals with the
  dead ones (model/analysis.py) zeroed;
- signals: every element of every rank's copy, flat (rank-major);
- ghost: the marks of the lost-notification instrument (model/ghost.py; empty when the
  program has no element whose notification a Set or reset can erase before it is read);
- launches: per-rank launch counts (kept when the kernel reads `launch_id` or a ghost exists).
"""

from __future__ import annotations

import bisect
import functools
from typing import NamedTuple

from model import compile as C
from model import ir
from model.analysis import Analysis
from model.cint import COMPARE
from model.errors import ModelError, Span
from model.ghost import HOST, Marks, Overwrite, Reader  # noqa: F401  (Reader, HOST: names of the model)
from model.hb import COMPLETE, Access, Clocks
from model.semantics import DEFAULT, Semantics
from model.vocabulary import COMPARISON

BLOCKED = "blocked"  # System.transition: the read has no step
BARRIER = -1  # the joint host_barrier step; the joint block_barrier step of rank r is block_barrier(r)
LOCAL_STEP_LIMIT = 1_000_000
LINE = 16  # int32 elements in a 64-byte cache line
_CYCLE_CHECK_AFTER = 10_000
INT32_MIN, INT32_MAX = ir.INT32_MIN, ir.INT32_MAX

# compiled opcodes; local ones run invisibly between visible steps
_ASSIGN, _JUMP, _BRANCH, _ASSERT, _RETURN, _OBSERVE = range(6)
_NOTIFY, _WAIT, _TEST, _RESET, _LAUNCH, _JOIN, _BARRIER = range(10, 17)
_LOAD, _STORE, _FETCH_ADD, _CAS, _COPY, _ACCESS, _WAIT_EVENT, _TEST_EVENT, _FENCE = range(17, 26)
_CHOOSE, _BLOCK_BARRIER = 26, 27
_VISIBLE = _NOTIFY
_MAY_MOVE, _JOINT = "may move", "joint"  # guards of System.successors


def block_barrier(r: int) -> int:
    """The process index (and label) of rank r's joint block_barrier step."""
    return -2 - r


class LocalStepLimit(Exception):
    """A process ran LOCAL_STEP_LIMIT local statements without a visible step or a repeat."""

    def __init__(self, span: Span):
        super().__init__(f"a process ran {LOCAL_STEP_LIMIT} local statements without a signal operation "
                         f"(loop at {span})")
        self.span = span


class State(NamedTuple):
    procs: tuple
    signals: tuple
    ghost: tuple
    launches: tuple
    hb: tuple = ()  # happens-before (model/hb.py), only for programs with buffers


_new_state = functools.partial(tuple.__new__, State)  # State(*fields) without the Python-level __new__


class Fault(NamedTuple):
    kind: str  # "assertion" | "error" | "overflow"
    process: int
    span: Span
    message: str


class Chosen(NamedTuple):
    """The value an `any(lo, hi)` step gave its local."""

    process: int
    name: str
    value: int


class LineRead(NamedTuple):
    """The first half of a Set at line granularity: the line is read into the writer's cache."""

    first: int  # global positions of the line's first and last elements
    last: int


class DataRace(NamedTuple):
    first: Access  # the earlier access (its step is in the trace)
    second: Access  # the access of this step
    span: Span


class Step(NamedTuple):
    process: int  # the process index, BARRIER, or block_barrier(rank)
    instr: object  # the IR instruction executed (host 0's for BARRIER)
    next: State
    reads: tuple  # (position, value, operand, holds)
    writes: tuple  # (position, old, new)
    events: tuple  # Fault, Overwrite and DataRace records
    label: int  # names the step for `step(state, label)`: the process, + nprocs for TEST_EVENT false,
    #             + k * nprocs for the choice lo + k of an `any(lo, hi)`
    accesses: tuple = ()  # data accesses (model.hb.Access)


_new_step = functools.partial(tuple.__new__, Step)


class Process(NamedTuple):
    kind: str  # "host" | "kernel" | "hosts" (the joint barrier step)
    rank: int | None
    block: int | None
    name: str


MAX_ACCESS = 65536  # buffer elements one data statement may touch (each is listed in a trace)


class Element(NamedTuple):
    signal: str
    index: tuple
    rank: int
    name: str  # e.g. "flag[1]@0"


class Stuck(NamedTuple):
    """Where an unfinished process stands and what it waits for."""

    process: int
    instr: object
    kind: str  # "wait" | "test" | "join" | "barrier" | "spin" | "fault" | "other"
    cmp: str | None
    operand: int | None
    elements: tuple  # (position, value)
    missing: tuple  # the processes a host_barrier or block_barrier waits for
    message: str | None  # for "fault": why the wait cannot even be evaluated


class System:
    """The transition system of a program under a Semantics: `initial`, `successors`, `step`,
    and the readings of a state (`situation`, `where`, `value`, `dirty`).

    The dependency table, public for the reductions (model/independence.py) and the symmetry
    (model/symmetry.py), in the spirit of LTSmin's PINS read/write matrices:
      `analysis.footprints(kind, rank, block)`  per pc, the elements a process may read, write
                                                and Set (bit masks of element positions);
      `analysis.footprints_from(...)`            the same rows from a concrete pc and locals on;
      `analysis.reachable_reads(kind, r, b)`     per pc, what it may still read from there;
      `ghost_positions`, `ghost_slot[pos]`       the elements whose unread notifications the
                                                lost-notification marks track, and their slot;
      `ghost_reads[(is_host, r, b)][pc]`         the ghost slots a process may still read;
      `live_slots[is_host][pc]`                  the locals live at pc (None: all of them).
    A state is a `State`; outside this module and the store, read it by field name."""

    def __init__(self, program: ir.Program, semantics: Semantics = DEFAULT, *, keep_dead_locals: bool = False):
        self.program = program
        self.semantics = semantics
        self.lines = semantics.lines  # a Set reads its line, then writes the whole line back
        self.atomic_waits = semantics.atomic_waits
        self.memory_model = semantics.memory_model
        self.keep_dead_locals = keep_dead_locals  # for tests: states keep every local
        self.R = program.nranks
        self.B = program.nblocks
        self.E = program.elems_per_rank
        self.nprocs = self.R + self.R * self.B
        self.analysis = Analysis(program)
        self._sig_offsets = [s.offset for s in program.signals]
        self.init_values = tuple(s.init for s in program.signals for _ in range(s.size)) * self.R
        self._ops = {True: self._compile(program.host, "host"), False: self._compile(program.kernel, "kernel")}
        self._instrs = {True: program.host.instrs, False: program.kernel.instrs}
        self._test_events = any(isinstance(x, ir.TestEvent) for c in (program.host, program.kernel) for x in c.instrs)
        self._block_barriers = any(isinstance(x, ir.BlockBarrier) for x in program.kernel.instrs)
        self._host_barriers = self.R > 0 and any(isinstance(x, ir.HostBarrier) for x in program.host.instrs)
        self.live_slots = {True: self._keeps(program.host, "host"), False: self._keeps(program.kernel, "kernel")}
        self._resume: dict = {}
        self._evaluated: dict = {}
        self._contexts: dict = {}  # see ctx_of
        self._offsets: dict = {}  # see _operands
        self._guards: dict = {}
        self._entry_objects: dict = {}  # see _shared
        self._starts: dict = {}  # memo of a launch: (kernel slot, launch number) -> (first entry, events)
        self._ranks = tuple(range(self.R)) + tuple(r for r in range(self.R) for _ in range(self.B))
        # the lost-notification instrument (model/ghost.py); its hooks run only when G > 0
        self.marks = Marks(self.analysis, self.R, self.B, self.E, self.lines, self._line)
        self.G = self.marks.G
        self.ghost_positions, self.ghost_slot, self.ghost_reads = self.marks.positions, self.marks.slot, self.marks.reads
        self.track_launches = program.uses_launch_id or bool(self.G)
        # the data shadow: one entry per block of a buffer's grain (model/grain.py), D per rank
        grains = program.grains or (1,) * len(program.buffers)
        self._grain, self._buf_offsets, self.D = {}, [], 0
        for b, g in zip(program.buffers, grains):
            self._grain[b.name] = (g, self.D)
            self._buf_offsets.append(self.D)
            self.D += b.size // g
        self.clocks = Clocks(self.nprocs, self.R, program.events, self.R * self.E, self.R * self.D,
                             self.memory_model) if program.buffers else None

    # ------------------------------------------------------------ compiled code

    def _compile(self, code: ir.Code, kind: str) -> tuple:
        out = []
        for ins in code.instrs:
            if isinstance(ins, ir.Assign):
                out.append((_ASSIGN, ins.slot, C.expr(ins.value)))
            elif isinstance(ins, ir.Jump):
                out.append((_JUMP, ins.target))
            elif isinstance(ins, ir.Branch):
                out.append((_BRANCH, C.expr(ins.cond), ins.target))
            elif isinstance(ins, ir.Assert):
                out.append((_ASSERT, C.expr(ins.cond), ins))
            elif isinstance(ins, ir.Return):
                out.append((_RETURN,))
            elif isinstance(ins, ir.Notify):
                out.append((_NOTIFY, C.view(ins.view, self.R), C.expr(ins.value), ins.op == ir.SET))
            elif isinstance(ins, ir.Wait):
                out.append((_WAIT, C.view(ins.view, self.R), C.expr(ins.value), COMPARE[ins.cmp]))
            elif isinstance(ins, ir.Test):
                out.append((_TEST, C.view(ins.view, self.R), C.expr(ins.value), COMPARE[ins.cmp], ins.dest))
            elif isinstance(ins, ir.Reset):
                out.append((_RESET, C.view(ins.view, self.R), ins.view.signal.init))
            elif isinstance(ins, ir.Launch):
                out.append((_LAUNCH,))
            elif isinstance(ins, ir.Join):
                out.append((_JOIN,))
            elif isinstance(ins, ir.HostBarrier):
                out.append((_BARRIER,))
            elif isinstance(ins, ir.Observe):
                out.append((_OBSERVE, C.expr(ins.cond), ins))
            elif isinstance(ins, ir.Load):
                out.append((_LOAD, C.view(ins.view, self.R), None, ins.dest))
            elif isinstance(ins, ir.Store):
                out.append((_STORE, C.view(ins.view, self.R), C.expr(ins.value)))
            elif isinstance(ins, ir.FetchAdd):
                out.append((_FETCH_ADD, C.view(ins.view, self.R), C.expr(ins.value), ins.dest))
            elif isinstance(ins, ir.Cas):
                out.append((_CAS, C.view(ins.view, self.R), C.expr(ins.expected), ins.dest, C.expr(ins.new)))
            elif isinstance(ins, ir.Copy):
                out.append((_COPY, C.view(ins.dst, self.R), C.view(ins.src, self.R)))
            elif isinstance(ins, ir.Access):
                out.append((_ACCESS, C.view(ins.view, self.R)))
            elif isinstance(ins, ir.WaitEvent):
                out.append((_WAIT_EVENT,))
            elif isinstance(ins, ir.TestEvent):
                out.append((_TEST_EVENT,))
            elif isinstance(ins, ir.Fence):
                out.append((_FENCE,))
            elif isinstance(ins, ir.Choose):
                out.append((_CHOOSE, ins.slot, C.expr(ins.lo), C.expr(ins.hi)))
            elif isinstance(ins, ir.BlockBarrier):
                out.append((_BLOCK_BARRIER,))
            else:
                raise AssertionError(f"unknown instruction {ins!r}")
        return tuple(out)

    def _keeps(self, code: ir.Code, kind: str) -> tuple:
        """Per instruction: None when every local is live there, else the live slots."""
        out = []
        for live in self.analysis.live[kind]:
            keep_all = self.keep_dead_locals or len(live) == code.nslots
            out.append(None if keep_all else tuple(sorted(live)))
        return tuple(out)

    def _mask(self, is_host: bool, pc: int, L) -> tuple:
        keep = self.live_slots[is_host][pc]
        if keep is None:
            return tuple(L)
        out = [0] * len(L)
        for s in keep:
            out[s] = L[s]
        return tuple(out)

    # ------------------------------------------------------------ naming

    def process(self, i: int) -> Process:
        if i == BARRIER:
            return Process("hosts", None, None, "all hosts")
        if i < BARRIER:
            r = -2 - i
            return Process("blocks", r, None, f"rank {r} all blocks")
        if i < self.R:
            return Process("host", i, None, f"host {i}")
        r, b = divmod(i - self.R, self.B)
        return Process("kernel", r, b, f"rank {r} block {b}")

    def process_name(self, i: int) -> str:
        return self.process(i).name

    def element(self, pos: int) -> Element:
        rank, off = divmod(pos, self.E)
        sig = self.program.signals[bisect.bisect_right(self._sig_offsets, off) - 1]
        flat = off - sig.offset
        return Element(sig.name, sig.index_of(flat), rank, f"{sig.element_name(flat)}@{rank}")

    def reader_process(self, reader: Reader) -> str:
        if reader.block == HOST:
            return f"host {reader.rank}"
        return f"rank {reader.rank} block {reader.block} of launch {reader.launch}"

    def code_of(self, i: int) -> ir.Code:
        return self.program.host if i < self.R else self.program.kernel

    def ctx_of(self, i: int, launches: tuple) -> tuple:
        """(rank, block, launch id) of process i; one object per context (the memo tables'
        keys hold them)."""
        if i < self.R:
            ctx = (i, 0, 0)
        else:
            r, b = divmod(i - self.R, self.B)
            ctx = (r, b, launches[r] - 1 if launches else 0)
        return self._contexts.setdefault(ctx, ctx)

    def rank_of(self, i: int) -> int:
        return i if i < self.R else (i - self.R) // self.B

    # ------------------------------------------------------------ ghost set-up

    # ------------------------------------------------------------ local execution

    def _run(self, i: int, pc: int, L: list, ctx: tuple, events: list):
        """Run local statements from pc to the next visible instruction. Returns the process
        entry (None once it returned or stopped)."""
        is_host = i < self.R
        ops = self._ops[is_host]
        count = 0
        seen = None
        try:
            while True:
                op = ops[pc]
                k = op[0]
                if k >= _VISIBLE:
                    return (pc, 0, self._mask(is_host, pc, L))
                if k == _ASSIGN:
                    L[op[1]] = op[2](L, ctx)
                    pc += 1
                elif k == _BRANCH:
                    pc = pc + 1 if op[1](L, ctx) else op[2]
                elif k == _JUMP:
                    pc = op[1]
                elif k == _ASSERT:
                    if not op[1](L, ctx):
                        events.append(Fault("assertion", i, op[2].span, f"{op[2].text} failed"))
                        return None
                    pc += 1
                elif k == _OBSERVE:
                    if not op[1](L, ctx):
                        events.append(Fault("assertion", i, op[2].span, f"{op[2].text} failed (the process goes on)"))
                    pc += 1
                else:  # RETURN
                    return None
                count += 1
                if count > _CYCLE_CHECK_AFTER:
                    if seen is None:
                        seen = set()
                    key = (pc, tuple(L))
                    if key in seen:
                        return (pc, -1, self._mask(is_host, pc, L))  # dead locals zeroed, as at a visible pc
                    seen.add(key)
                    if count > LOCAL_STEP_LIMIT:
                        raise LocalStepLimit(self.code_of(i).instrs[pc].span)
        except ModelError as e:
            events.append(Fault("error", i, e.span, e.message))
            return None

    # ------------------------------------------------------------ states

    def initial(self):
        """The initial state and the events of the hosts' first local statements."""
        events: list = []
        procs = [None] * self.nprocs
        for r in range(self.R):
            procs[r] = self._run(r, 0, [0] * self.program.host.nslots, (r, 0, 0), events)
        launches = (0,) * self.R if self.track_launches else ()
        hb = self.clocks.initial() if self.clocks else ()
        return State(tuple(procs), self.init_values, (0,) * self.G, launches, hb), tuple(events)

    def running(self, state, i: int) -> bool:
        """Whether process i (a host, or a kernel slot) is running in `state`."""
        return i >= 0 and state[0][i] is not None

    def is_final(self, state) -> bool:
        return not any(state[0])

    def spinning(self, state) -> bool:
        """Whether some process spins forever in a local loop."""
        return any(p is not None and p[1] < 0 for p in state[0])

    def dirty(self, state) -> list[tuple[int, int, int]]:
        """(position, value, initial value) of every element that differs from its initial value."""
        init = self.init_values
        return [(p, v, init[p]) for p, v in enumerate(state[1]) if v != init[p]]

    def value(self, state, pos: int) -> int:
        return state[1][pos]

    def successors(self, state) -> list[Step]:
        """Every enabled step."""
        procs, sig = state[0], state[1]
        launches = state[3]
        ranks = self._ranks
        guards = self._guards
        G = self.G
        out = []
        for i, p in enumerate(procs):
            if p is None or p[1] < 0:
                continue
            key = (i, p, launches[ranks[i]]) if launches else (i, p)
            g = guards.get(key)
            if g is None:
                g = guards[key] = self._guard(i, p, launches)
            if g is not _MAY_MOVE:
                if g is _JOINT:
                    continue
                k = g[0]
                if k == _WAIT:
                    pos, value, holds = g[1], g[2], g[3]
                    v = sig[pos]
                    if not holds(v, value):
                        continue  # blocked at a wait that fails on this value
                    if g[4] is not None:  # a one-element wait that completes
                        reads = ((pos, v, value, True),)
                        ghost = self.marks.seen(state[2], i, reads) if G else state[2]
                        out.append(self._moved(state, i, g[4], g[5], sig, ghost, reads, (), g[6]))
                        continue
                elif k == _NOTIFY:
                    pos, value = g[1], g[2]
                    old = sig[pos]
                    new = value if g[3] else old + value
                    if INT32_MIN <= new <= INT32_MAX:
                        nsig = sig[:pos] + (new,) + sig[pos + 1:]
                        if G:
                            ghost, events = self.marks.notified(state[2], procs, launches, i, g[5], pos, old, new, g[3], g[4].span)
                            events += g[6]
                        else:
                            ghost, events = state[2], g[6]
                        out.append(self._moved(state, i, g[4], g[5], nsig, ghost, (), ((pos, old, new),), events))
                        continue
                elif any(procs[g[1]: g[2]]):
                    continue  # a launch whose blocks have not all returned
            s = self._step(state, i, p)
            if s is not None:
                out.append(s)
                if self._test_events and s.instr.__class__ is ir.TestEvent and self._event_pending(p, s.instr):
                    out.append(self._step(state, i, p, alt=1))
                elif s.instr.__class__ is ir.Choose and s.events[0].__class__ is Chosen:
                    op = self._ops[i < self.R][p[0]]
                    lo, hi = self._bounds(i, op, p[2], self.ctx_of(i, state[3]))
                    out += [self._step(state, i, p, alt=k) for k in range(1, hi - lo + 1)]
        if self._host_barriers and all(p is not None and p[1] >= 0 and self._ops[True][p[0]][0] == _BARRIER
                                       for p in procs[: self.R]):
            out.append(self._barrier(state))
        if self._block_barriers:
            out += [self._block_barrier(state, r) for r in range(self.R) if self._at_block_barrier(procs, r)]
        return out

    def _guard(self, i: int, p, launches):
        """What the step of process i at entry p is, as far as it does not depend on the
        signals: _JOINT (it only moves in a joint barrier step); (_JOIN, lo, hi) for a launch
        blocked while kernel slots lo..hi-1 run; (_WAIT, position, operand, holds, instr,
        entry, events) for a wait blocked unless that comparison holds (instr None: one of
        several elements, or with clocks: _step builds the step); (_NOTIFY, position, value,
        is_set, instr, entry, events); else _MAY_MOVE (_step decides). Depends only on i, p and
        the kernel's launch number (the key it is memoized under): the entry after a visible
        step does not depend on the signals, except for a TTEST's result (left to _step)."""
        pc, idx = p[0], p[1]
        is_host = i < self.R
        op = self._ops[is_host][pc]
        k = op[0]
        if k in (_BARRIER, _BLOCK_BARRIER):
            return _JOINT
        if k == _JOIN:
            base = self.R + i * self.B
            return (_JOIN, base, base + self.B)
        fast = not self.clocks and not self.lines  # steps built here, not by _step
        if k == _NOTIFY and fast:
            instr = self._instrs[is_host][pc]
            ctx = self.ctx_of(i, launches)
            try:
                rank, offs, value = self._operands(i, pc, op, p[2], ctx)
            except ModelError:
                return _MAY_MOVE  # the step is a fault
            if not INT32_MIN <= value <= INT32_MAX:
                return _MAY_MOVE
            pos = (self.rank_of(i) if rank is None else rank) * self.E + instr.view.signal.offset + offs[0]
            entry, events = self._continue(i, pc, p[2], ctx)
            return (_NOTIFY, pos, value, op[3], instr, entry, events)
        if k != _WAIT:
            return _MAY_MOVE
        instr = self._instrs[is_host][pc]
        ctx = self.ctx_of(i, launches)
        try:
            positions, value = self._own(i, pc, op, instr, p[2], ctx, "TWAIT")
        except ModelError:
            return _MAY_MOVE  # the step is a fault
        if not INT32_MIN <= value <= INT32_MAX or not positions:
            return _MAY_MOVE
        if len(positions) == 1:
            if fast:
                entry, events = self._continue(i, pc, p[2], ctx)
                return (_WAIT, positions[0], value, op[3], instr, entry, events)
            return (_WAIT, positions[0], value, op[3], None)
        if not self.atomic_waits and idx == 0:
            return (_WAIT, positions[0], value, op[3], None)
        return _MAY_MOVE

    @property
    def tabulable(self) -> bool:
        """Whether `transition` can describe steps of this program: no clocks (buffers) and no
        line-granular Sets, whose steps carry more than the signals and the process entries.
        The lost-notification marks (G > 0) are the engine's to keep, by model/ghost.py's
        rules (`ghost_reads`, `marks.ranges`); a step that makes an Overwrite event is not
        one it may take (ask `successors`)."""
        return not self.clocks and not self.lines

    def transition(self, i: int, p, launch: int):
        """The step of process i at entry p (not None), its rank at launch count `launch` (0
        when the program keeps none), as plain data for an engine that takes steps without this
        class (checker/native.py), for a `tabulable` program:
          ("spin",)                                   never moves (a local loop forever)
          ("joint", "host" | "block")                 moves only in a joint barrier step
          ("read", pos, value, cmp, true, false)      TWAIT / TTEST reading element pos: entry
                                                      `true` if `signal cmp value` holds, else
                                                      `false` (BLOCKED: no step); cmp the
                                                      comparison's pto-isa number
          ("notify", pos, value, is_set, entry)       Set, or AtomicAdd (one that leaves int32
                                                      is an overflow fault: ask `successors`;
                                                      so is a Set that changes a value whose
                                                      ghost slot holds a mark: an Overwrite)
          ("reset", positions, init, entry)           (likewise a reset that changes a marked
                                                      value)
          ("launch", entry, starts)                   the host's next entry, its blocks' first
          ("join", lo, hi, entry)                     once kernel slots lo..hi-1 have finished
        or None: ask `successors` (the step has events, reads several elements at once, is a
        fault, a choice, a data step). Entries are the entry objects states hold (None:
        finished). Each is what `successors` gives for that process in any state."""
        pc, idx, L = p
        if idx < 0:
            return ("spin",)
        is_host = i < self.R
        op = self._ops[is_host][pc]
        k = op[0]
        instr = self._instrs[is_host][pc]
        if k in (_BARRIER, _BLOCK_BARRIER):
            return ("joint", "host" if k == _BARRIER else "block")
        if k == _LAUNCH:
            launch_id = launch if self.track_launches else 0
            starts = [self.start_of(self.R + i * self.B + b, launch_id) for b in range(self.B)]
            if any(events for _, events in starts):
                return None
            return ("launch", self._shared((pc + 1, 0, L)), tuple(entry for entry, _ in starts))
        ctx = (i, 0, 0) if is_host else (*divmod(i - self.R, self.B), launch - 1 if self.track_launches else 0)
        if k == _JOIN:
            entry, events = self._continue(i, pc, L, ctx)
            base = self.R + i * self.B
            return None if events else ("join", base, base + self.B, entry)
        try:
            if k == _NOTIFY:
                rank, offs, value = self._operands(i, pc, op, L, ctx)
                if not INT32_MIN <= value <= INT32_MAX:
                    return None
                pos = (self.rank_of(i) if rank is None else rank) * self.E + instr.view.signal.offset + offs[0]
                entry, events = self._continue(i, pc, L, ctx)
                return None if events else ("notify", pos, value, op[3], entry)
            if k == _RESET:
                positions, _ = self._own(i, pc, op, instr, L, ctx, "reset")
                entry, events = self._continue(i, pc, L, ctx)
                return None if events else ("reset", tuple(positions), op[2], entry)
            if k not in (_WAIT, _TEST):
                return None
            positions, value = self._own(i, pc, op, instr, L, ctx, "TWAIT" if k == _WAIT else "TTEST")
        except ModelError:
            return None  # a fault
        if not INT32_MIN <= value <= INT32_MAX or not positions or (self.atomic_waits and len(positions) > 1):
            return None
        cmp = COMPARISON[instr.cmp].pto_enum
        if len(positions) > 1 and idx + 1 < len(positions):
            true = self._shared((pc, idx + 1, L))
        else:
            true, events = self._continue(i, pc, L if k == _WAIT else L[:op[4]] + (1,) + L[op[4] + 1:], ctx)
            if events:
                return None
        if k == _TEST:
            false, events = self._continue(i, pc, L[:op[4]] + (0,) + L[op[4] + 1:], ctx)
            if events:
                return None
        else:
            false = BLOCKED if len(positions) == 1 or idx == 0 else self._shared((pc, 0, L))
        return ("read", positions[idx] if len(positions) > 1 else positions[0], value, cmp, true, false)

    def _moved(self, state, i, instr, entry, sig, ghost, reads, writes, events) -> Step:
        """The step of process i to `entry` (what _finish builds, for a program without clocks)."""
        procs = state[0]
        procs = procs[:i] + (entry,) + procs[i + 1:]
        if ghost:
            ghost = self.marks.settle(ghost, procs, (i,))
        return _new_step((i, instr, _new_state((procs, sig, ghost, state[3], ())), reads, writes, events, i, ()))

    def _at_block_barrier(self, procs, r: int) -> bool:
        """Whether every block of rank r's launch stands at a block_barrier."""
        base = self.R + r * self.B
        return all(p is not None and p[1] >= 0 and self._ops[False][p[0]][0] == _BLOCK_BARRIER
                   for p in procs[base: base + self.B])

    def step(self, state, label: int) -> Step | None:
        """The step of process `label` (or the joint barrier step) from `state`, if enabled."""
        if label == BARRIER:
            return next((s for s in self.successors(state) if s.process == BARRIER), None)
        if label < BARRIER:
            r = -2 - label
            return self._block_barrier(state, r) if self._at_block_barrier(state[0], r) else None
        i, alt = label % self.nprocs, label // self.nprocs
        p = state[0][i]
        if p is None or p[1] < 0:
            return None
        return self._step(state, i, p, alt)

    def _barrier(self, state) -> Step:
        procs, sig, ghost, launches, _ = state
        events: list = []
        new = list(procs)
        for r in range(self.R):
            pc, _, L = procs[r]
            new[r] = self._shared(self._run(r, pc + 1, list(L), (r, 0, 0), events))
        new = tuple(new)
        if self.G:
            ghost = self.marks.settle(ghost, new, range(self.R))
        hb = self.clocks.barrier(state.hb) if self.clocks else ()
        instr = self.program.host.instrs[procs[0][0]]
        return Step(BARRIER, instr, State(new, sig, ghost, launches, hb), (), (), tuple(events), BARRIER)

    def _block_barrier(self, state, r: int) -> Step:
        procs, sig, ghost, launches, hb = state
        events: list = []
        new = list(procs)
        blocks = range(self.R + r * self.B, self.R + (r + 1) * self.B)
        for k in blocks:
            pc, _, L = procs[k]
            new[k] = self._shared(self._run(k, pc + 1, list(L), self.ctx_of(k, launches), events))
        new = tuple(new)
        if self.G:
            ghost = self.marks.settle(ghost, new, blocks)
        if self.clocks:
            hb = self.clocks.barrier(hb, blocks)
            for k in blocks:
                if new[k] is None:
                    hb = self.clocks.finish(hb, k, r)
        instr = self.program.kernel.instrs[procs[blocks[0]][0]]
        label = block_barrier(r)
        return Step(label, instr, State(new, sig, ghost, launches, hb), (), (), tuple(events), label)

    def _step(self, state, i, p, alt: int = 0) -> Step | None:
        """The step of process i (at entry p) or None when it is blocked; `alt` 1 takes the
        other outcome of a TEST_EVENT whose transfer may not have completed."""
        pc, idx, L = p[0], p[1], p[2]
        is_host = i < self.R
        op = self._ops[is_host][pc]
        k = op[0]
        instr = self._instrs[is_host][pc]
        if k == _JOIN:
            base = self.R + i * self.B
            if any(state[0][base: base + self.B]):
                return None
            entry, events = self._continue(i, pc, L, self.ctx_of(i, state[3]))
            hb = self.clocks.join(state.hb, i) if self.clocks else ()
            return self._finish(state, i, instr, entry, state[1], state[2], state[3], (), (), events, hb)
        if k == _BLOCK_BARRIER:
            return None  # joint step, see successors
        if k == _CHOOSE:
            return self._choose(state, i, instr, op, pc, L, self.ctx_of(i, state[3]), alt)
        if k >= _LOAD:
            try:
                return self._data_step(state, i, instr, op, pc, L, self.ctx_of(i, state[3]), alt)
            except ModelError as e:
                return self._finish(state, i, instr, None, state[1], state[2], state[3], (), (),
                                    (Fault("error", i, e.span, e.message),))
        if k == _BARRIER:
            return None  # joint step, see successors
        if k == _LAUNCH:
            return self._launch(state, i, instr, pc, L)
        ctx = self.ctx_of(i, state[3])
        try:
            if k == _NOTIFY:
                return self._notify(state, i, instr, op, pc, L, ctx)
            if k == _RESET:
                return self._reset(state, i, instr, op, pc, L, ctx)
            return self._read(state, i, instr, op, pc, idx, L, ctx)
        except ModelError as e:
            return self._finish(state, i, instr, None, state[1], state[2], state[3], (), (),
                                (Fault("error", i, e.span, e.message),))

    def _finish(self, state, i, instr, entry, sig, ghost, launches, reads, writes, events, hb=None,
                label=None, accesses=()) -> Step:
        procs = state[0]
        procs = procs[:i] + (entry,) + procs[i + 1:]
        if self.G and ghost:
            ghost = self.marks.settle(ghost, procs, (i,))
        if hb is None:
            hb = state.hb
        if self.clocks and entry is None:
            hb = self.clocks.finish(hb, i, self.rank_of(i))
        return Step(i, instr, State(procs, sig, ghost, launches, hb), reads, writes, events,
                    i if label is None else label, accesses)

    def _shared(self, entry):
        """One object per distinct process entry (states share them; the store finds them by id)."""
        return self._entry_objects.setdefault(entry, entry)

    def _continue(self, i, pc, L, ctx):
        """The entry after a visible step: the local statements after it run (memoized)."""
        key = (i < self.R, pc, L, ctx)
        hit = self._resume.get(key)
        if hit is None:
            local_events: list = []
            entry = self._run(i, pc + 1, list(L), ctx, local_events)
            hit = self._resume[key] = (entry, tuple(local_events))
        return hit

    def _operands(self, i, pc, op, L, ctx):
        """(rank or None, flat offsets, value) of a visible signal instruction, memoized."""
        key = (i < self.R, pc, L, ctx)
        hit = self._evaluated.get(key)
        if hit is None:
            try:
                rank, offs = op[1](L, ctx)
                offs = self._offsets.setdefault(offs, offs)  # one object for equal ones (a range or a tuple)
                hit = (rank, offs, op[2](L, ctx) if op[0] != _RESET else None)
            except ModelError as e:
                hit = e
            self._evaluated[key] = hit
        if isinstance(hit, ModelError):
            raise hit
        return hit

    def _own(self, i: int, pc: int, op, instr, L, ctx, what: str):
        """Positions of the own rank's copy that a wait, test or reset reads, and the operand."""
        rank, offs, value = self._operands(i, pc, op, L, ctx)
        own = self.rank_of(i)
        if rank is not None and rank != own:
            raise ModelError(f"{what} reads only the own rank's copy, but this one names rank {rank} "
                             f"(the process runs on rank {own})", instr.span)
        base = own * self.E + instr.view.signal.offset
        return [base + o for o in offs], value

    def _writer_launch(self, i: int, launches: tuple) -> int:
        return launches[i] if i < self.R else launches[self.rank_of(i)] - 1

    def _line(self, pos: int) -> tuple[int, int]:
        """The first and last global positions of the cache line that holds `pos`."""
        rank, off = divmod(pos, self.E)
        sig = self.program.signals[bisect.bisect_right(self._sig_offsets, off) - 1]
        flat = off - sig.offset
        start = flat - flat % LINE
        base = rank * self.E + sig.offset
        return base + start, base + min(start + LINE, sig.size) - 1

    def _notify(self, state, i, instr, op, pc, L, ctx) -> Step:
        procs, sig, ghost, launches, _ = state
        if self.lines and op[3]:
            return self._line_set(state, i, instr, op, pc, L, ctx)
        rank, offs, value = self._operands(i, pc, op, L, ctx)
        if rank is None:
            rank = self.rank_of(i)
        pos = rank * self.E + instr.view.signal.offset + offs[0]
        old = sig[pos]
        if not INT32_MIN <= value <= INT32_MAX:
            return self._finish(state, i, instr, None, sig, ghost, launches, (), (),
                                (Fault("error", i, instr.span, f"{instr.op} value {value} does not fit in int32"),))
        is_set = op[3]
        new = value if is_set else old + value
        if not is_set and not INT32_MIN <= new <= INT32_MAX:
            message = (f"AtomicAdd of {value} to {self.element(pos).name} = {old} gives {new}, outside int32")
            return self._finish(state, i, instr, None, sig, ghost, launches, (), (),
                                (Fault("overflow", i, instr.span, message),))
        entry, local_events = self._continue(i, pc, L, ctx)
        sig = sig[:pos] + (new,) + sig[pos + 1:]
        if self.G:
            ghost, events = self.marks.notified(ghost, procs, launches, i, entry, pos, old, new, is_set, instr.span)
        else:
            events = ()
        hb = self.clocks.release(state.hb, i, pos, extend=not is_set) if self.clocks else ()
        return self._finish(state, i, instr, entry, sig, ghost, launches, (), ((pos, old, new),),
                            events + local_events, hb)

    def _line_set(self, state, i, instr, op, pc, L, ctx) -> Step:
        """A Set at line granularity: one step reads the whole line into the writer's cache
        (the entry keeps it), the next writes the line back with the one element changed, which
        erases whatever another process wrote to the rest of the line in between."""
        procs, sig, ghost, launches, hb = state
        entry = procs[i]
        rank, offs, value = self._operands(i, pc, op, L, ctx)
        rank = self.rank_of(i) if rank is None else rank
        pos = rank * self.E + instr.view.signal.offset + offs[0]
        first, last = self._line(pos)
        if len(entry) == 3:  # first half: read the line
            if not INT32_MIN <= value <= INT32_MAX:
                return self._finish(state, i, instr, None, sig, ghost, launches, (), (),
                                    (Fault("error", i, instr.span, f"{instr.op} value {value} does not fit in int32"),))
            cached = (pc, 0, L, sig[first: last + 1])
            return self._finish(state, i, instr, cached, sig, ghost, launches, (), (), (LineRead(first, last),))
        cached = entry[3]
        values = list(sig)
        writes, events = [], []
        for q in range(first, last + 1):
            new = value if q == pos else cached[q - first]
            if q != pos and values[q] != new and self.G:
                ghost = self.marks.erase(ghost, q, values[q], new, rank, launches, instr.span, events, clobber=True)
            if q == pos or values[q] != new:
                writes.append((q, values[q], new))
            values[q] = new
        old = sig[pos]
        new_sig = tuple(values)
        entry, local_events = self._continue(i, pc, L, ctx)
        if self.G:
            ghost, notified = self.marks.notified(ghost, procs, launches, i, entry, pos, old, value, True, instr.span)
        else:
            notified = ()
        if self.clocks:
            hb = self.clocks.release(hb, i, pos, extend=False)
        return self._finish(state, i, instr, entry, new_sig, ghost, launches, (), tuple(writes),
                            tuple(events) + notified + local_events, hb)

    def _reset(self, state, i, instr, op, pc, L, ctx) -> Step:
        procs, sig, ghost, launches, _ = state
        positions, _ = self._own(i, pc, op, instr, L, ctx, "reset")
        init = op[2]
        values = list(sig)
        events = []
        writes = []
        rank = self.rank_of(i)
        for pos in positions:
            old = values[pos]
            writes.append((pos, old, init))
            values[pos] = init
            if self.G and old != init:
                ghost = self.marks.erase(ghost, pos, old, init, rank, launches, instr.span, events)
        sig = tuple(values)
        entry, local_events = self._continue(i, pc, L, ctx)
        hb = state.hb
        if self.clocks:
            for pos in positions:
                hb = self.clocks.clear(hb, pos)
        return self._finish(state, i, instr, entry, sig, ghost, launches, (), tuple(writes),
                            tuple(events) + local_events, hb)

    def _read(self, state, i, instr, op, pc, idx, L, ctx) -> Step | None:
        """One element read of a TWAIT or TTEST (all elements with atomic waits)."""
        procs, sig, ghost, launches, _ = state
        is_wait = op[0] == _WAIT
        what = "TWAIT" if is_wait else "TTEST"
        positions, value = self._own(i, pc, op, instr, L, ctx, what)
        if not INT32_MIN <= value <= INT32_MAX:
            raise ModelError(f"{what} value {value} does not fit in int32", instr.span)
        holds = op[3]
        if self.atomic_waits or len(positions) == 1:
            reads = tuple((pos, sig[pos], value, holds(sig[pos], value)) for pos in positions)
            ok = all(r[3] for r in reads)
            if not ok and is_wait:
                return None
            return self._completed(state, i, instr, op, pc, L, ctx, reads, ok)
        pos = positions[idx]
        v = sig[pos]
        reads = ((pos, v, value, holds(v, value)),)
        if reads[0][3]:
            if idx + 1 < len(positions):
                hb = self.clocks.pend(state.hb, i, pos) if self.clocks else ()
                entry = self._shared((pc, idx + 1, L))
                return self._finish(state, i, instr, entry, sig, (self.marks.seen(ghost, i, reads) if self.G else ghost), launches, reads, (), (),
                                    hb)
            return self._completed(state, i, instr, op, pc, L, ctx, reads, True)
        if is_wait:
            if idx == 0:
                return None  # the failed read changes nothing: the wait is blocked
            hb = self.clocks.settle_pass(state.hb, i, False) if self.clocks else ()
            entry = self._shared((pc, 0, L))
            return self._finish(state, i, instr, entry, sig, (self.marks.seen(ghost, i, reads) if self.G else ghost), launches, reads, (), (), hb)
        return self._completed(state, i, instr, op, pc, L, ctx, reads, False)

    def _completed(self, state, i, instr, op, pc, L, ctx, reads, ok) -> Step:
        if op[0] == _TEST:
            d = op[4]
            L = L[:d] + (int(ok),) + L[d + 1:]
        entry, events = self._continue(i, pc, L, ctx)
        hb = state.hb
        if self.clocks:  # a completed wait or a true TTEST acquires what its reads observed
            if ok:
                hb = self.clocks.acquire(hb, i, [r[0] for r in reads])
            hb = self.clocks.settle_pass(hb, i, ok)
        return self._finish(state, i, instr, entry, state[1], (self.marks.seen(state[2], i, reads) if self.G else state[2]), state[3], reads, (),
                            events, hb)

    # ------------------------------------------------------------ the data extension

    def _event_pending(self, p, instr) -> bool:
        """Whether the transfer of a TEST_EVENT's event may still be running (two outcomes)."""
        v = p[2][instr.slot]
        return v > 0 and not v & COMPLETE

    def _element(self, op_view, instr, L, ctx, i) -> int:
        r, offs = op_view(L, ctx)
        r = self.rank_of(i) if r is None else r
        return r * self.E + instr.view.signal.offset + offs[0]

    def _data(self, view_fn, view, L, ctx, i) -> tuple[list[int], int]:
        """The shadow positions of the blocks a buffer view touches, in the view's order, and
        how many elements it touches."""
        r, offs = view_fn(L, ctx)
        r = self.rank_of(i) if r is None else r
        if len(offs) > MAX_ACCESS:  # a trace lists each element of each access: keep that bounded
            raise ModelError(f"a view of {len(offs)} elements of '{view.signal.name}'; one statement touches at most "
                             f"{MAX_ACCESS} (the buffer may be larger)", view.span)
        g, first = self._grain[view.signal.name]
        base = r * self.D + first
        if g == 1:
            return [base + o for o in offs], len(offs)
        if isinstance(offs, range) and offs.start % g == 0 and len(offs) % g == 0:  # one run of whole blocks
            return list(range(base + offs.start // g, base + (offs.start + len(offs)) // g)), len(offs)
        out = [base + o // g for o in offs if o % g == 0]
        if len(out) * g != len(offs):  # model/grain.py promised whole blocks: never merge on a broken promise
            raise AssertionError(f"internal: {view.signal.name} accessed in part of a block of {g} at {view.span}")
        return out, len(offs)

    def _int32(self, value, instr, what: str):
        if not INT32_MIN <= value <= INT32_MAX:
            raise ModelError(f"{what} value {value} does not fit in int32", instr.span)

    def _data_step(self, state, i, instr, op, pc, L, ctx, alt) -> Step:
        """LOAD, STORE, FETCH_ADD, CAS, the copies and accesses of buffer data, events, fences."""
        k = op[0]
        procs, sig, ghost, launches, hb = state
        clocks = self.clocks
        if k in (_LOAD, _STORE, _FETCH_ADD, _CAS):
            pos = self._element(op[1], instr, L, ctx, i)
            old = sig[pos]
            new, dest, events, writes = old, None, (), ()
            reads = ((pos, old, None, True),) if k != _STORE else ()
            if k == _LOAD:
                dest = old
            elif k == _STORE:
                new = op[2](L, ctx)
                self._int32(new, instr, "STORE")
            elif k == _FETCH_ADD:
                value = op[2](L, ctx)
                self._int32(value, instr, "FETCH_ADD")
                new, dest = old + value, old
                if not INT32_MIN <= new <= INT32_MAX:
                    message = f"FETCH_ADD of {value} to {self.element(pos).name} = {old} gives {new}, outside int32"
                    return self._finish(state, i, instr, None, sig, ghost, launches, (), (),
                                        (Fault("overflow", i, instr.span, message),))
            else:
                expected, value = op[2](L, ctx), op[4](L, ctx)
                self._int32(value, instr, "CAS")
                dest = int(old == expected)
                if dest:
                    new = value
            if dest is not None:
                d = op[3]
                L = L[:d] + (dest,) + L[d + 1:]
            entry, local_events = self._continue(i, pc, L, ctx)
            if self.G:
                ghost = self.marks.seen(ghost, i, reads)
            if clocks and reads:
                hb = clocks.acquire(hb, i, [pos])
            if k == _STORE or (k == _CAS and dest) or k == _FETCH_ADD:
                writes = ((pos, old, new),)
                sig = sig[:pos] + (new,) + sig[pos + 1:]
                if self.G:
                    ghost, events = self.marks.notified(ghost, procs, launches, i, entry, pos, old, new,
                                                        k != _FETCH_ADD, instr.span)
                if clocks:
                    hb = clocks.release(hb, i, pos, extend=k == _FETCH_ADD)
            return self._finish(state, i, instr, entry, sig, ghost, launches, reads, writes, events + local_events, hb)
        label, events, accesses = i, [], []
        if k == _COPY:
            dst, ndst = self._data(op[1], instr.dst, L, ctx, i)
            src, nsrc = self._data(op[2], instr.src, L, ctx, i)
            if ndst != nsrc:
                raise ModelError(f"{instr.text.split('(')[0].split()[-1]} copies {nsrc} element(s) into a view "
                                 f"of {ndst}: the views must have the same size", instr.span)
            if instr.event is None:
                hb, rc, rt = clocks.tick(hb, i, False)
                hb, wc, wt = clocks.tick(hb, i, True)
                knows = hb[0][i]
            else:
                slot, ev = instr.event
                hb, t, knows = clocks.issue(hb, i, ev)
                rc = wc = clocks.event_clock(i, ev)
                rt = wt = t
                L = L[:slot] + (t,) + L[slot + 1:]
            wkind = "atomic" if instr.atomic else "write"
            accesses = [Access(p, "read", rc, rt) for p in src] + [Access(p, wkind, wc, wt) for p in dst]
        elif k == _ACCESS:
            positions = self._data(op[1], instr.view, L, ctx, i)[0]
            hb, c, t = clocks.tick(hb, i, instr.write)
            knows = hb[0][i]
            accesses = [Access(p, "write" if instr.write else "read", c, t) for p in positions]
        elif k == _WAIT_EVENT:
            v = L[instr.slot]
            if v < 0:
                raise ModelError(f"event '{instr.name}' was already waited for (WAIT_EVENT twice)", instr.span)
            hb = clocks.complete(hb, i, instr.event, v & ~COMPLETE)
            L = L[:instr.slot] + (-(v & ~COMPLETE),) + L[instr.slot + 1:]
        elif k == _TEST_EVENT:
            v = L[instr.slot]
            done = 1
            if v > 0 and not v & COMPLETE:
                if alt:
                    done, label = 0, i + self.nprocs  # the transfer has not completed yet
                else:
                    hb = clocks.complete(hb, i, instr.event, v)
                    L = L[:instr.slot] + (v | COMPLETE,) + L[instr.slot + 1:]
            L = L[:instr.dest] + (done,) + L[instr.dest + 1:]
        elif k == _FENCE:
            hb = clocks.fence(hb, i, instr.kind)
        for a in accesses:
            hb, races = clocks.access(hb, knows, a.position, a.kind, a.clock, a.time)
            events += [DataRace(first, a, instr.span) for first in races]
        entry, local_events = self._continue(i, pc, L, ctx)
        return self._finish(state, i, instr, entry, sig, ghost, launches, (), (), tuple(events) + local_events, hb,
                            label, tuple(accesses))

    def _bounds(self, i, op, L, ctx) -> tuple[int, int]:
        """lo and hi of an `any(lo, hi)` (ModelError when they cannot be evaluated)."""
        return op[2](L, ctx), op[3](L, ctx)

    def _choose(self, state, i, instr, op, pc, L, ctx, alt) -> Step | None:
        """The choice lo + alt of an `any(lo, hi)` (None beyond hi); an empty or too wide range
        is an `error` (the alt 0 step)."""
        try:
            lo, hi = self._bounds(i, op, L, ctx)
            if lo > hi:
                raise ModelError(f"any({lo}, {hi}): the range is empty (lo > hi)", instr.span)
            if hi - lo + 1 > ir.MAX_CHOICES:
                raise ModelError(f"any({lo}, {hi}) ranges over {hi - lo + 1} values; at most {ir.MAX_CHOICES} are "
                                 f"explored", instr.span)
        except ModelError as e:
            if alt:
                return None
            return self._finish(state, i, instr, None, state[1], state[2], state[3], (), (),
                                (Fault("error", i, e.span, e.message),))
        if alt > hi - lo:
            return None
        value = lo + alt
        slot = op[1]
        entry, local_events = self._continue(i, pc, L[:slot] + (value,) + L[slot + 1:], ctx)
        return self._finish(state, i, instr, entry, state[1], state[2], state[3], (), (),
                            (Chosen(i, instr.name, value),) + local_events, label=i + alt * self.nprocs)

    def blocks_of(self, buffer: str) -> tuple[int, int]:
        """(grain, shadow position of its first block within a rank) of a buffer."""
        return self._grain[buffer]

    def data_element(self, pos: int) -> Element:
        """The first element of the block at shadow position `pos`."""
        return self.data_elements(pos)[0]

    def data_elements(self, pos: int) -> tuple[Element, ...]:
        """The buffer elements of the block at shadow position `pos` (one unless the grain is more)."""
        rank, off = divmod(pos, self.D)
        buf = self.program.buffers[bisect.bisect_right(self._buf_offsets, off) - 1]
        g, first = self._grain[buf.name]
        flat = (off - first) * g
        return tuple(Element(buf.name, buf.index_of(f), rank, f"{buf.element_name(f)}@{rank}")
                     for f in range(flat, flat + g))

    def start_of(self, k: int, launch_id: int) -> tuple:
        """(entry, events) of block process k when launch `launch_id` of its rank starts: where
        its first local statements take it (None if they stop it), the same at every launch of
        that number."""
        start = self._starts.get((k, launch_id))
        if start is None:
            r, b = divmod(k - self.R, self.B)
            first: list = []
            entry = self._run(k, 0, [0] * self.program.kernel.nslots, (r, b, launch_id), first)
            start = self._starts[(k, launch_id)] = (entry, tuple(first))
        return start

    def _launch(self, state, r, instr, pc, L) -> Step:
        procs, sig, ghost, launches, _ = state
        launch_id = launches[r] if launches else 0
        new = list(procs)
        events: list = []
        for b in range(self.B):
            k = self.R + r * self.B + b
            start = self.start_of(k, launch_id)
            new[k] = start[0]
            events += start[1]
        new[r] = self._shared((pc + 1, 0, L))
        new = tuple(new)
        if launches:
            launches = launches[:r] + (launches[r] + 1,) + launches[r + 1:]
        if self.G:  # the notifications meant for this launch now wait in its running blocks
            ghost = self.marks.launched(ghost, new, r)
        hb = state.hb
        if self.clocks:
            blocks = range(self.R + r * self.B, self.R + (r + 1) * self.B)
            hb = self.clocks.launch(hb, r, blocks)
            for k in blocks:
                if new[k] is None:  # a block that stopped in its first local statements
                    hb = self.clocks.finish(hb, k, r)
        return Step(r, instr, State(new, sig, ghost, launches, hb), (), (), tuple(events), r)

    # ------------------------------------------------------------ questions about a state

    def future_reads(self, state, reader: Reader, pos: int) -> list[tuple[str, object, Span]]:
        """(cmp, operand values or TOP, span) of each TWAIT/TTEST that `reader` may still
        execute on element `pos`, from `state`."""
        r = reader.rank
        if reader.block == HOST:
            kind, block, lid, entry = "host", 0, 0, state[0][r]
        else:
            kind, block, lid = "kernel", reader.block, reader.launch
            launches = state[3]
            started = launches[r] - 1 >= reader.launch
            entry = state[0][self.R + r * self.B + reader.block] if started else (0, 0, ())
        if entry is None or entry[1] < 0:
            return []
        reads = self.analysis.future_reads(kind, r, block, lid, entry[0], entry[2])
        return [(cmp, values, span) for m, cmp, values, span in reads if (m >> pos) & 1]

    def situation(self, state) -> list[Stuck]:
        """Each unfinished process: where it is and what it waits for."""
        procs, sig, _, launches, _ = state
        out = []
        for i, p in enumerate(procs):
            if p is None:
                continue
            pc, idx, L = p[0], p[1], p[2]
            instr = self.code_of(i).instrs[pc]
            if idx < 0:
                out.append(Stuck(i, instr, "spin", None, None, (), (), None))
                continue
            op = self._ops[i < self.R][pc]
            if op[0] in (_WAIT, _TEST):
                ctx = self.ctx_of(i, launches)
                try:
                    positions, value = self._own(i, pc, op, instr, L, ctx, instr.text.split("(")[0])
                except ModelError as e:
                    out.append(Stuck(i, instr, "fault", None, None, (), (), e.message))
                    continue
                kind = "wait" if op[0] == _WAIT else "test"
                out.append(Stuck(i, instr, kind, instr.cmp, value, tuple((q, sig[q]) for q in positions), (), None))
            elif op[0] == _JOIN:
                out.append(Stuck(i, instr, "join", None, None, (), (), None))
            elif op[0] == _BARRIER:
                missing = tuple(r for r in range(self.R)
                                if procs[r] is None or self._ops[True][procs[r][0]][0] != _BARRIER)
                out.append(Stuck(i, instr, "barrier", None, None, (), missing, None))
            elif op[0] == _BLOCK_BARRIER:
                base = self.R + self.rank_of(i) * self.B
                missing = tuple(k for k in range(base, base + self.B)
                                if procs[k] is None or self._ops[False][procs[k][0]][0] != _BLOCK_BARRIER)
                out.append(Stuck(i, instr, "barrier", None, None, (), missing, None))
            else:
                out.append(Stuck(i, instr, "other", None, None, (), (), None))
        return out

    def where(self, state) -> list[tuple[int, Span]]:
        """(process, span of its next instruction) of every unfinished process."""
        return [(i, self.code_of(i).instrs[p[0]].span) for i, p in enumerate(state[0]) if p is not None]

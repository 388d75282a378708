"""The transition system of a program: initial state, enabled steps and what each step did.

Entry point: `System(program)`. `initial()` gives the initial state and the events of the
hosts' first local statements; `successors(state)` gives every enabled `Step` record, and
`step(state, label)` the one step of one process (each process is deterministic, so a step
is named by its process index, the joint host_barrier step by BARRIER). A Step carries the
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
- ghost: for each element that a notification can reach and a Set or reset can overwrite
  and a wait can read, a bitmask of the readers the notification now in it is meant for,
  that have not read it and whose code may still read it (bit 0: the holder's host; bit
  1 + k*B + b: block b of the holder's launch k after its latest started one);
- launches: per-rank launch counts (kept when the kernel reads `launch_id` or a ghost exists).
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from model import compile as C
from model import ir
from model.analysis import Analysis
from model.cint import COMPARE
from model.errors import ModelError, Span

BARRIER = -1
HOST = -1  # the `block` of a host reader
LOCAL_STEP_LIMIT = 1_000_000
_CYCLE_CHECK_AFTER = 10_000
INT32_MIN, INT32_MAX = ir.INT32_MIN, ir.INT32_MAX

# compiled opcodes; local ones run invisibly between visible steps
_ASSIGN, _JUMP, _BRANCH, _ASSERT, _RETURN = range(5)
_NOTIFY, _WAIT, _TEST, _RESET, _LAUNCH, _JOIN, _BARRIER = range(10, 17)
_VISIBLE = _NOTIFY


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


class Fault(NamedTuple):
    kind: str  # "assertion" | "error" | "overflow"
    process: int
    span: Span
    message: str


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


class Step(NamedTuple):
    process: int  # the label: process index, or BARRIER
    instr: object  # the IR instruction executed (host 0's for BARRIER)
    next: State
    reads: tuple  # (position, value, operand, holds)
    writes: tuple  # (position, old, new)
    events: tuple  # Fault and Overwrite records


class Process(NamedTuple):
    kind: str  # "host" | "kernel" | "hosts" (the joint barrier step)
    rank: int | None
    block: int | None
    name: str


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
    missing: tuple  # hosts a barrier waits for
    message: str | None  # for "fault": why the wait cannot even be evaluated


class System:
    def __init__(self, program: ir.Program, atomic_waits: bool = False, keep_dead_locals: bool = False):
        self.program = program
        self.atomic_waits = atomic_waits
        self.keep_dead_locals = keep_dead_locals  # for tests: states keep every local
        self.R = program.nranks
        self.B = program.nblocks
        self.E = program.elems_per_rank
        self.nprocs = self.R + self.R * self.B
        self.analysis = Analysis(program)
        self._sig_offsets = [s.offset for s in program.signals]
        self.init_values = tuple(s.init for s in program.signals for _ in range(s.size)) * self.R
        self._ops = {True: self._compile(program.host, "host"), False: self._compile(program.kernel, "kernel")}
        self._keep = {True: self._keeps(program.host, "host"), False: self._keeps(program.kernel, "kernel")}
        self._resume: dict = {}
        self._signals: dict = {}
        self._evaluated: dict = {}
        self._ghost_setup()
        self.track_launches = program.uses_launch_id or bool(self.G)

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
        keep = self._keep[is_host][pc]
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
        if i < self.R:
            return (i, 0, 0)
        r, b = divmod(i - self.R, self.B)
        return (r, b, launches[r] - 1 if launches else 0)

    def rank_of(self, i: int) -> int:
        return i if i < self.R else (i - self.R) // self.B

    # ------------------------------------------------------------ ghost set-up

    def _ghost_setup(self) -> None:
        """The elements whose notifications can be lost, and what each process may still read."""
        totals = self.analysis.totals()
        notified = 0
        for kind, r, b in self.analysis.contexts():
            for ins, fp in zip(self.analysis.codes[kind].instrs, self.analysis.footprints(kind, r, b)):
                if isinstance(ins, ir.Notify):
                    notified |= fp.writes
        mask = totals.sets & notified & totals.reads
        positions = [p for p in range(mask.bit_length()) if (mask >> p) & 1]
        self.ghost_positions = tuple(positions)
        self.G = len(positions)
        self._gidx = {p: g for g, p in enumerate(positions)}
        self._grange = []
        for r in range(self.R):
            lo = bisect.bisect_left(positions, r * self.E)
            hi = bisect.bisect_left(positions, (r + 1) * self.E)
            self._grange.append((lo, hi))
        self._mayg: dict = {}
        if self.G:
            for kind, r, b in self.analysis.contexts():
                per_pc = []
                for m in self.analysis.reachable_reads(kind, r, b):
                    g = 0
                    for p, k in self._gidx.items():
                        if (m >> p) & 1:
                            g |= 1 << k
                    per_pc.append(g)
                self._mayg[(kind == "host", r, b)] = tuple(per_pc)

    def _may(self, i: int, entry) -> int:
        """Ghost slots process i (at entry) may still read."""
        if entry is None or entry[1] < 0:
            return 0
        if i < self.R:
            return self._mayg[(True, i, 0)][entry[0]]
        r, b = divmod(i - self.R, self.B)
        return self._mayg[(False, r, b)][entry[0]]

    def _bit(self, i: int) -> int:
        return 1 if i < self.R else 1 << (1 + (i - self.R) % self.B)

    def _tokens(self, procs: tuple, launches: tuple, writer_launch: int, r: int, g: int) -> int:
        """The readers on rank r a notification of launch `writer_launch` into ghost slot g is for."""
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
                if (self._mayg[(False, r, b)][0] >> g) & 1:
                    t |= 1 << (1 + off * self.B + b)
        return t

    def _readers(self, t: int, r: int, launches: tuple) -> tuple:
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

    def _settle(self, ghost: tuple, procs: tuple, movers) -> tuple:
        """Drop the tokens of the processes in `movers` that can no longer read their slot."""
        for i in movers:
            lo, hi = self._grange[self.rank_of(i)]
            if lo == hi:
                continue
            bit = self._bit(i)
            may = self._may(i, procs[i])
            for g in range(lo, hi):
                if ghost[g] & bit and not (may >> g) & 1:
                    ghost = ghost[:g] + (ghost[g] & ~bit,) + ghost[g + 1:]
        return ghost

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
                else:  # RETURN
                    return None
                count += 1
                if count > _CYCLE_CHECK_AFTER:
                    if seen is None:
                        seen = set()
                    key = (pc, tuple(L))
                    if key in seen:
                        return (pc, -1, tuple(L))
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
        return State(tuple(procs), self.init_values, (0,) * self.G, launches), tuple(events)

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
        procs = state[0]
        out = []
        for i, p in enumerate(procs):
            if p is not None and p[1] >= 0:
                s = self._step(state, i, p)
                if s is not None:
                    out.append(s)
        if self.R and all(p is not None and p[1] >= 0 and self._ops[True][p[0]][0] == _BARRIER
                          for p in procs[: self.R]):
            out.append(self._barrier(state))
        return out

    def step(self, state, label: int) -> Step | None:
        """The step of process `label` (or the joint barrier step) from `state`, if enabled."""
        if label == BARRIER:
            return next((s for s in self.successors(state) if s.process == BARRIER), None)
        p = state[0][label]
        if p is None or p[1] < 0:
            return None
        return self._step(state, label, p)

    def _barrier(self, state) -> Step:
        procs, sig, ghost, launches = state
        events: list = []
        new = list(procs)
        for r in range(self.R):
            pc, _, L = procs[r]
            new[r] = self._run(r, pc + 1, list(L), (r, 0, 0), events)
        new = tuple(new)
        if self.G:
            ghost = self._settle(ghost, new, range(self.R))
        instr = self.program.host.instrs[procs[0][0]]
        return Step(BARRIER, instr, State(new, sig, ghost, launches), (), (), tuple(events))

    def _step(self, state, i, p) -> Step | None:
        """The step of process i (at entry p) or None when it is blocked."""
        pc, idx, L = p
        is_host = i < self.R
        op = self._ops[is_host][pc]
        k = op[0]
        instr = self.code_of(i).instrs[pc]
        if k == _JOIN:
            base = self.R + i * self.B
            if any(state[0][base: base + self.B]):
                return None
            entry, events = self._continue(i, pc, L, self.ctx_of(i, state[3]))
            return self._finish(state, i, instr, entry, state[1], state[2], state[3], (), (), events)
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

    def _finish(self, state, i, instr, entry, sig, ghost, launches, reads, writes, events) -> Step:
        procs = state[0]
        procs = procs[:i] + (entry,) + procs[i + 1:]
        if self.G and ghost:
            ghost = self._settle(ghost, procs, (i,))
        return Step(i, instr, State(procs, sig, ghost, launches), reads, writes, events)

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

    def _notify(self, state, i, instr, op, pc, L, ctx) -> Step:
        procs, sig, ghost, launches = state
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
        events: tuple = ()
        entry, local_events = self._continue(i, pc, L, ctx)
        sig = sig[:pos] + (new,) + sig[pos + 1:]
        sig = self._signals.setdefault(sig, sig)  # share equal signal vectors between states
        g = self._gidx.get(pos) if self.G else None
        if g is not None:
            pending = ghost[g]
            procs_after = procs[:i] + (entry,) + procs[i + 1:]
            tokens = self._tokens(procs_after, launches, self._writer_launch(i, launches), rank, g)
            if is_set and old != new:
                if pending:
                    events = (Overwrite(pos, old, new, self._readers(pending, rank, launches), instr.span),)
                value_g = tokens
            else:
                value_g = pending | tokens
            ghost = ghost[:g] + (value_g,) + ghost[g + 1:]
        return self._finish(state, i, instr, entry, sig, ghost, launches, (), ((pos, old, new),),
                            events + local_events)

    def _reset(self, state, i, instr, op, pc, L, ctx) -> Step:
        procs, sig, ghost, launches = state
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
            g = self._gidx.get(pos) if self.G else None
            if g is not None and old != init:
                if ghost[g]:
                    events.append(Overwrite(pos, old, init, self._readers(ghost[g], rank, launches), instr.span))
                ghost = ghost[:g] + (0,) + ghost[g + 1:]
        sig = tuple(values)
        sig = self._signals.setdefault(sig, sig)
        entry, local_events = self._continue(i, pc, L, ctx)
        return self._finish(state, i, instr, entry, sig, ghost, launches, (), tuple(writes),
                            tuple(events) + local_events)

    def _read(self, state, i, instr, op, pc, idx, L, ctx) -> Step | None:
        """One element read of a TWAIT or TTEST (all elements with atomic waits)."""
        procs, sig, ghost, launches = state
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
                return self._finish(state, i, instr, (pc, idx + 1, L), sig, self._seen(ghost, i, reads),
                                    launches, reads, (), ())
            return self._completed(state, i, instr, op, pc, L, ctx, reads, True)
        if is_wait:
            if idx == 0:
                return None  # the failed read changes nothing: the wait is blocked
            return self._finish(state, i, instr, (pc, 0, L), sig, self._seen(ghost, i, reads), launches, reads, (),
                                ())
        return self._completed(state, i, instr, op, pc, L, ctx, reads, False)

    def _seen(self, ghost: tuple, i: int, reads: tuple) -> tuple:
        """`ghost` after process i read the elements of `reads`."""
        if not self.G:
            return ghost
        bit = self._bit(i)
        for r in reads:
            g = self._gidx.get(r[0])
            if g is not None and ghost[g] & bit:
                ghost = ghost[:g] + (ghost[g] & ~bit,) + ghost[g + 1:]
        return ghost

    def _completed(self, state, i, instr, op, pc, L, ctx, reads, ok) -> Step:
        if op[0] == _TEST:
            d = op[4]
            L = L[:d] + (int(ok),) + L[d + 1:]
        entry, events = self._continue(i, pc, L, ctx)
        return self._finish(state, i, instr, entry, state[1], self._seen(state[2], i, reads), state[3], reads, (),
                            events)

    def _launch(self, state, r, instr, pc, L) -> Step:
        procs, sig, ghost, launches = state
        kernel = self.program.kernel
        launch_id = launches[r] if launches else 0
        new = list(procs)
        events: list = []
        for b in range(self.B):
            k = self.R + r * self.B + b
            new[k] = self._run(k, 0, [0] * kernel.nslots, (r, b, launch_id), events)
        new[r] = (pc + 1, 0, L)
        new = tuple(new)
        if launches:
            launches = launches[:r] + (launches[r] + 1,) + launches[r + 1:]
        lo, hi = self._grange[r] if self.G else (0, 0)
        if hi > lo:  # the notifications meant for this launch now wait in its running blocks
            ghost = ghost[:lo] + tuple((e & 1) | ((e >> (1 + self.B)) << 1) for e in ghost[lo:hi]) + ghost[hi:]
            ghost = self._settle(ghost, new, range(self.R + r * self.B, self.R + (r + 1) * self.B))
        return Step(r, instr, State(new, sig, ghost, launches), (), (), tuple(events))

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
        procs, sig, _, launches = state
        out = []
        for i, p in enumerate(procs):
            if p is None:
                continue
            pc, idx, L = p
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
            else:
                out.append(Stuck(i, instr, "other", None, None, (), (), None))
        return out

    def where(self, state) -> list[tuple[int, Span]]:
        """(process, span of its next instruction) of every unfinished process."""
        return [(i, self.code_of(i).instrs[p[0]].span) for i, p in enumerate(state[0]) if p is not None]

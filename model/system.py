"""The transition system of a program: initial state, enabled steps, their effects.

Entry point: `System(program)`. A state is a tuple
    (procs, signals, unread, launches)
- procs: one entry per process, hosts first (index r), then kernel slots (R + r*B + b);
  None when finished (or, for a kernel slot, not running), else (pc, idx, locals) with pc
  at a visible instruction, idx the element a tensor wait/test reads next (-1: the process
  spins forever in a local loop), locals a tuple with out-of-scope slots zeroed;
- signals: every element of every rank's copy, flat (rank-major);
- unread: bitmask of elements whose last write was a TNOTIFY that no satisfied TWAIT/TTEST
  read has observed yet (ghost data for lost_notification);
- launches: per-rank launch counts (kept only if the kernel reads `launch_id`).

Each process is deterministic, so a step is named by its process index (the joint
host_barrier step by BARRIER_STEP). A step's events are plain tuples:
("assertion" | "error" | "overflow", span, message, process) and
("overwrite", span, position, old, new) for a Set or reset that replaced an unread value.
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass

from model import ir
from model.errors import ModelError, Span

BARRIER_STEP = -1
LOCAL_STEP_LIMIT = 1_000_000
_CYCLE_CHECK_AFTER = 10_000

CMP_FN = {"EQ": operator.eq, "NE": operator.ne, "GT": operator.gt, "GE": operator.ge,
          "LT": operator.lt, "LE": operator.le}
CMP_TEXT = {"EQ": "==", "NE": "!=", "GT": ">", "GE": ">=", "LT": "<", "LE": "<="}
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class LocalStepLimit(Exception):
    """A process ran LOCAL_STEP_LIMIT local statements without a visible step or a repeat."""

    def __init__(self, span: Span):
        super().__init__(f"a process ran {LOCAL_STEP_LIMIT} local statements without a signal operation "
                         f"(loop at {span})")
        self.span = span


@dataclass(frozen=True, slots=True)
class StepInfo:
    process: str
    span: Span
    statement: str
    effects: tuple[str, ...]


class System:
    def __init__(self, program: ir.Program, atomic_waits: bool = False):
        self.program = program
        self.atomic_waits = atomic_waits
        self.R = program.nranks
        self.B = program.nblocks
        self.E = program.elems_per_rank
        self.nprocs = self.R + self.R * self.B
        self._sig_offsets = [s.offset for s in program.signals]
        self.init_values = tuple(s.init for s in program.signals for _ in range(s.size)) * self.R
        self._resume: dict = {}
        self._signals: dict = {}
        self._evaluated: dict = {}

    # ------------------------------------------------------------ naming

    def process_name(self, i: int) -> str:
        if i == BARRIER_STEP:
            return "all hosts"
        if i < self.R:
            return f"host {i}"
        r, b = divmod(i - self.R, self.B)
        return f"rank {r} block {b}"

    def position_name(self, pos: int) -> str:
        rank, off = divmod(pos, self.E)
        sig = self.program.signals[bisect.bisect_right(self._sig_offsets, off) - 1]
        return f"{sig.element_name(off - sig.offset)}@{rank}"

    def code_of(self, i: int) -> ir.Code:
        return self.program.host if i < self.R else self.program.kernel

    def ctx_of(self, i: int, launches: tuple) -> tuple:
        if i < self.R:
            return (i, 0, 0)
        r, b = divmod(i - self.R, self.B)
        return (r, b, launches[r] - 1 if launches else 0)

    def rank_of(self, i: int) -> int:
        return i if i < self.R else (i - self.R) // self.B

    # ------------------------------------------------------------ local execution

    def _run(self, i: int, pc: int, L: list, ctx: tuple, events: list):
        """Run local statements from pc to the next visible instruction. Returns the process
        entry (None once it returned or stopped)."""
        instrs = self.code_of(i).instrs
        count = 0
        seen = None
        try:
            while True:
                ins = instrs[pc]
                op = ins.op
                if op >= ir.VISIBLE_FROM:
                    keep = ins.keep
                    return (pc, 0, tuple([v if k else 0 for v, k in zip(L, keep)]))
                if op == ir.ASSIGN:
                    L[ins.a] = ins.b(L, ctx)
                    pc += 1
                elif op == ir.BRANCH:
                    pc = pc + 1 if ins.a(L, ctx) else ins.b
                elif op == ir.JUMP:
                    pc = ins.a
                elif op == ir.ASSERT:
                    if not ins.a(L, ctx):
                        events.append(("assertion", ins.span, f"{ins.text} failed", i))
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
                        raise LocalStepLimit(ins.span)
        except ModelError as e:
            events.append(("error", e.span, e.message, i))
            return None

    # ------------------------------------------------------------ states

    def initial(self):
        """The initial state and the events of the hosts' first local statements."""
        events: list = []
        procs = [None] * self.nprocs
        for r in range(self.R):
            procs[r] = self._run(r, 0, [0] * self.program.host.nslots, (r, 0, 0), events)
        launches = (0,) * self.R if self.program.uses_launch_id else ()
        return (tuple(procs), self.init_values, 0, launches), tuple(events)

    def is_final(self, state) -> bool:
        return not any(state[0])

    def dirty(self, state) -> list[int]:
        """Positions whose value differs from the initial value."""
        init = self.init_values
        return [p for p, v in enumerate(state[1]) if v != init[p]]

    def successors(self, state):
        """Every enabled step: a list of (step, next state, events)."""
        procs = state[0]
        out = []
        for i, p in enumerate(procs):
            if p is not None and p[1] >= 0:
                r = self._step(state, i, p)
                if r is not None:
                    out.append((i, r[0], r[1]))
        if self.R and all(p is not None and p[1] >= 0 and self.program.host.instrs[p[0]].op == ir.BARRIER
                          for p in procs[: self.R]):
            out.append((BARRIER_STEP, *self._barrier(state)))
        return out

    def _barrier(self, state):
        procs, sig, unread, launches = state
        events: list = []
        new = list(procs)
        for r in range(self.R):
            pc, _, L = procs[r]
            new[r] = self._run(r, pc + 1, list(L), (r, 0, 0), events)
        return (tuple(new), sig, unread, launches), tuple(events)

    def _step(self, state, i, p):
        """The step of process i (at entry p) or None when it is blocked."""
        procs, sig, unread, launches = state
        pc, idx, L = p
        code = self.code_of(i)
        ins = code.instrs[pc]
        op = ins.op
        ctx = self.ctx_of(i, launches)
        events: list = []
        if op == ir.JOIN:
            base = self.R + i * self.B
            if any(procs[base: base + self.B]):
                return None
            return self._continue(state, i, pc, L, ctx, events, sig, unread)
        if op == ir.BARRIER:
            return None  # joint step, see successors
        if op == ir.LAUNCH:
            return self._launch(state, i, pc, L, events)
        try:
            if op == ir.NOTIFY:
                return self._notify(state, i, ins, pc, L, ctx, events)
            if op == ir.RESET:
                return self._reset(state, i, ins, pc, L, ctx, events)
            return self._read(state, i, ins, pc, idx, L, ctx, events)
        except ModelError as e:
            events.append(("error", e.span, e.message, i))
            return self._replace(state, i, None, sig, unread), tuple(events)

    def _replace(self, state, i, entry, sig, unread, launches=None):
        procs = state[0]
        return (procs[:i] + (entry,) + procs[i + 1:], sig, unread, state[3] if launches is None else launches)

    def _continue(self, state, i, pc, L, ctx, events, sig, unread):
        """Finish a visible step: run the local statements after it (memoized per local state)."""
        key = (i < self.R, pc, L, ctx)
        hit = self._resume.get(key)
        if hit is None:
            local_events: list = []
            entry = self._run(i, pc + 1, list(L), ctx, local_events)
            hit = self._resume[key] = (entry, tuple(local_events))
        return self._replace(state, i, hit[0], sig, unread), tuple(events) + hit[1]

    def _operands(self, i, pc, ins, L, ctx):
        """(rank or None, flat offsets, value) of a NOTIFY/WAIT/TEST/RESET, memoized per local state."""
        key = (i < self.R, pc, L, ctx)
        hit = self._evaluated.get(key)
        if hit is None:
            try:
                rank, offs = ins.a.elements(L, ctx)
                hit = (rank, offs, ins.b(L, ctx) if ins.b is not None else None)
            except ModelError as e:
                hit = e
            self._evaluated[key] = hit
        if isinstance(hit, ModelError):
            raise hit
        return hit

    def _own(self, i: int, pc: int, ins: ir.Instr, L, ctx, what: str):
        """Positions of the own rank's copy that a wait, test or reset reads, and the operand."""
        rank, offs, value = self._operands(i, pc, ins, L, ctx)
        view, span = ins.a, ins.span
        own = self.rank_of(i)
        if rank is not None and rank != own:
            raise ModelError(f"{what} reads only the own rank's copy, but this one names rank {rank} "
                             f"(the process runs on rank {own})", span)
        base = own * self.E + view.signal.offset
        return [base + o for o in offs], value

    def _notify(self, state, i, ins, pc, L, ctx, events):
        _, sig, unread, _ = state
        rank, offs, value = self._operands(i, pc, ins, L, ctx)
        if rank is None:
            rank = self.rank_of(i)
        pos = rank * self.E + ins.a.signal.offset + offs[0]
        old = sig[pos]
        if not INT32_MIN <= value <= INT32_MAX:
            events.append(("error", ins.span, f"{ins.c} value {value} does not fit in int32", i))
            return self._replace(state, i, None, sig, unread), tuple(events)
        bit = 1 << pos
        if ins.c == ir.SET:
            new = value
            if unread & bit and old != new:
                events.append(("overwrite", ins.span, pos, old, new))
        else:
            new = old + value
            if not INT32_MIN <= new <= INT32_MAX:
                events.append(("overflow", ins.span, f"AtomicAdd of {value} to {self.position_name(pos)} = {old} "
                                                     f"gives {new}, outside int32", i))
                return self._replace(state, i, None, sig, unread), tuple(events)
        sig = sig[:pos] + (new,) + sig[pos + 1:]
        sig = self._signals.setdefault(sig, sig)  # share equal signal vectors between states
        return self._continue(state, i, pc, L, ctx, events, sig, unread | bit)

    def _reset(self, state, i, ins, pc, L, ctx, events):
        _, sig, unread, _ = state
        positions, _ = self._own(i, pc, ins, L, ctx, "reset")
        init = ins.a.signal.init
        values = list(sig)
        for pos in positions:
            bit = 1 << pos
            if unread & bit and values[pos] != init:
                events.append(("overwrite", ins.span, pos, values[pos], init))
            values[pos] = init
            unread &= ~bit
        sig = tuple(values)
        sig = self._signals.setdefault(sig, sig)
        return self._continue(state, i, pc, L, ctx, events, sig, unread)

    def _read(self, state, i, ins, pc, idx, L, ctx, events):
        """One element read of a TWAIT (op WAIT) or TTEST (op TEST)."""
        _, sig, unread, _ = state
        what = "TWAIT" if ins.op == ir.WAIT else "TTEST"
        positions, value = self._own(i, pc, ins, L, ctx, what)
        if not INT32_MIN <= value <= INT32_MAX:
            raise ModelError(f"{what} value {value} does not fit in int32", ins.span)
        holds = CMP_FN[ins.c]
        if self.atomic_waits or len(positions) == 1:
            ok = all(holds(sig[pos], value) for pos in positions)
            if ok:
                for pos in positions:
                    unread &= ~(1 << pos)
            elif ins.op == ir.WAIT:
                return None
            return self._finish_read(state, i, ins, pc, L, ctx, events, sig, unread, ok)
        pos = positions[idx]
        if holds(sig[pos], value):
            unread &= ~(1 << pos)
            if idx + 1 < len(positions):
                return self._replace(state, i, (pc, idx + 1, L), sig, unread), ()
            return self._finish_read(state, i, ins, pc, L, ctx, events, sig, unread, True)
        if ins.op == ir.WAIT:
            if idx == 0:
                return None  # the failed read changes nothing: the wait is blocked
            return self._replace(state, i, (pc, 0, L), sig, unread), ()
        return self._finish_read(state, i, ins, pc, L, ctx, events, sig, unread, False)

    def _finish_read(self, state, i, ins, pc, L, ctx, events, sig, unread, ok):
        if ins.op == ir.TEST:
            L = L[: ins.d] + (int(ok),) + L[ins.d + 1:]
        return self._continue(state, i, pc, L, ctx, events, sig, unread)

    def _launch(self, state, r, pc, L, events):
        procs, sig, unread, launches = state
        kernel = self.program.kernel
        launch_id = launches[r] if launches else 0
        new = list(procs)
        for b in range(self.B):
            k = self.R + r * self.B + b
            new[k] = self._run(k, 0, [0] * kernel.nslots, (r, b, launch_id), events)
        new[r] = (pc + 1, 0, L)
        if launches:
            launches = launches[:r] + (launches[r] + 1,) + launches[r + 1:]
        return (tuple(new), sig, unread, launches), tuple(events)

    # ------------------------------------------------------------ explanations (traces, reports)

    def wait_operands(self, state):
        """(position, cmp, value) for every element a waiting or testing process would read."""
        procs, _, _, launches = state
        for i, p in enumerate(procs):
            if p is None or p[1] < 0:
                continue
            ins = self.code_of(i).instrs[p[0]]
            if ins.op not in (ir.WAIT, ir.TEST):
                continue
            ctx = self.ctx_of(i, launches)
            try:
                positions, value = self._own(i, p[0], ins, p[2], ctx, "")
            except ModelError:
                continue
            for pos in positions:
                yield pos, ins.c, value, ins.span

    def written(self, state, step: int) -> int | None:
        """The position a TNOTIFY step writes, or None for any other step."""
        if step == BARRIER_STEP or state[0][step] is None:
            return None
        pc, _, L = state[0][step]
        ins = self.code_of(step).instrs[pc]
        if ins.op != ir.NOTIFY:
            return None
        try:
            rank, offs, _ = self._operands(step, pc, ins, L, self.ctx_of(step, state[3]))
        except ModelError:
            return None
        rank = self.rank_of(step) if rank is None else rank
        return rank * self.E + ins.a.signal.offset + offs[0]

    def describe(self, state, step: int, after) -> StepInfo:
        """What `step` does from `state` (reaching `after`): for counterexample traces."""
        procs, sig, _, launches = state
        effects = []
        if step == BARRIER_STEP:
            ins = self.program.host.instrs[procs[0][0]]
            return StepInfo("all hosts", ins.span, "host_barrier", ("every host passes the barrier",))
        pc, idx, L = procs[step]
        ins = self.code_of(step).instrs[pc]
        ctx = self.ctx_of(step, launches)
        if ins.op in (ir.WAIT, ir.TEST):
            try:
                positions, value = self._own(step, pc, ins, L, ctx, "")
                if not INT32_MIN <= value <= INT32_MAX:
                    raise ModelError("", ins.span)  # the step is the int32 error, not a read
                sel = positions if (self.atomic_waits or len(positions) == 1) else [positions[idx]]
                for pos in sel:
                    v = sig[pos]
                    verdict = "holds" if CMP_FN[ins.c](v, value) else "fails"
                    effects.append(f"reads {self.position_name(pos)} = {v} ({ins.c} {value} {verdict})")
            except ModelError:
                pass
        if ins.op == ir.LAUNCH:
            effects.append(f"starts {self.B} kernel block(s) of rank {step}")
        if ins.op == ir.JOIN:
            effects.append("all kernel blocks returned")
        events = next((evs for label, nxt, evs in self.successors(state) if label == step and nxt == after), ())
        written = self.written(state, step)
        if any(ev[0] in ("overflow", "error") and ev[1] == ins.span for ev in events):
            written = None  # the write itself failed: nothing was stored
        for pos, (a, b) in enumerate(zip(sig, after[1])):
            if a != b or pos == written:
                same = " (same value)" if a == b else ""
                effects.append(f"{self.position_name(pos)}: {a} -> {b}{same}")
        for ev in events:
            if ev[0] == "overwrite":
                effects.append(f"overwrites the unread value {ev[3]} of {self.position_name(ev[2])}")
            else:
                effects.append(f"{ev[0]} in {self.process_name(ev[3])}: {ev[2]} (at {ev[1]})")
        return StepInfo(self.process_name(step), ins.span, ins.text, tuple(effects))

    def situation(self, state) -> list[str]:
        """Each unfinished process, where it is and what it waits for."""
        procs, sig, _, launches = state
        lines = []
        for i, p in enumerate(procs):
            if p is None:
                continue
            pc, idx, L = p
            ins = self.code_of(i).instrs[pc]
            where = f"{self.process_name(i)} at {ins.span}"
            if idx < 0:
                lines.append(f"{where}: spins forever in a local loop with no signal operation")
                continue
            if ins.op in (ir.WAIT, ir.TEST):
                ctx = self.ctx_of(i, launches)
                try:
                    positions, value = self._own(i, pc, ins, L, ctx, "")
                except ModelError as e:
                    lines.append(f"{where}: {ins.text}: {e.message}")
                    continue
                shown = ", ".join(f"{self.position_name(q)} = {sig[q]}" for q in positions[:16])
                more = f", ... ({len(positions)} elements)" if len(positions) > 16 else ""
                verb = "waits" if ins.op == ir.WAIT else "polls"
                lines.append(f"{where}: {ins.text} {verb} for {CMP_TEXT[ins.c]} {value}; now {shown}{more}")
            elif ins.op == ir.JOIN:
                lines.append(f"{where}: {ins.text} waits for rank {i}'s kernel blocks to return")
            elif ins.op == ir.BARRIER:
                missing = [f"host {r}" for r in range(self.R)
                           if procs[r] is None or self.program.host.instrs[procs[r][0]].op != ir.BARRIER]
                lines.append(f"{where}: host_barrier waits for {', '.join(missing)}")
            else:
                lines.append(f"{where}: {ins.text}")
        return lines

"""Static facts about a program's code, computed from the IR. Entry point: `Analysis(program)`.

- Liveness: the locals each visible instruction still needs (the others are not kept in
  states). Exact: a local is dead only if no later computation that matters or can fail
  reads it before it is written again.
- Instruction facts: the locals an instruction reads and writes, and the built-ins
  (`rank`, `block`, `launch_id`) whose values flow into it through data (not control).
- Footprints: per process context, the signal elements each instruction may read or write,
  from an abstract interpretation of the locals (finite value sets, TOP beyond 64 values),
  a conservative over-approximation; and for each position in the code, the elements that
  the TWAIT/TTEST instructions still reachable in its control-flow graph may read.
- Future reads: from a concrete local state, every TWAIT/TTEST the process may still
  execute (TTEST outcomes taken both ways, every wait assumed to complete), with the
  elements it reads and the values its comparison operand can take.
- Rising elements: those whose value never decreases (every write a Set by the blocks of
  one rank, one value per launch, never smaller than the launch before), and among them
  those no overwrite can lose (read only by GE / GT); the launches a host can make, counted
  on its concrete code.

Element sets are integer bitmasks over global positions (rank * elems_per_rank + offset).
"""

from __future__ import annotations

import graphlib

import itertools
from dataclasses import dataclass
from model import cint
from model import ir
from model.errors import ModelError
from model.vocabulary import RISING_CMPS

CAP = 64  # largest value set kept before it becomes TOP


class _Top:
    __slots__ = ()

    def __repr__(self) -> str:
        return "TOP"


TOP = _Top()
BOOL = frozenset((0, 1))


def join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a is TOP or b is TOP:
        return TOP
    u = a | b
    return u if len(u) <= CAP else TOP


def _map2(op, a, b, span):
    out = set()
    for x in a:
        for y in b:
            try:
                out.add(op(x, y, span))
            except ModelError:
                pass  # that combination stops the process: it yields no value
            if len(out) > CAP:
                return TOP
    return frozenset(out)


def evaluate(e: ir.Expr, env: tuple, ctx: dict):
    """The set of values `e` may take (TOP: unknown)."""
    if isinstance(e, ir.Const):
        return frozenset((e.value,))
    if isinstance(e, ir.Local):
        return env[e.slot]
    if isinstance(e, ir.Builtin):
        return ctx[e.name]
    if isinstance(e, ir.ArrayRead):
        i = evaluate(e.index, env, ctx)
        picks = range(len(e.elems)) if i is TOP else sorted(k for k in i if 0 <= k < len(e.elems))
        out = frozenset()
        for k in picks:
            out = join(out, env[e.elems[k].slot])
            if out is TOP:
                break
        return out
    if isinstance(e, ir.Unary):
        a = evaluate(e.operand, env, ctx)
        if a is TOP:
            return BOOL if e.op in ("!", "bool") else TOP
        return frozenset(cint.UNARY[e.op](x, e.span) for x in a)
    if isinstance(e, ir.Binary):
        a, b = evaluate(e.left, env, ctx), evaluate(e.right, env, ctx)
        if a is TOP or b is TOP:
            if e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
                return BOOL
            return TOP
        if len(a) * len(b) > CAP * CAP:
            return TOP
        return _map2(cint.BINARY[e.op], a, b, e.span)
    if isinstance(e, ir.Select):
        t = evaluate(e.test, env, ctx)
        if t is not TOP and 0 not in t:
            return evaluate(e.then, env, ctx)
        if t is not TOP and t <= {0}:
            return evaluate(e.orelse, env, ctx)
        return join(evaluate(e.then, env, ctx), evaluate(e.orelse, env, ctx))
    raise AssertionError(f"not a flat expression: {e!r}")


def choices(lo, hi):
    """The values an `any(lo, hi)` may give, for the value sets of its bounds (TOP: unknown,
    or more than CAP values)."""
    if lo is TOP or hi is TOP:
        return TOP
    if not lo or not hi:
        return frozenset()
    a, b = min(lo), max(hi)
    if b - a + 1 > CAP:
        return TOP
    return frozenset(v for v in range(a, b + 1) if any(x <= v <= y for x in lo for y in hi if y - x < ir.MAX_CHOICES))


_HOLDS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
          "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def refine(cond: ir.Expr, env: tuple, ctx: dict, truth: bool):
    """`env` restricted to the paths on which `cond` is `truth`; None if there is none."""
    if isinstance(cond, ir.Unary) and cond.op == "!":
        return refine(cond.operand, env, ctx, not truth)
    if isinstance(cond, ir.Unary) and cond.op == "bool":
        return refine(cond.operand, env, ctx, truth)
    if isinstance(cond, ir.Binary) and cond.op in ("&&", "||"):
        both = (cond.op == "&&") == truth  # both sides take `truth`
        if both:
            first = refine(cond.left, env, ctx, truth)
            return None if first is None else refine(cond.right, first, ctx, truth)
        a = refine(cond.left, env, ctx, truth)
        rest = refine(cond.left, env, ctx, not truth)
        b = None if rest is None else refine(cond.right, rest, ctx, truth)
        return join_env(a, b)
    if isinstance(cond, ir.Local):
        v = env[cond.slot]
        if v is not TOP:
            v = frozenset(x for x in v if bool(x) == truth)
            if not v:
                return None
            env = env[:cond.slot] + (v,) + env[cond.slot + 1:]
        return env
    if isinstance(cond, ir.Binary) and cond.op in _HOLDS:
        op = cond.op if truth else _NEGATE[cond.op]
        for local, other, o in ((cond.left, cond.right, op), (cond.right, cond.left, _FLIP[op])):
            if isinstance(local, ir.Local):
                v, w = env[local.slot], evaluate(other, env, ctx)
                if v is not TOP and w is not TOP:
                    v = frozenset(x for x in v if any(_HOLDS[o](x, y) for y in w))
                    if not v:
                        return None
                    env = env[:local.slot] + (v,) + env[local.slot + 1:]
    value = evaluate(cond, env, ctx)
    if value is not TOP and (0 not in value if not truth else value <= {0}):
        return None
    return env


def join_env(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return tuple(join(x, y) for x, y in zip(a, b))


# ---------------------------------------------------------------- syntactic facts


def expr_locals(e) -> frozenset[int]:
    return frozenset(x.slot for x in ir.walk(e) if isinstance(x, ir.Local))


def expr_builtins(e) -> frozenset[str]:
    return frozenset(x.name for x in ir.walk(e) if isinstance(x, ir.Builtin))


_FAULTING = {"+", "-", "*", "/", "%", "<<", ">>"}


def can_fault(e) -> bool:
    """Whether evaluating `e` may raise (division by zero, shift range, beyond 2^64)."""
    return any((isinstance(x, ir.Binary) and x.op in _FAULTING) or isinstance(x, ir.ArrayRead) for x in ir.walk(e))


def may_fault(e, env: tuple, ctx: dict) -> bool:
    """Whether evaluating `e` may raise under `env` (`can_fault`, asked of the values)."""
    for x in ir.walk(e):
        if isinstance(x, ir.ArrayRead):
            i = evaluate(x.index, env, ctx)
            if i is TOP or not all(0 <= k < len(x.elems) for k in i):
                return True
        elif isinstance(x, (ir.Binary, ir.Unary)) and (x.op in _FAULTING or isinstance(x, ir.Unary)):
            args = [evaluate(y, env, ctx) for y in ((x.left, x.right) if isinstance(x, ir.Binary) else (x.operand,))]
            if any(a is TOP for a in args) or len(args[0]) * len(args[-1]) > CAP * CAP:
                return True
            op = cint.BINARY[x.op] if isinstance(x, ir.Binary) else cint.UNARY[x.op]
            try:
                for combo in itertools.product(*args):
                    op(*combo, x.span)
            except ModelError:
                return True
    return False


def operands(ins) -> tuple:
    """The expressions and views an instruction evaluates."""
    if isinstance(ins, ir.Assign):
        return (ins.value,)
    if isinstance(ins, (ir.Branch, ir.Assert)):
        return (ins.cond,)
    if isinstance(ins, (ir.Notify, ir.Wait, ir.Test, ir.Store, ir.FetchAdd)):
        return (ins.view, ins.value)
    if isinstance(ins, (ir.Reset, ir.Load, ir.Access)):
        return (ins.view,)
    if isinstance(ins, ir.Cas):
        return (ins.view, ins.expected, ins.new)
    if isinstance(ins, ir.Observe):
        return (ins.cond,)
    if isinstance(ins, ir.Copy):
        return (ins.dst, ins.src)
    if isinstance(ins, (ir.WaitEvent, ir.TestEvent)):
        return (ir.Local(ins.slot, ins.name, ins.span),)
    if isinstance(ins, ir.Choose):
        return (ins.lo, ins.hi)
    return ()


def dest(ins) -> int | None:
    """The local an instruction writes, if any."""
    if isinstance(ins, (ir.Assign, ir.Choose)):
        return ins.slot
    if isinstance(ins, (ir.Test, ir.Load, ir.FetchAdd, ir.Cas, ir.TestEvent)):
        return ins.dest
    if isinstance(ins, (ir.WaitEvent, ir.Copy)) and getattr(ins, "event", None) is not None:
        return ins.slot if isinstance(ins, ir.WaitEvent) else ins.event[0]
    return None


def successors(code: ir.Code, pc: int) -> tuple[int, ...]:
    ins = code.instrs[pc]
    if isinstance(ins, ir.Return):
        return ()
    if isinstance(ins, ir.Jump):
        return (ins.target,)
    if isinstance(ins, ir.Branch):
        return (pc + 1, ins.target) if ins.target != pc + 1 else (pc + 1,)
    return (pc + 1,)


def liveness(code: ir.Code) -> tuple[frozenset[int], ...]:
    """The locals live before each instruction."""
    n = len(code.instrs)
    live = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for pc in range(n - 1, -1, -1):
            ins = code.instrs[pc]
            out = frozenset().union(*(live[s] for s in successors(code, pc)))
            if isinstance(ins, ir.Assign):
                uses = expr_locals(ins.value) if ins.slot in out or can_fault(ins.value) else frozenset()
                new = (out - {ins.slot}) | uses
            elif isinstance(ins, ir.WaitEvent):  # reads the event's state, then marks it waited
                new = out | {ins.slot}
            else:
                d = dest(ins)
                new = (out - {d} if d is not None else out).union(*(expr_locals(x) for x in operands(ins)))
            if new != live[pc]:
                live[pc] = new
                changed = True
    return tuple(live)


@dataclass(frozen=True)
class InstrFacts:
    reads: frozenset[int]  # locals read
    writes: frozenset[int]  # locals written
    depends: frozenset[str]  # built-ins whose values flow (by data) into what it computes


def instr_facts(code: ir.Code) -> tuple[InstrFacts, ...]:
    n, k = len(code.instrs), code.nslots
    taint: list = [None] * n  # per pc: tuple of built-in sets per slot, before the instruction
    taint[0] = (frozenset(),) * k
    work = [0]
    while work:
        pc = work.pop()
        env = taint[pc]
        ins = code.instrs[pc]
        slot = dest(ins)
        if slot is not None:
            flows = frozenset().union(*(_depends(x, env) for x in operands(ins)))
            env = env[:slot] + (flows,) + env[slot + 1:]
        for s in successors(code, pc):
            old = taint[s]
            new = env if old is None else tuple(a | b for a, b in zip(old, env))
            if new != old:
                taint[s] = new
                work.append(s)
    facts = []
    for pc, ins in enumerate(code.instrs):
        env = taint[pc] or (frozenset(),) * k
        reads = frozenset().union(*(expr_locals(x) for x in operands(ins)))
        writes = frozenset() if dest(ins) is None else frozenset({dest(ins)})
        depends = frozenset().union(*(_depends(x, env) for x in operands(ins)))
        facts.append(InstrFacts(reads, writes, depends))
    return tuple(facts)


def _depends(x, env) -> frozenset[str]:
    return expr_builtins(x).union(*(env[s] for s in expr_locals(x)))


# ---------------------------------------------------------------- abstract interpretation


def interpret(code: ir.Code, ctx: dict, pc: int, env: tuple, faults=None) -> list:
    """The abstract environment before each instruction reachable from (pc, env).
    `faults(ins, env)` says that an instruction surely stops the process (an `error`)."""
    n = len(code.instrs)
    state: list = [None] * n
    state[pc] = env
    visits = [0] * n
    work = [pc]
    while work:
        pc = work.pop()
        env = state[pc]
        ins = code.instrs[pc]
        outs = []
        if faults is not None and faults(ins, env):
            pass  # the process stops here
        elif isinstance(ins, ir.Assign):
            v = evaluate(ins.value, env, ctx)
            if v is TOP or v:  # an empty set: every value faults
                outs.append((pc + 1, env[:ins.slot] + (v,) + env[ins.slot + 1:]))
        elif isinstance(ins, (ir.Test, ir.Cas, ir.TestEvent)):
            outs.append((pc + 1, env[:ins.dest] + (BOOL,) + env[ins.dest + 1:]))
        elif isinstance(ins, ir.Choose):
            v = choices(evaluate(ins.lo, env, ctx), evaluate(ins.hi, env, ctx))
            if v is TOP or v:  # an empty set: every choice faults
                outs.append((pc + 1, env[:ins.slot] + (v,) + env[ins.slot + 1:]))
        elif dest(ins) is not None:  # a loaded value, an old value, an event's state: unknown
            d = dest(ins)
            outs.append((pc + 1, env[:d] + (TOP,) + env[d + 1:]))
        elif isinstance(ins, ir.Branch):
            outs.append((pc + 1, refine(ins.cond, env, ctx, True)))
            outs.append((ins.target, refine(ins.cond, env, ctx, False)))
        elif isinstance(ins, ir.Assert):
            outs.append((pc + 1, refine(ins.cond, env, ctx, True)))
        elif isinstance(ins, ir.Observe):
            outs.append((pc + 1, env))
        elif isinstance(ins, ir.Jump):
            outs.append((ins.target, env))
        elif not isinstance(ins, ir.Return):
            outs.append((pc + 1, env))
        for s, e in outs:
            if e is None:
                continue
            old = state[s]
            new = join_env(old, e)
            if new != old:
                visits[s] += 1
                if visits[s] > 4 * CAP:  # cannot happen with finite sets; a guard all the same
                    new = (TOP,) * len(new)
                state[s] = new
                work.append(s)
    return state


class _Runs(list):
    """A dimension's chosen indices as merged runs [[a, b), ...] (a contiguous slice), so that
    a slice of a large buffer is not enumerated index by index."""

    def indices(self) -> list[int]:
        return [i for a, b in self for i in range(a, b)]


def view_positions(view: ir.View, env: tuple, ctx: dict, own_rank: int, nranks: int, elems: int,
                   grain: int = 1, first_block: int | None = None) -> int:
    """A bitmask of the global positions `view` may name under `env`. With a grain (a buffer's
    blocks, model/grain.py), of the blocks that hold them: `elems` blocks per rank, the
    buffer's first at `first_block`."""
    sig = view.signal
    _, dims, strides, first = view.shape()
    choices = []
    for k, d in enumerate(dims):
        if k >= len(view.selectors):
            choices.append(range(d))
            continue
        sel = view.selectors[k]
        if isinstance(sel, ir.Index):
            v = evaluate(sel.expr, env, ctx)
            choices.append(range(d) if v is TOP else sorted(i for i in v if 0 <= i < d))
        else:
            parts = [evaluate(x, env, ctx) if x is not None else frozenset((dflt,))
                     for x, dflt in ((sel.start, 0), (sel.stop, d), (sel.step, 1))]
            if any(p is TOP for p in parts) or len(parts[0]) * len(parts[1]) * len(parts[2]) > CAP:
                choices.append(range(d))
            elif parts[2] == frozenset((1,)):  # contiguous: the runs [a, b), merged (not every index)
                runs: list = []
                for a, b in sorted((a, b) for a in parts[0] for b in parts[1] if 0 <= a < b <= d):
                    if runs and a <= runs[-1][1]:
                        runs[-1][1] = max(runs[-1][1], b)
                    else:
                        runs.append([a, b])
                choices.append(_Runs(runs))
            else:
                idx = set()
                for a in parts[0]:
                    for b in parts[1]:
                        for s in parts[2]:
                            if s >= 1 and 0 <= a <= d and 0 <= b <= d:
                                idx.update(range(a, b, s))
                choices.append(sorted(idx))
    if view.at is None:
        ranks = (own_rank,)
    else:
        v = evaluate(view.at, env, ctx)
        ranks = range(nranks) if v is TOP else sorted(r for r in v if 0 <= r < nranks)
    # trailing dimensions taken whole, in row-major order, are one run of `run` elements
    run, k = 1, len(dims)
    while k > 0 and choices[k - 1] == range(dims[k - 1]) and strides[k - 1] == run:
        k -= 1
        run *= dims[k]
    last = None  # the last enumerated dimension, when it continues the trailing run: its intervals
    if k > 0 and strides[k - 1] == run:
        k -= 1
        last = []
        if isinstance(choices[k], _Runs):
            last = choices[k]
        else:
            for i in sorted(choices[k]):
                if last and i == last[-1][1]:
                    last[-1][1] = i + 1
                else:
                    last.append([i, i + 1])
    flats = [first]
    for c, s in zip(choices[:k], strides[:k]):
        flats = [f + i * s for f in flats for i in (c.indices() if isinstance(c, _Runs) else c)]
    spans = [(f + lo * run, (hi - lo) * run) for f in flats for lo, hi in last] if last is not None else \
        [(f, run) for f in flats]
    one = 0
    for start, length in spans:  # one big-integer OR per run of neighbouring elements (or blocks)
        lo, hi = start // grain, -(-(start + length) // grain)
        one |= ((1 << (hi - lo)) - 1) << lo
    mask = 0
    for r in ranks:
        mask |= one << (r * elems + (sig.offset if first_block is None else first_block))
    return mask


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True)
class Footprint:
    reads: int  # bitmask of positions
    writes: int
    sets: int  # writes by Set or reset (they can replace a value)


class Analysis:
    """The facts of section 'Static facts' for one program, computed once (lazily per context)."""

    def __init__(self, program: ir.Program):
        self.program = program
        self.codes = {"kernel": program.kernel, "host": program.host}
        self.live = {k: liveness(c) for k, c in self.codes.items()}
        self.facts = {k: instr_facts(c) for k, c in self.codes.items()}
        self._footprints: dict = {}
        self._envs: dict = {}
        self._reachable_reads: dict = {}
        self._future: dict = {}
        self._same: dict = {}  # the masks and operand sets of future reads, one object per value
        self._values: dict = {}  # the value sets of `envs`, one object per value
        self._launch_bound: dict = {}
        self._steps: dict = {}  # (kind, rank, block, launch id) -> {(pc, locals): `_concrete_next`}
        self._rising: dict = {}
        self._bounded: dict = {}
        self._repeat_points: dict | None = None

    def ctx(self, kind: str, rank: int, block: int = 0, launch_id: int | None = None) -> dict:
        if kind == "host":
            return {"rank": frozenset((rank,))}
        lid = TOP if launch_id is None else frozenset((launch_id,))
        return {"rank": frozenset((rank,)), "block": frozenset((block,)), "launch_id": lid}

    def contexts(self):
        """Every (kind, rank, block) a process of the program runs in."""
        p = self.program
        for r in range(p.nranks):
            yield "host", r, 0
        for r in range(p.nranks):
            for b in range(p.nblocks):
                yield "kernel", r, b

    def envs(self, kind: str, rank: int, block: int = 0) -> tuple[list, dict]:
        """The abstract values of the locals before each instruction (None: unreachable) when
        run by that process (any launch), and the context they were computed in."""
        key = (kind, rank, block)
        hit = self._envs.get(key)
        if hit is None:
            code = self.codes[kind]
            ctx = self.ctx(kind, rank, block, None if self.program.uses_launch_id else 0)
            envs = interpret(code, ctx, 0, (frozenset((0,)),) * code.nslots, self._faults(ctx, rank))
            # equal value sets one object (a loop counter's is the same on every rank: at 32 ranks
            # these sets were most of the analysis's memory)
            same = self._values.setdefault
            envs = [None if env is None else tuple(same(v, v) for v in env) for env in envs]
            hit = self._envs[key] = (envs, ctx)
        return hit

    def footprints(self, kind: str, rank: int, block: int = 0) -> tuple[Footprint, ...]:
        """Per instruction, what it may touch when run by that process (any launch)."""
        key = (kind, rank, block)
        hit = self._footprints.get(key)
        if hit is None:
            envs, ctx = self.envs(kind, rank, block)
            hit = tuple(self.footprint(ins, env, ctx, rank) for ins, env in zip(self.codes[kind].instrs, envs))
            self._footprints[key] = hit
        return hit

    def footprints_from(self, kind: str, rank: int, block: int, launch_id: int, pc: int,
                        locals_: tuple) -> tuple[list, list, dict]:
        """(envs, footprints, ctx): per instruction of one process's code when it stands at `pc` with
        these local values in launch `launch_id`: what it may still touch from there (a loop
        counter only goes on counting). The refined rows of the dependency table."""
        code = self.codes[kind]
        lid = launch_id if self.program.uses_launch_id else 0
        ctx = self.ctx(kind, rank, block, lid)
        envs = self._unrolled_envs(self._stepper(kind, rank, block, lid), code, pc, locals_)
        if envs is None:
            envs = interpret(code, ctx, pc, tuple(frozenset((v,)) for v in locals_), self._faults(ctx, rank))
        return envs, [self.footprint(ins, env, ctx, rank) for ins, env in zip(code.instrs, envs)], ctx

    def _stepper(self, kind: str, rank: int, block: int, launch_id):
        """`_concrete_next` for one process in one launch, remembered per point: the unrolled
        futures of neighbouring points (a loop counter one further) share most of their steps."""
        key = (kind, rank, block, launch_id)
        memo = self._steps.get(key)
        if memo is None:
            if sum(map(len, self._steps.values())) > 400_000:  # bounded memory on long runs
                self._steps.clear()
            memo = self._steps[key] = {}
        code, ctx = self.codes[kind], self.ctx(kind, rank, block, launch_id)
        concrete_next = self._concrete_next

        def step(q: int, L: tuple):
            out = memo.get((q, L), memo)
            if out is memo:
                out = memo[(q, L)] = concrete_next(code, ctx, rank, q, L)
            return out

        return step

    def _unrolled_envs(self, step, code: ir.Code, pc: int, locals_: tuple, budget: int = 4096) -> list | None:
        """The environments of `interpret` from (pc, locals_), but from the process's code
        followed on its concrete locals (`_concrete_next`: both outcomes of a TTEST, every
        value of a choice, every wait taken as completing), each point's values joined per
        instruction. It over-approximates the runs as `interpret` does, at least as tightly
        (no values of one slot paired with another's that no run pairs), and a loop counter
        costs a step per value, not a pass per value over ever larger sets. None when a local
        becomes unknown or the unrolling passes `budget` points: `interpret` then answers."""
        seen = {(pc, locals_)}
        work = [(pc, locals_)]
        same = self._same.setdefault  # equal masks and operand sets: one object each
        while work:
            nexts = step(*work.pop())
            if nexts is None:
                return None
            for nxt in nexts:
                if nxt not in seen:
                    if len(seen) >= budget:
                        return None
                    seen.add(nxt)
                    work.append(nxt)
        values: list = [None] * len(code.instrs)
        for q, L in seen:
            row = values[q]
            if row is None:
                row = values[q] = [set() for _ in L]
            for slot, x in zip(row, L):
                slot.add(x)
        return [None if row is None else tuple(frozenset(v) if len(v) <= CAP else TOP for v in row)
                for row in values]

    def _faults(self, ctx: dict, rank: int):
        """`faults(ins, env)` for interpret: a signal or data view that names no element it may
        touch (every index or rank out of range, a wait or reset on another rank's copy)."""
        p = self.program

        def faults(ins, env) -> bool:
            views = [ins.view] if isinstance(ins, ir.SIGNAL_INSTRS) or isinstance(ins, ir.Access) else (
                [ins.dst, ins.src] if isinstance(ins, ir.Copy) else [])
            for view in views:
                if isinstance(ins, (ir.Wait, ir.Test, ir.Reset)) and view.at is not None:
                    at = evaluate(view.at, env, ctx)
                    if at is not TOP and rank not in at:
                        return True
                elems = p.elems_per_rank if view.signal in p.signals else p.data_per_rank
                if view_positions(view, env, ctx, rank, p.nranks, elems) == 0:
                    return True
            return False

        return faults

    def footprint(self, ins, env, ctx, rank) -> Footprint:
        if env is None or not isinstance(ins, ir.SIGNAL_INSTRS):
            return Footprint(0, 0, 0)
        p = self.program
        m = view_positions(ins.view, env, ctx, rank, p.nranks, p.elems_per_rank)
        if isinstance(ins, ir.READ_INSTRS):
            return Footprint(m, 0, 0)
        if isinstance(ins, ir.Load):
            return Footprint(0, 0, 0)  # a read, but not a wait: it clears, it cannot lose
        if isinstance(ins, (ir.Reset, ir.Store, ir.Cas)) or (isinstance(ins, ir.Notify) and ins.op == ir.SET):
            return Footprint(0, m, m)
        return Footprint(0, m, 0)

    def reachable_reads(self, kind: str, rank: int, block: int = 0) -> tuple[int, ...]:
        """Per instruction, the positions read by TWAIT/TTEST reachable from it (itself included)."""
        key = (kind, rank, block)
        hit = self._reachable_reads.get(key)
        if hit is None:
            code = self.codes[kind]
            fps = self.footprints(kind, rank, block)
            reach = [fp.reads for fp in fps]
            changed = True
            while changed:
                changed = False
                for pc in range(len(reach) - 1, -1, -1):
                    m = reach[pc]
                    for s in successors(code, pc):
                        m |= reach[s]
                    if m != reach[pc]:
                        reach[pc] = m
                        changed = True
            hit = self._reachable_reads[key] = tuple(reach)
        return hit

    def totals(self) -> Footprint:
        """What any process may read, write and Set/reset, over the whole program."""
        reads = writes = sets = 0
        for kind, r, b in self.contexts():
            for fp in self.footprints(kind, r, b):
                reads |= fp.reads
                writes |= fp.writes
                sets |= fp.sets
        return Footprint(reads, writes, sets)

    def future_reads(self, kind: str, rank: int, block: int, launch_id: int, pc: int, locals_: tuple):
        """(positions, cmp, operand values or TOP, span) of every TWAIT/TTEST the process may
        still execute from (pc, locals_)."""
        key = (kind, rank, block, launch_id, pc, locals_)
        hit = self._future.get(key)
        if hit is None:
            hit = self._future[key] = self._future_reads(*key)
        return hit

    def _future_reads(self, kind, rank, block, launch_id, pc, locals_):
        exact = self._unrolled_reads(kind, rank, block, launch_id, pc, locals_) if locals_ else None
        return exact if exact is not None else self._abstract_reads(kind, rank, block, launch_id, pc, locals_)

    def _unrolled_reads(self, kind, rank, block, launch_id, pc, locals_, budget: int = 4096):
        """The future reads of `_abstract_reads`, but with each position's own operands: the
        process's code is followed on its concrete locals (both outcomes of a TTEST, every
        value of a choice), so a loop `TTEST(f[step], step + 1, EQ)` reads f[0] with 1 and
        f[1] with 2, not each with 1 or 2. None when a local becomes unknown (a LOAD, ...)
        or the unrolling passes `budget` points: the abstract version then answers."""
        code = self.codes[kind]
        ctx = self.ctx(kind, rank, block, launch_id)
        p = self.program
        found: dict = {}  # (pc, positions) -> operand values
        step = self._stepper(kind, rank, block, launch_id)
        seen = {(pc, locals_)}
        work = [(pc, locals_)]
        same = self._same.setdefault  # equal masks and operand sets: one object each

        def one(e, L):
            v = evaluate(e, tuple(frozenset((x,)) for x in L), ctx)
            return None if v is TOP or len(v) > 1 else v  # an empty set: the process stops here

        def go(q, L):
            if (q, L) not in seen:
                if len(seen) >= budget:
                    raise OverflowError
                seen.add((q, L))
                work.append((q, L))

        try:
            while work:
                q, L = work.pop()
                ins = code.instrs[q]
                if ins.__class__ in (ir.Wait, ir.Test):
                    env = tuple(frozenset((x,)) for x in L)
                    if ins.view.at is not None and one(ins.view.at, L) != frozenset((rank,)):
                        continue  # a read of another rank's copy (or an unknown one): an error, it stops
                    m = view_positions(ins.view, env, ctx, rank, p.nranks, p.elems_per_rank)
                    v = one(ins.value, L)
                    if v is None:
                        return None
                    if not m or not v:
                        continue  # the read surely faults: the process stops
                    key = (q, same(m, m))
                    v = found.get(key, frozenset()) | v
                    found[key] = same(v, v)
                nexts = step(q, L)
                if nexts is None:
                    return None
                for nxt in nexts:
                    go(*nxt)
        except OverflowError:
            return None
        return tuple((m, code.instrs[q].cmp, values, code.instrs[q].span)
                     for (q, m), values in sorted(found.items(), key=lambda kv: kv[0]))

    def launch_bound(self, rank: int, budget: int = 4096) -> int | None:
        """The most launches host `rank` can make: its code followed on concrete locals as in
        `_concrete_next`, counting launches. None when a local becomes unknown or the run
        passes `budget` points (a launch on a loop that need not end does)."""
        if rank in self._launch_bound:
            return self._launch_bound[rank]
        code = self.codes["host"]
        ctx = self.ctx("host", rank)
        start = (0, (0,) * code.nslots, 0)
        seen, work, most = {start}, [start], 0
        while work:
            q, L, n = work.pop()
            most = max(most, n)
            if len(seen) > budget:
                most = None
                break
            nexts = self._concrete_next(code, ctx, rank, q, L)
            if nexts is None:
                most = None
                break
            count = n + (code.instrs[q].__class__ is ir.Launch)
            for q2, L2 in nexts:
                if (q2, L2, count) not in seen:
                    seen.add((q2, L2, count))
                    work.append((q2, L2, count))
        self._launch_bound[rank] = most
        return most

    def rising(self, among: int = -1) -> int:
        """The elements whose value never decreases, as a bitmask. An element qualifies when
        every write to it is a TNOTIFY Set by the kernel blocks of one rank, and the values
        those Sets write in launch number l form one value v(l) (over every block and every
        Set), with init <= v(0) <= v(1) <= ... over the launches that host can make. The
        launches of a rank run one after another (a launch returns only when all its blocks
        have), so the element holds init, then v(l) of each launch in turn."""
        if among in self._rising:
            return self._rising[among]
        p = self.program
        code = self.codes["kernel"]
        bad = writer = 0
        owner: dict = {}  # position -> the rank whose kernel writes it
        for kind, r, b in self.contexts():
            for ins, fp in zip(self.codes[kind].instrs, self.footprints(kind, r, b)):
                if not fp.writes:
                    continue
                if kind == "host" or not (isinstance(ins, ir.Notify) and ins.op == ir.SET):
                    bad |= fp.writes
                    continue
                for q in _bits(fp.writes):
                    if owner.setdefault(q, r) != r:
                        bad |= 1 << q
                writer |= fp.writes
        cand = writer & ~bad & among
        values: dict = {}  # (position, launch id) -> the values its Sets write in that launch
        for k in sorted({owner[q] for q in _bits(cand)}):
            mine = sum(1 << q for q in _bits(cand) if owner[q] == k)
            bound = self.launch_bound(k) if p.uses_launch_id else 1
            if bound is None:
                cand &= ~mine
                continue
            for lid in range(bound):
                for b in range(p.nblocks):
                    ctx = self.ctx("kernel", k, b, lid)
                    envs = interpret(code, ctx, 0, (frozenset((0,)),) * code.nslots, self._faults(ctx, k))
                    for ins, env in zip(code.instrs, envs):
                        if env is None or not isinstance(ins, ir.Notify):
                            continue
                        m = view_positions(ins.view, env, ctx, k, p.nranks, p.elems_per_rank) & mine
                        if not m:
                            continue
                        v = evaluate(ins.value, env, ctx)
                        for q in _bits(m):
                            if v is TOP:
                                cand &= ~(1 << q)
                            else:
                                values.setdefault((q, lid), set()).update(v)
        for q in _bits(cand):
            old = self._init(q)
            for lid in range(self.launch_bound(owner[q]) if p.uses_launch_id else 1):
                vs = values.get((q, lid), ())
                if len(vs) > 1 or (vs and min(vs) < old):
                    cand &= ~(1 << q)
                    break
                if vs:
                    old = min(vs)
        self._rising[among] = cand
        return cand

    def bounded_adds(self, among: int = -1) -> int:
        """The elements every write of which is a TNOTIFY AtomicAdd and whose value stays
        within int32 in every run, as a bitmask. Each process's code is followed on its
        concrete locals (`_concrete_next`, every launch of a kernel in turn) and every add that
        can reach an element is summed, the positive and the negative ones apart; an add that
        can run again and again (it lies on a cycle of that walk) gives no bound. No add to
        such an element can overflow, so any two of them commute. Only the elements of `among`
        are considered (the walks cost time)."""
        if among in self._bounded:
            return self._bounded[among]
        p = self.program
        adds = other = 0
        for kind, r, b in self.contexts():
            for ins, fp in zip(self.codes[kind].instrs, self.footprints(kind, r, b)):
                if isinstance(ins, ir.Notify) and ins.op == ir.ATOMIC_ADD:
                    adds |= fp.writes
                else:
                    other |= fp.writes
        cand = adds & ~other & among
        up: dict = {}
        down: dict = {}
        runs = []  # (kind, rank, block, launch id or None, how many times that run happens)
        for r in range(p.nranks if cand else 0):
            runs.append(("host", r, 0, None, 1))
            n = self.launch_bound(r)
            if n is None:
                runs.append(("kernel", r, -1, None, None))
                continue
            for b in range(p.nblocks):
                if p.uses_launch_id:
                    runs += [("kernel", r, b, lid, 1) for lid in range(n)]
                elif n:
                    runs.append(("kernel", r, b, 0, n))
        for kind, r, b, lid, times in runs:
            if not cand:
                break
            if times is None:  # launches without a bound: none of what this rank's kernel adds to
                for bb in range(p.nblocks):
                    cand &= ~sum(fp.writes for fp in self.footprints("kernel", r, bb))
                continue
            hits = self._adds_of_one_run(kind, r, b, lid, cand)
            if hits is None:
                cand &= ~sum(fp.writes for fp in self.footprints(kind, r, max(b, 0)))
                continue
            for q, (plus, minus) in hits.items():
                up[q] = up.get(q, 0) + plus * times
                down[q] = down.get(q, 0) + minus * times
        for q in list(_bits(cand)):
            init = self._init(q)
            if init + up.get(q, 0) > ir.INT32_MAX or init - down.get(q, 0) < ir.INT32_MIN:
                cand &= ~(1 << q)
        self._bounded[among] = cand
        return cand

    def _walk(self, kind: str, rank: int, block: int, lid) -> dict | None:
        """One run of the process followed on its concrete locals (`_concrete_next`, from its
        first instruction with every local 0): its points (pc, locals), in the order met, each
        with the set of its predecessors. None when the walk passes 4096 points or a local
        becomes unknown. Not remembered: at 32 ranks the walks of every process and launch
        hold megabytes."""
        code = self.codes[kind]
        ctx = self.ctx(kind, rank, block, lid)
        start = (0, (0,) * code.nslots)
        preds: dict | None = {start: set()}
        work = [start]
        while work:
            q, L = node = work.pop()
            nexts = self._concrete_next(code, ctx, rank, q, L)
            if nexts is None or len(preds) > 4096:
                preds = None
                break
            for nxt in nexts:
                if nxt not in preds:
                    preds[nxt] = set()
                    work.append(nxt)
                preds[nxt].add(node)
        return preds

    @staticmethod
    def _has_cycle(preds: dict) -> bool:
        try:  # counted loops walk concretely to a graph without cycles: nothing repeats
            graphlib.TopologicalSorter(preds).prepare()
        except graphlib.CycleError:
            return True
        return False

    @classmethod
    def _looping(cls, preds: dict) -> set:
        """The points of a walk that lie on a cycle of it (a strongly connected component with
        an edge inside)."""
        if not cls._has_cycle(preds):
            return set()
        import networkx as nx  # only for a walk with a cycle (networkx: 12 MB and 0.1 s to import)

        g = nx.DiGraph()
        g.add_nodes_from(preds)
        g.add_edges_from((a, b) for b, before in preds.items() for a in before)
        looping = set()
        for scc in nx.strongly_connected_components(g):
            if len(scc) > 1 or any(g.has_edge(n, n) for n in scc):
                looping |= scc
        return looping

    @staticmethod
    def _amid_cycles(preds: dict) -> set:
        """The points of a walk that lie on a cycle of it or on a path from one cycle to
        another: what is left once every point with no predecessor left, and then every point
        with no successor left, has been taken away, again and again. It holds every point on
        a cycle (each keeps a predecessor and a successor on its cycle), so it may stand in
        for them where more is only safer; the exact set would need networkx's strongly
        connected components, whose import alone costs 0.1 s, a third of a small check."""
        succs: dict = {n: set() for n in preds}
        for n, before in preds.items():
            for m in before:
                succs[m].add(n)
        left = set(preds)
        for into, out in ((preds, succs), (succs, preds)):  # sources away, then sinks
            count = {n: len(into[n] & left) for n in left}
            work = [n for n, k in count.items() if not k]
            while work:
                n = work.pop()
                left.discard(n)
                for m in out[n]:
                    if m in left:
                        count[m] -= 1
                        if not count[m]:
                            work.append(m)
        return left

    def repeat_points(self) -> dict:
        """kind ("host", "kernel") -> the pcs from which a process of that kind may take a step
        that lies on a cycle of the state graph, or None for every pc. A pc qualifies when a
        point (pc, locals) of the walk of `_walk` of some process of that kind (every host;
        every kernel block in every launch its host can make, `launch_bound`) lies on a cycle
        of that walk (or between two of them: `_amid_cycles`). Sound because on a cycle of
        the system every process comes back to its (pc, live locals): the walk
        over-approximates what a process does between its visible steps (both outcomes of
        every TTEST, every wait taken as completing, every value of a choice), and what it
        does next depends on its live locals only, so its steps on the cycle follow a cycle
        of its walk (docs/trust.md 3a, "Cycles only where a process loops"). A kernel block runs again only when its host launches it again: when a host's
        launches have no bound, every kernel pc qualifies. A walk that is incomplete (over
        4096 points, or a local becomes unknown: a LOAD, a FETCH_ADD) makes every pc of its
        kind qualify. The wait of a multi-element pass, which starts its pass over when a read
        fails, is a repeat the walk does not see: the caller adds it
        (model/independence.py `Reduction.cycles`). Nothing qualifies anywhere exactly when
        no sequence of steps comes back to a state."""
        if self._repeat_points is not None:
            return self._repeat_points
        p = self.program
        host: set | None = set()
        kernel: set | None = set()
        for r in range(p.nranks):
            if host is not None:
                preds = self._walk("host", r, 0, None)
                host = None if preds is None else host | {q for q, _ in self._amid_cycles(preds)}
            n = self.launch_bound(r)
            if n is None:
                kernel = None
            if kernel is None:
                continue
            lids = range(n) if p.uses_launch_id else range(min(n, 1))
            for b in range(p.nblocks):
                for lid in lids:
                    preds = self._walk("kernel", r, b, lid)
                    if preds is None:
                        kernel = None
                        break
                    kernel |= {q for q, _ in self._amid_cycles(preds)}
                if kernel is None:
                    break
        self._repeat_points = {"host": host, "kernel": kernel}
        return self._repeat_points

    def _adds_of_one_run(self, kind: str, rank: int, block: int, lid, cand: int) -> dict | None:
        """position -> (sum of the positive, of the negative adds) one run of the process may
        make to the elements `cand` (2**32 for an add that may repeat without bound); None when
        the walk passes 4096 points or a local becomes unknown."""
        code = self.codes[kind]
        ctx = self.ctx(kind, rank, block, lid)
        p = self.program
        preds = self._walk(kind, rank, block, lid)
        if preds is None:
            return None
        looping = self._looping(preds)
        out: dict = {}
        for node in preds:
            q, L = node
            ins = code.instrs[q]
            if not (isinstance(ins, ir.Notify) and ins.op == ir.ATOMIC_ADD):
                continue
            env = tuple(frozenset((x,)) for x in L)
            m = view_positions(ins.view, env, ctx, rank, p.nranks, p.elems_per_rank) & cand
            if not m:
                continue
            v = evaluate(ins.value, env, ctx)
            if v is TOP or node in looping:  # no bound on what it adds: beyond any int32
                plus = minus = 2 ** 32
            else:
                plus, minus = max(max(v, default=0), 0), max(-min(v, default=0), 0)
            for x in _bits(m):
                a, b = out.get(x, (0, 0))
                out[x] = (a + plus, b + minus)
        return out

    def never_lost(self, among: int = -1) -> int:
        """The elements whose notifications no overwrite can lose: rising ones (`rising`) read
        only by GE / GT waits and tests. An overwrite replaces a value with a larger one,
        and a comparison that the old value satisfied, the new one satisfies as well."""
        other = 0
        for kind, r, b in self.contexts():
            for ins, fp in zip(self.codes[kind].instrs, self.footprints(kind, r, b)):
                if fp.reads and ins.cmp not in RISING_CMPS:
                    other |= fp.reads
        return self.rising(among & ~other) if among & ~other else 0

    def _init(self, q: int) -> int:
        p = self.program
        off = q % p.elems_per_rank
        for sig in p.signals:
            if sig.offset <= off < sig.offset + sig.size:
                return sig.init
        raise AssertionError(q)

    def _concrete_next(self, code: ir.Code, ctx: dict, rank: int, q: int, L: tuple):
        """The (pc, locals) after instruction q run on the concrete locals L: both outcomes of
        a TTEST, every value of a choice, every wait taken as completing, nothing where it
        surely stops (a fault, a failed assert, a return); None when a local it sets or
        tests is not known here (a LOAD, a choice over more than CAP values, ...)."""
        p = self.program
        ins = code.instrs[q]
        cls = ins.__class__

        def one(e):
            v = evaluate(e, tuple(frozenset((x,)) for x in L), ctx)
            return None if v is TOP or len(v) > 1 else v  # an empty set: the process stops here

        if cls is ir.Return:
            return ()
        if cls is ir.Test:
            return tuple((q + 1, L[:ins.dest] + (bit,) + L[ins.dest + 1:]) for bit in (0, 1))
        if cls is ir.Assign:
            v = one(ins.value)
            return None if v is None else tuple((q + 1, L[:ins.slot] + (x,) + L[ins.slot + 1:]) for x in v)
        if cls is ir.Branch:
            v = one(ins.cond)
            return None if v is None else tuple((q + 1 if x else ins.target, L) for x in v)
        if cls is ir.Jump:
            return ((ins.target, L),)
        if cls is ir.Choose:
            lo, hi = one(ins.lo), one(ins.hi)
            if lo is None or hi is None:
                return None
            if not (lo and hi):
                return ()
            a, b = next(iter(lo)), next(iter(hi))
            if b - a + 1 > CAP:
                return None
            return tuple((q + 1, L[:ins.slot] + (x,) + L[ins.slot + 1:]) for x in range(a, b + 1))
        if cls in (ir.Load, ir.FetchAdd, ir.Cas, ir.TestEvent):
            return None  # the local it sets is not known here
        if cls is ir.Assert:
            v = one(ins.cond)
            return None if v is None else (((q + 1, L),) if v and next(iter(v)) else ())  # a failed assert stops
        if isinstance(ins, ir.SIGNAL_INSTRS) and cls is not ir.Wait:  # it stops the process if it names nothing
            env = tuple(frozenset((x,)) for x in L)
            return ((q + 1, L),) if view_positions(ins.view, env, ctx, rank, p.nranks, p.elems_per_rank) else ()
        return ((q + 1, L),)  # a completed wait, fences, launch, barriers, data statements, observe: go on

    def _abstract_reads(self, kind, rank, block, launch_id, pc, locals_):
        code = self.codes[kind]
        ctx = self.ctx(kind, rank, block, launch_id)
        env = tuple(frozenset((v,)) for v in locals_) if locals_ else (frozenset((0,)),) * code.nslots
        p = self.program
        out = []
        for ins, e in zip(code.instrs, interpret(code, ctx, pc, env, self._faults(ctx, rank))):
            if e is not None and isinstance(ins, ir.READ_INSTRS):
                m = view_positions(ins.view, e, ctx, rank, p.nranks, p.elems_per_rank)
                out.append((m, ins.cmp, evaluate(ins.value, e, ctx), ins.span))
        return tuple(out)

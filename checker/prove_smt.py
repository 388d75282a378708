"""The prover's solver module (with checker/solver.py, the only modules that import z3).

States of the guarded commands (checker/gcs.py) become z3 functions of the rank; quantified
clauses are never given to z3 as quantifiers: each query instantiates them on a finite set
of rank terms (the acting rank, the Skolem ranks, the ranks the command touches, the min
rank and its neighbours). Fewer instances only weaken the hypotheses, so `unsat` stays a
proof. Division and remainder are exact where the operands make them linear and an
uninterpreted function elsewhere (an over-approximation: again, `unsat` stays a proof).
`unknown` raises Unknown: never read as a proof.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import z3

from checker import gcs
from checker import invariants
from checker.invariants import holds
from model import ir
from model.vocabulary import COMPARISON

TIMEOUT_MS = 30_000
INT32_MIN, INT32_MAX = ir.INT32_MIN, ir.INT32_MAX
BIG = 2**64  # model/cint.py MAX_MAGNITUDE


class Unknown(Exception):
    """z3 answered unknown (a timeout or an incompleteness): nothing is proved."""


# ---------------------------------------------------------------- expressions


class Enc:
    """IR expressions as z3 terms: locals through `loc(slot)`, `rank`, `launch_id`."""

    def __init__(self, sizes, gc: gcs.Commands | None = None):
        self.sizes = sizes
        self.gc = gc  # the commands, when states of them are encoded
        self.params = {s: z3.Int(s) for s in sizes.symbolic}
        self.udiv = z3.Function("cdiv", z3.IntSort(), z3.IntSort(), z3.IntSort())
        self.umod = z3.Function("cmod", z3.IntSort(), z3.IntSort(), z3.IntSort())
        # when a list: collects (condition, what) for every run-time fault the encoded
        # expressions may raise in the explicit engine (a zero divisor, a value beyond 2^64)
        self.divisors: list | None = None

    @property
    def N(self):
        r = self.sizes.ranks
        return self.params[r] if isinstance(r, str) else z3.IntVal(r)

    def domain(self, lower: dict) -> list:
        """The symbolic params' ranges: `lower` (ranks default 2, others 1) up to INT32_MAX."""
        out = []
        for name, v in self.params.items():
            lo = lower.get(name, 2 if name == self.sizes.ranks else 1)
            out += [v >= lo, v <= INT32_MAX]
        return out

    def expr(self, e, loc, rank, lid):
        if isinstance(e, ir.Const):
            x = self.sizes.const(e)
            return z3.IntVal(x.value) if isinstance(x, ir.Const) else self.expr(x, loc, rank, lid)
        if isinstance(e, ir.Local):
            return loc(e.slot)
        if isinstance(e, ir.Builtin):
            if e.name == "rank":
                return rank
            if e.name == "launch_id":
                return lid
            if e.name == "block":
                return z3.IntVal(0)
            return self.params[e.name]
        if isinstance(e, ir.Unary):
            if e.op == "-":
                return -self.expr(e.operand, loc, rank, lid)
            if e.op == "!":
                return z3.If(self.cond(e.operand, loc, rank, lid), 0, 1)
            return z3.If(self.cond(e.operand, loc, rank, lid), 1, 0)  # "bool"
        if isinstance(e, ir.Select):
            return z3.If(self.cond(e.test, loc, rank, lid), self.expr(e.then, loc, rank, lid),
                         self.expr(e.orelse, loc, rank, lid))
        if isinstance(e, ir.Binary):
            if e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
                return z3.If(self.cond(e, loc, rank, lid), 1, 0)
            a, b = self.expr(e.left, loc, rank, lid), self.expr(e.right, loc, rank, lid)
            if e.op in ("+", "-", "*"):
                r = a + b if e.op == "+" else a - b if e.op == "-" else a * b
                if self.divisors is not None:  # model/cint.py: beyond 2^64 in magnitude is an error
                    self.divisors.append((z3.And(r >= -BIG, r <= BIG), "a value beyond 2^64"))
                return r
            if e.op == "min":
                return z3.If(a <= b, a, b)
            if e.op == "max":
                return z3.If(a >= b, a, b)
            if e.op in ("/", "%"):
                if self.divisors is not None:
                    self.divisors.append((b != 0, "a divisor is zero"))
                return self._div(a, b) if e.op == "/" else self._mod(a, b)
        raise gcs.Unsupported(f"'{e}' cannot be encoded", getattr(e, "span", None))

    def dim(self, d):
        """A signal dimension of `Sizes.dims_of` as a term over the symbolic params."""
        if isinstance(d, str):
            return self.params[d]
        if isinstance(d, int):
            return z3.IntVal(d)
        return self.expr(d, None, None, None)  # only params: no locals, rank or launch_id

    def _div(self, a, b):
        if z3.is_int_value(b) and b.as_long() > 0:
            return z3.If(a >= 0, a / b, -((-a) / b))
        return z3.If(b == 1, a, z3.If(z3.And(a >= 0, a < b), 0, self.udiv(a, b)))

    def _mod(self, a, b):
        if z3.is_int_value(b) and b.as_long() > 0:
            return z3.If(a >= 0, a % b, -((-a) % b))
        return z3.If(z3.And(a >= 0, a < b), a, z3.If(z3.And(b <= a, a < 2 * b), a - b, self.umod(a, b)))

    def cond(self, e, loc, rank, lid):
        if isinstance(e, ir.Binary) and e.op in ("&&", "||"):
            a, b = self.cond(e.left, loc, rank, lid), self.cond(e.right, loc, rank, lid)
            return z3.And(a, b) if e.op == "&&" else z3.Or(a, b)
        if isinstance(e, ir.Unary) and e.op == "!":
            return z3.Not(self.cond(e.operand, loc, rank, lid))
        if isinstance(e, ir.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            a, b = self.expr(e.left, loc, rank, lid), self.expr(e.right, loc, rank, lid)
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]
        return self.expr(e, loc, rank, lid) != 0


# ---------------------------------------------------------------- states


def feasibility(sizes, lower: dict):
    """A `feasible(guards)` for gcs.translate: False only when z3 shows that no locals, rank
    and launch number satisfy the guards of a local path."""
    enc = Enc(sizes)
    base = enc.domain(lower)
    rank, lid = z3.Int("rank"), z3.Int("launch_id")
    base += [rank >= 0, rank < enc.N, lid >= 0]
    loc = lambda s: z3.Int(f"local{s}")  # noqa: E731

    def feasible(guards) -> bool:
        s = _solver()
        s.add(*base)
        for c, want in guards:
            g = enc.cond(c, loc, rank, lid)
            s.add(g if want else z3.Not(g))
        return s.check() != z3.unsat

    return feasible


class View:
    """The backend of checker.invariants for z3: the reads of a state."""

    enc: Enc

    def num(self, k):
        return z3.IntVal(k)

    def sym(self, name):
        return self.enc.params[name]

    def rot(self, x, y):
        """(y - x) mod N for ranks in range (the clauses read it only there)."""
        return z3.If(y >= x, y - x, y - x + self.enc.N)

    def kexpr(self, e, x):
        return self.enc.expr(e, lambda s: self.kloc(s, x), x, self.lc(x) - 1)

    def past(self, x, pc, v):
        """checker.invariants.ConcreteView.past as a term: 1 or 0."""
        k = self.enc.gc.kernel
        target = lambda: [v if kind == "v" else z3.IntVal(c) if kind == "c" else self.kloc(c, x)  # noqa: E731
                          for kind, c in k.past_items(pc)]
        cases = [z3.And(self.kpc(x) == gcs.IDLE, self.lc(x) >= 1)]
        for p in k.visible() + (k.done,):
            mine = [z3.IntVal(c) if kind == "c" else self.kloc(c, x) for kind, c in k.key(p)]
            cases.append(z3.And(self.kpc(x) == p, z3.Not(_lex_le(mine, target()))))
        return z3.If(z3.Or(cases), 1, 0)


class State(View):
    """An arbitrary state: uninterpreted functions of the rank."""

    def __init__(self, enc: Enc, tag: str):
        self.enc = enc
        gc = enc.gc
        I = z3.IntSort()  # noqa: E741
        f = lambda name, n=1: z3.Function(f"{name}{tag}", *([I] * (n + 1)))  # noqa: E731
        self._hpc, self._kpc, self._lc = f("hpc"), f("kpc"), f("lc")
        self._hloc = [f(f"h_{n}_{k}") for k, n in enumerate(gc.host.slot_names)]
        self._kloc = [f(f"k_{n}_{k}") for k, n in enumerate(gc.kernel.slot_names)]
        self._cells = {s.name: f(s.name, 1 + len(s.dims)) for s in gc.signals}

    def hpc(self, x):
        return self._hpc(x)

    def kpc(self, x):
        return self._kpc(x)

    def lc(self, x):
        return self._lc(x)

    def hloc(self, s, x):
        return self._hloc[s](x)

    def kloc(self, s, x):
        return self._kloc[s](x)

    def cell(self, name, h, idxs):
        return self._cells[name](h, *idxs)


class Initial(View):
    """The initial state: hosts at the end of their entry paths, kernels not running."""

    def __init__(self, enc: Enc):
        self.enc = enc
        self.gc = enc.gc

    def _entry(self, x):
        h = self.gc.host
        zero = lambda s: z3.IntVal(0)  # noqa: E731
        pc, locs = z3.IntVal(h.done), [z3.IntVal(0)] * h.nslots
        for p in reversed(h.entry):
            g = z3.And([self.enc.cond(c, zero, x, z3.IntVal(0)) == want for c, want in p.guards])
            upd = dict(p.updates)
            pc = z3.If(g, p.dest, pc)
            locs = [z3.If(g, self.enc.expr(upd[s], zero, x, z3.IntVal(0)) if s in upd else 0, locs[s])
                    for s in range(h.nslots)]
        return pc, locs

    def hpc(self, x):
        return self._entry(x)[0]

    def hloc(self, s, x):
        return self._entry(x)[1][s]

    def kpc(self, x):
        return z3.IntVal(gcs.IDLE)

    def kloc(self, s, x):
        return z3.IntVal(0)

    def lc(self, x):
        return z3.IntVal(0)

    def cell(self, name, h, idxs):
        return z3.IntVal(next(s.init for s in self.gc.signals if s.name == name))


class After(View):
    """The state after rank `a`'s step: `over` replaces its per-rank fields, `write` one cell."""

    def __init__(self, pre, a, over: dict, write=None):
        self.enc, self.pre, self.a, self.over, self.write = pre.enc, pre, a, over, write

    def _f(self, key, x, old):
        return z3.If(x == self.a, self.over[key], old) if key in self.over else old

    def hpc(self, x):
        return self._f("hpc", x, self.pre.hpc(x))

    def kpc(self, x):
        return self._f("kpc", x, self.pre.kpc(x))

    def lc(self, x):
        return self._f("lc", x, self.pre.lc(x))

    def hloc(self, s, x):
        return self._f(("hloc", s), x, self.pre.hloc(s, x))

    def kloc(self, s, x):
        return self._f(("kloc", s), x, self.pre.kloc(s, x))

    def cell(self, name, h, idxs):
        old = self.pre.cell(name, h, idxs)
        if self.write is None or self.write[0] != name:
            return old
        _, wh, widx, v = self.write  # widx None: every element of the signal at rank wh (a reset)
        return z3.If(z3.And([h == wh] + [i == w for i, w in zip(idxs, widx or ())]), v, old)


# ---------------------------------------------------------------- the steps


class Step:
    """One command along one local path, taken by the symbolic rank `a` from `pre`."""

    def __init__(self, name: str, guard: list, post: After, terms: list, checks: list, span, notify=None,
                 reset=None, indices=()):
        self.name, self.guard, self.post, self.terms, self.checks, self.span = name, guard, post, terms, checks, span
        self.indices = list(indices)  # the signal indices the step reads or writes
        self.notify = notify  # (instr, old value, new value, holder, indices) of a TNOTIFY
        self.reset = reset  # (instr, indices: [] for the whole signal) of a host's reset


def _path(enc, p, loc, a, lid, guard0: list, checks: list, label: str):
    """Guards and updated locals of a path; the fault checks assume the guards before them."""
    guards = list(guard0)
    for c, want in p.guards:
        enc.divisors = []
        g = enc.cond(c, loc, a, lid)
        checks += [(z3.And(guards), ok, f"{what} ({label})") for ok, what in enc.divisors]
        guards.append(g if want else z3.Not(g))
    enc.divisors = []
    upd = {s: enc.expr(e, loc, a, lid) for s, e in p.updates}
    checks += [(z3.And(guards), ok, f"{what} ({label})") for ok, what in enc.divisors]
    enc.divisors = None
    if p.dest == gcs.TRUNCATED:
        checks.append((z3.And(guards), z3.BoolVal(False), f"a local loop may not terminate ({p.span})"))
    return guards, upd


def steps(enc: Enc, pre: State, a) -> list[Step]:
    gc = enc.gc
    k, h = gc.kernel, gc.host
    out = []
    zero = lambda s: z3.IntVal(0)  # noqa: E731
    hloc = lambda s: pre.hloc(s, a)  # noqa: E731
    kloc = lambda s: pre.kloc(s, a)  # noqa: E731
    lid = pre.lc(a) - 1
    kterms = [pre.kloc(s, a) for s in range(k.nslots)]
    for pc, paths in h.after:
        x = h.instrs[pc]
        at = pre.hpc(a) == pc
        if isinstance(x, ir.Launch):
            for p in k.entry:
                checks: list = []
                guards, upd = _path(enc, p, zero, a, pre.lc(a), [at], checks, "kernel start")
                over = {"hpc": z3.IntVal(pc + 1), "lc": pre.lc(a) + 1, "kpc": z3.IntVal(p.dest)}
                over.update({("kloc", s): upd.get(s, z3.IntVal(0)) for s in range(k.nslots)})
                out.append(Step(f"launch at {x.span}", guards, After(pre, a, over), [], checks, x.span))
        elif isinstance(x, ir.Reset):  # the own rank's copy of a signal (or one element) -> INIT
            v = x.view
            enc.divisors = []
            idxs = [enc.expr(sel.expr, hloc, a, z3.IntVal(0)) for sel in v.selectors]
            checks0 = [(at, ok, f"{what} at {x.span}") for ok, what in enc.divisors]
            enc.divisors = None
            checks0 += [(at, z3.And(i >= 0, i < enc.dim(d)), f"an index of {x.text} is out of bounds at {x.span}")
                        for i, d in zip(idxs, gc.sizes.dims_of(v.signal.name))]
            write = (v.signal.name, a, idxs if v.selectors else None, z3.IntVal(v.signal.init))
            for p in paths:
                checks = list(checks0)
                guards, upd = _path(enc, p, hloc, a, z3.IntVal(0), [at], checks, "host")
                over = {"hpc": z3.IntVal(p.dest)}
                over.update({("hloc", s): upd.get(s, pre.hloc(s, a)) for s in range(h.nslots)})
                out.append(Step(f"{x.text} at {x.span}", guards, After(pre, a, over, write), [a] + idxs, checks,
                                x.span, reset=(x, idxs), indices=idxs))
        else:  # Join
            for p in paths:
                checks = []
                guards, upd = _path(enc, p, hloc, a, z3.IntVal(0), [at, pre.kpc(a) == k.done], checks, "host")
                over = {"hpc": z3.IntVal(p.dest), "kpc": z3.IntVal(gcs.IDLE)}
                over.update({("hloc", s): upd.get(s, pre.hloc(s, a)) for s in range(h.nslots)})
                over.update({("kloc", s): z3.IntVal(0) for s in range(k.nslots)})
                out.append(Step(f"join at {x.span}", guards, After(pre, a, over), [], checks, x.span))
    for pc, paths in k.after:
        x = k.instrs[pc]
        at = pre.kpc(a) == pc
        enc.divisors = []
        holder = a if x.view.at is None else enc.expr(x.view.at, kloc, a, lid)
        idxs = [enc.expr(sel.expr, kloc, a, lid) for sel in x.view.selectors]
        v = enc.expr(x.value, kloc, a, lid)
        checks0 = [(at, ok, f"{what} at {x.span}") for ok, what in enc.divisors]
        enc.divisors = None
        dims = [enc.dim(d) for d in gc.sizes.dims_of(x.view.signal.name)]
        checks0.append((at, z3.And(holder >= 0, holder < enc.N), f"the rank of {x.text} is out of range at {x.span}"))
        checks0 += [(at, z3.And(i >= 0, i < d), f"an index of {x.text} is out of bounds at {x.span}")
                    for i, d in zip(idxs, dims)]
        old = pre.cell(x.view.signal.name, holder, idxs)
        notify = None
        ploc = kloc  # the locals the local paths after the step read
        if isinstance(x, ir.Wait):
            guard0 = [at, COMPARISON[x.cmp].holds(old, v)]
            write = None
        elif isinstance(x, ir.Test):  # one poll, always enabled: the answer goes to its local
            answer = z3.If(COMPARISON[x.cmp].holds(old, v), 1, 0)
            ploc = lambda s, dest=x.dest, answer=answer: answer if s == dest else kloc(s)  # noqa: E731
            guard0 = [at]
            write = None
        else:
            new = v if x.op == ir.SET else old + v
            what = "an AtomicAdd overflows" if x.op == ir.ATOMIC_ADD else "a Set value leaves int32"
            checks0.append((at, z3.And(new >= INT32_MIN, new <= INT32_MAX), f"{what} at {x.span}"))
            guard0 = [at]
            write = (x.view.signal.name, holder, idxs, new)
            notify = (x, old, new, holder, idxs)
        for p in paths:
            checks = list(checks0)
            guards, upd = _path(enc, p, ploc, a, lid, guard0, checks, f"after {x.span}")
            over = {"kpc": z3.IntVal(p.dest)}
            over.update({("kloc", s): upd.get(s, ploc(s)) for s in range(k.nslots)})
            out.append(Step(f"{x.text} at {x.span}", guards, After(pre, a, over, write),
                            kterms + [holder] + idxs, checks, x.span, notify, indices=idxs))
    return out


# ---------------------------------------------------------------- queries


def _solver():
    s = z3.Solver()
    s.set("timeout", TIMEOUT_MS)
    s.set("random_seed", 0)
    return s


DEADLINE: list = [None]  # time.monotonic() after which every query raises Unknown (Prover.deadline)


def _check(s, *assumptions):
    import time  # noqa: PLC0415

    if DEADLINE[0] is not None and time.monotonic() > DEADLINE[0]:
        raise Unknown("time limit reached")
    r = s.check(*assumptions)
    if r == z3.unknown:
        raise Unknown(s.reason_unknown())
    return r


def _mk(build, args: list):
    """`build` (Z3_mk_and / Z3_mk_or) of Boolean terms through the C API: the same term as
    z3.And / z3.Or make, without the Python API's per-argument coercions (a third of Houdini's
    time on epoch_counter went there). Anything but BoolRefs takes the ordinary route."""
    if not all(isinstance(a, z3.BoolRef) for a in args):
        return (z3.And if build is z3.Z3_mk_and else z3.Or)(args)
    ctx = args[0].ctx if args else z3.main_ctx()
    arr = (z3.Ast * len(args))()
    for k, a in enumerate(args):
        arr[k] = a.as_ast()
    return z3.BoolRef(build(ctx.ref(), len(args), arr), ctx)


def _and(args: list):
    return _mk(z3.Z3_mk_and, args)


def _or(args: list):
    return _mk(z3.Z3_mk_or, args)


def _not(a):
    return z3.BoolRef(z3.Z3_mk_not(a.ctx.ref(), a.as_ast()), a.ctx) if isinstance(a, z3.BoolRef) else z3.Not(a)


def _implies(a, b):
    if isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
        return z3.BoolRef(z3.Z3_mk_implies(a.ctx.ref(), a.as_ast(), b.as_ast()), a.ctx)
    return z3.Implies(a, b)


def _dedup(terms):
    out, seen = [], set()
    for t in terms:
        k = t.sexpr()
        if k not in seen:
            seen.add(k)
            out.append(t)
    return out


@dataclass(frozen=True)
class Counting:
    """The counting lemma of one counter cell (docs/prove.md, "Counters"): in every reachable
    state, for every rank h, `signal@h == init + add * #{x : passed(x, h)}`, where passed(x, h)
    reads only rank x's own position and loop counter (`Prover.passed`). Established only by
    the checked queries of `Prover.counting_queries`; a value of this class is a guess until then."""

    signal: str  # a scalar signal (no dimensions)
    notify: int  # the kernel pc of its one writer, a TNOTIFY AtomicAdd of the literal `add`
    header: int  # the counted loop around it (gcs.Loop)
    back: int
    slot: int  # the loop counter
    add: int  # > 0
    init: int  # the signal's initial value
    self_excluded: bool  # passed(h, h) is false by definition (the `p != rank` guard)


def counting_candidates(gc: gcs.Commands) -> list[Counting]:
    """Guesses, in a fixed order: per scalar signal written by exactly one TNOTIFY, an AtomicAdd
    of a literal > 0 inside a counted loop, the lemma over the innermost such loop, with and
    without self-exclusion. Filtering only: soundness rests on the queries, not on this."""
    k = gc.kernel
    enc = Enc(gc.sizes, gc)
    out = []
    for sig in gc.signals:
        if tuple(gc.sizes.dims_of(sig.name)) != ():
            continue
        writers = [pc for pc, x in enumerate(k.instrs) if isinstance(x, ir.Notify) and x.view.signal.name == sig.name]
        if len(writers) != 1 or k.instrs[writers[0]].op != ir.ATOMIC_ADD:
            continue
        pc = writers[0]
        v = z3.simplify(enc.expr(k.instrs[pc].value, lambda s: z3.Int(f"local{s}"), z3.Int("rank"),
                                 z3.Int("launch_id")))
        if not z3.is_int_value(v) or v.as_long() <= 0:
            continue
        inner = [lp for lp in k.loops if lp.header < pc < lp.back]
        if not inner:
            continue
        lp = max(inner, key=lambda x: x.header)
        out += [Counting(sig.name, pc, lp.header, lp.back, lp.slot, v.as_long(), sig.init, excl)
                for excl in (True, False)]
    return out


class Prover:
    """Houdini and the final obligations for one set of commands."""

    def __init__(self, gc: gcs.Commands, lower: dict, deadline: float | None = None):
        self.gc = gc
        self.enc = Enc(gc.sizes, gc)
        self._instances: dict = {}
        self._ranges: dict = {}  # term id -> (the term, kept alive so that its id stays its own; 0 <= term < N)
        self._pairs: dict = {}  # (id, id) -> (the terms, kept alive; both in range and distinct)
        self.pre = State(self.enc, "")
        self.a, self.s, self.t = z3.Ints("a s t")
        self.u = z3.Int("u")  # the Skolem index of index clauses
        self.domain = self.enc.domain(lower)
        self.queries = 0
        DEADLINE[0] = deadline
        self.trace = None  # trace(context name, dropped keys, model), for debugging

    def in_range(self, x):
        """0 <= x < N, built once per term (the hypotheses ask it of every term many times)."""
        key = x.get_id()
        hit = self._ranges.get(key)
        if hit is None:
            hit = self._ranges[key] = (x, z3.And(x >= 0, x < self.enc.N))
        return hit[1]

    def clause(self, c, st, env):
        return _or([self.atom(a, st, env) if pol else _not(self.atom(a, st, env)) for a, pol in c])

    def atom(self, a, st, env):
        """An atom read in a state, cached on the state (atoms recur in many clauses)."""
        cache = st.__dict__.setdefault("_atoms", {})
        key = (a, tuple((k, v.get_id()) for k, v in sorted(env.items())))
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = holds(a, st, env)
        return hit

    def structure(self, st, x) -> list:
        """What every state of the commands satisfies by construction, at rank x."""
        k, h = self.gc.kernel, self.gc.host
        kpos = (gcs.IDLE,) + k.visible() + (k.done,)
        hpos = h.visible() + (h.done,)
        return [z3.Or([st.kpc(x) == v for v in kpos]), z3.Or([st.hpc(x) == v for v in hpos]), st.lc(x) >= 0]

    def hypotheses(self, st, c1, c2, terms, tag: str, index_terms=None):
        """(indicator, instance) pairs: every clause on every (pair of distinct) term(s) in range
        (instances of the pre-state are kept: the contexts share most of them); an index clause
        also on every index term (`index_terms`, else `terms`) in its dimension's range."""
        out = []
        idx = terms if index_terms is None else index_terms
        for k, c in enumerate(c1):
            ks = [()] if invariants.index_of(c) is None else [(v,) for v in idx]
            inst = [self._instance(st, "1", k, c, (x, *v)) for x in terms for v in ks]
            out.append((("1", k), z3.Bool(f"h1_{k}{tag}"), _and(inst)))
        for k, c in enumerate(c2):
            ks = [()] if invariants.index_of(c) is None else [(v,) for v in idx]
            inst = [self._instance(st, "2", k, c, (*xy, *v)) for xy in itertools.permutations(terms, 2) for v in ks]
            out.append((("2", k), z3.Bool(f"h2_{k}{tag}"), _and(inst)))
        return out

    def _instance(self, st, kind, k, c, xs):
        key = (kind, c, tuple(x.get_id() for x in xs)) if st is self.pre else None
        hit = self._instances.get(key) if key else None
        if hit is None:
            n = 1 if kind == "1" else 2
            env = dict(zip(("i", "j")[:n], xs))
            cond = self.in_range(xs[0]) if n == 1 else self._pair(xs[0], xs[1])
            if len(xs) > n:  # an index clause: k in its dimension
                env["k"] = xs[n]
                cond = _and([cond, self.index_range(c, xs[n])])
            hit = _implies(cond, self.clause(c, st, env))
            if key:
                self._instances[key] = hit
        return hit

    def index_range(self, c, v):
        """0 <= v < the dimension of index clause c's variable (built once per dimension and term)."""
        where = invariants.index_of(c)
        key = (where, v.get_id())
        hit = self._ranges.get(key)
        if hit is None:
            dim = self._ranges.get(where)
            if dim is None:
                dim = self._ranges[where] = self.enc.dim(self.gc.sizes.dims_of(where[0])[where[1]])
            hit = self._ranges[key] = (v, _and([v >= 0, v < dim]))
        return hit[1]

    def _pair(self, x, y):
        """0 <= x, y < N and x != y, built once per pair of terms."""
        key = (x.get_id(), y.get_id())
        hit = self._pairs.get(key)
        if hit is None:
            hit = self._pairs[key] = (x, y, z3.And(self.in_range(x), self.in_range(y), x != y))
        return hit[2]

    def _base(self, terms):
        s = _solver()
        s.add(*self._base_assertions(terms))
        return s

    def _base_assertions(self, terms) -> list:
        return list(self.domain) + [z3.Implies(self.in_range(x), z3.And(self.structure(self.pre, x))) for x in terms]

    def contexts(self):
        """(name, solver-less description): the initial state and every step."""
        yield "initial state", None
        for st in steps(self.enc, self.pre, self.a):
            yield st.name, st

    def drop_tautologies(self, c1: list, c2: list) -> tuple[list, list]:
        """The candidates that some state of the signature falsifies: a clause true of every
        valuation (`not (p@i == j) or not (p@i < j)`) says nothing and only costs."""
        s = _solver()
        s.add(*self.domain, self.in_range(self.s), self.in_range(self.t), self.s != self.t)
        s.add(*self.structure(self.pre, self.s), *self.structure(self.pre, self.t))
        out = []
        for cs, env in ((c1, {"i": self.s, "k": self.u}), (c2, {"i": self.s, "j": self.t, "k": self.u})):
            keep = []
            for c in cs:
                s.push()
                if invariants.index_of(c) is not None:
                    s.add(self.index_range(c, self.u))
                s.add(z3.Not(self.clause(c, self.pre, env)))
                if s.check() != z3.unsat:  # unknown: keep it (Houdini decides)
                    keep.append(c)
                s.pop()
            out.append(keep)
        return out[0], out[1]

    def _context(self, st, c1, c2):
        """(post-state, assertions, hypotheses) of the initial state (st None) or of a step: the
        pre-state's structure on the terms, the acting rank in range, the step's guard."""
        if st is None:
            return Initial(self.enc), list(self.domain), []
        terms = _dedup([self.a, self.s, self.t] + st.terms)
        base = self._base_assertions(terms) + [self.in_range(self.a), *st.guard]
        return st.post, base, self.hypotheses(self.pre, c1, c2, terms, "", [self.u] + self.index_terms(st))

    def index_terms(self, st) -> list:
        """Where index clauses are instantiated around a step: the indices it reads or writes, and
        the acting rank's loop counters before and after it."""
        counters = sorted({lp.slot for lp in self.gc.kernel.loops})
        return _dedup(st.indices + [v for c in counters for v in (self.pre.kloc(c, self.a), st.post.kloc(c, self.a))])

    def _skolems(self) -> list:
        return [self.in_range(self.s), self.in_range(self.t), self.s != self.t]

    def _goals(self, post, c1, c2):
        """(key, clause read in `post` at the Skolem ranks s, t, and index u in range) per candidate."""
        def goal(c, env):
            if invariants.index_of(c) is None:
                return self.clause(c, post, env)
            return _implies(self.index_range(c, self.u), self.clause(c, post, {**env, "k": self.u}))

        out = [(("1", k), goal(c, {"i": self.s})) for k, c in enumerate(c1)]
        return out + [(("2", k), goal(c, {"i": self.s, "j": self.t})) for k, c in enumerate(c2)]

    def houdini(self, c1: list, c2: list, deadline=None) -> tuple[list, list]:
        alive = {("1", k) for k in range(len(c1))} | {("2", k) for k in range(len(c2))}
        ctxs = []
        for name, st in self.contexts():
            post, base, hyps = self._context(st, c1, c2)
            s = _solver()
            # no relevancy propagation: z3 then asserts every atom; the same answers (a
            # heuristic of the search only), about half the check time of epoch_counter's
            # Houdini (whose fixpoint does not depend on the models z3 picks)
            s.set("smt.relevancy", 0)
            s.add(*base)
            for key, ind, inst in hyps:
                s.add(z3.Implies(ind, inst))
            s.add(*self._skolems())
            goals = {}
            for key, clause in self._goals(post, c1, c2):
                g = z3.Bool(f"g{key[0]}_{key[1]}")
                s.add(g == clause)
                goals[key] = (g, _not(g))
            ctxs.append((name, s, hyps, goals))
        changed = True
        while changed:
            changed = False
            for name, s, hyps, goals in ctxs:
                while True:
                    s.push()
                    s.add(_or([goals[key][1] for key in sorted(alive)]))
                    self.queries += 1
                    r = _check(s, *[ind for key, ind, _ in hyps if key in alive])
                    if r == z3.unsat:
                        s.pop()
                        break
                    m = s.model()
                    dead = {key for key in alive if z3.is_false(m.eval(goals[key][0], model_completion=True))}
                    s.pop()
                    assert dead, "a model that falsifies no goal"
                    if self.trace is not None:
                        self.trace(name, dead, m)
                    alive -= dead
                    changed = True
        return [c for k, c in enumerate(c1) if ("1", k) in alive], [c for k, c in enumerate(c2) if ("2", k) in alive]

    # ------------------------------------------------------------ the counting lemma

    def passed(self, lem: Counting, st, x, h):
        """Rank x has done its TNOTIFY into `lem.signal` at rank h (in state st), read from x's
        own position and loop counter only: past the loop (or the kernel run and joined), or
        in it with h below the counter (at or below it after the TNOTIFY in the body)."""
        k, host = self.gc.kernel, self.gc.host
        q, i = st.kpc(x), st.kloc(lem.slot, x)
        launches = [pc for pc in host.visible() if isinstance(host.instrs[pc], ir.Launch)]
        cases = [z3.And(q == gcs.IDLE, *[st.hpc(x) != pc for pc in launches]), q == k.done]
        for v in k.visible():
            if v > lem.back:
                cases.append(q == v)
            elif lem.header < v < lem.back:
                cases.append(z3.And(q == v, h < i if v <= lem.notify else h <= i))
        out = z3.Or(cases)
        return z3.And(out, h != x) if lem.self_excluded else out

    def passed_in(self, lem: Counting, view, x: int, h: int) -> bool:
        """`passed` in a concrete state (checker.invariants.ConcreteView): for the tests that
        check the lemma on every state the explicit sizes reach."""
        return z3.is_true(z3.simplify(z3.And(True, self.passed(lem, view, x, h))))

    def counting_queries(self, lem: Counting, c1, c2) -> list[tuple[list, str]]:
        """(assertions, what unsat shows) establishing `lem` (with the invariant (c1, c2) as
        hypotheses in the pre-state): no rank has passed in the initial state; a step of rank
        a that writes the signal at h0 adds exactly `add` to it, and flips passed(a, h0) from
        false to true and no other passed(a, h); every other step changes no passed(a, h).
        (A step changes only its own rank's fields, and passed(x, .) reads only rank x's.)"""
        h = z3.Int(f"h_{lem.signal}")
        label = f"the counting lemma of {lem.signal}"
        out = [([*self.domain, self.in_range(self.s), self.in_range(h), self.passed(lem, Initial(self.enc), self.s, h)],
                f"{label}: no rank has notified in the initial state")]
        for st in steps(self.enc, self.pre, self.a):
            terms = _dedup([self.a, h] + st.terms)
            base = self._base_assertions(terms) + [self.in_range(self.a), self.in_range(h), *st.guard]
            base += [inst for _, _, inst in self.hypotheses(self.pre, c1, c2, terms, "")]
            pre = lambda y: self.passed(lem, self.pre, self.a, y)  # noqa: E731
            post = lambda y: self.passed(lem, st.post, self.a, y)  # noqa: E731
            w = st.post.write
            if w is not None and w[0] == lem.signal:
                holder, new = w[1], w[3]
                goal = z3.And(new == self.pre.cell(lem.signal, holder, []) + lem.add,
                              z3.Not(pre(holder)), post(holder), z3.Implies(h != holder, post(h) == pre(h)))
                base.append(self.in_range(holder))
            else:
                goal = post(h) == pre(h)
            out.append((base + [z3.Not(goal)], f"{label}: {st.name} keeps it"))
        return out

    def counting(self, c1, c2, candidates=None) -> list[Counting]:
        """The lemmas established (per signal the first candidate whose queries are all unsat)."""
        out: list[Counting] = []
        for lem in counting_candidates(self.gc) if candidates is None else candidates:
            if any(x.signal == lem.signal for x in out):
                continue
            ok = True
            for assertions, _ in self.counting_queries(lem, c1, c2):
                s = _solver()
                s.add(*assertions)
                self.queries += 1
                if _check(s) != z3.unsat:
                    ok = False
                    break
            if ok:
                out.append(lem)
        return out

    def witness(self, lem: Counting):
        return z3.Function(f"unnotified_{lem.signal}", z3.IntSort(), z3.IntSort())

    def counting_facts(self, lem: Counting, st, terms, acting=None, witnessed=()) -> list:
        """Consequences of the established lemma (count = init + add * |S_h|, S_h the ranks that
        passed for h, h not in S_h when self-excluded; B = N - 1 then, else N; add > 0):
        init <= count <= init + add*B at every term; count <= init + add*(B-1) when `acting`
        has not passed for h (and is not h, self-excluded); and for h in `witnessed`:
        count < init + add*B implies the Skolem rank W(h) is in range, has not passed for h
        (and is not h): some rank outside S_h exists when |S_h| < B."""
        N, c, init = self.enc.N, lem.add, lem.init
        B = N - 1 if lem.self_excluded else N
        cell = lambda y: st.cell(lem.signal, y, [])  # noqa: E731
        out = [z3.Implies(self.in_range(y), z3.And(cell(y) >= init, cell(y) <= init + c * B)) for y in terms]
        if acting is not None:
            for y in terms:
                other = [acting != y] if lem.self_excluded else []
                out.append(z3.Implies(z3.And(self.in_range(y), self.in_range(acting), *other,
                                             z3.Not(self.passed(lem, st, acting, y))),
                                      cell(y) <= init + c * (B - 1)))
        W = self.witness(lem)
        for y in witnessed:
            other = [W(y) != y] if lem.self_excluded else []
            out.append(z3.Implies(z3.And(self.in_range(y), cell(y) < init + c * B),
                                  z3.And(self.in_range(W(y)), *other, z3.Not(self.passed(lem, st, W(y), y)))))
        return out

    # ------------------------------------------------------------ final obligations

    def obligations(self, c1, c2, readers: dict, lemmas=()) -> list[str]:
        """What the invariant does not settle: faults, overflows, a Set that may lose a value
        (`loses`: some wait on the signal, run by the holder, accepts the old value and not the
        new one). Empty: all proved."""
        failed = []
        for base, items in self._obligation_groups(c1, c2, readers, lemmas):
            s = _solver()
            s.add(*base)
            for extra, what in items:
                s.push()
                s.add(*extra)
                self.queries += 1
                if _check(s) != z3.unsat:
                    failed.append(what)
                s.pop()
        return failed

    def _obligation_groups(self, c1, c2, readers: dict, lemmas=()):
        """(shared assertions, [(assertions, what is shown when unsat)]): the hosts' first local
        statements, then per step its fault checks and the lost-notification condition of a Set."""
        zero = lambda slot: z3.IntVal(0)  # noqa: E731
        items = []
        for p in self.gc.host.entry:
            checks: list = []
            _path(self.enc, p, zero, self.a, z3.IntVal(0), [], checks, "host start")
            items += [([pre, z3.Not(ok)], what) for pre, ok, what in checks]
        for sig in self.gc.signals:  # a computed dimension must stay a size at every size
            for d in self.gc.sizes.dims_of(sig.name):
                if isinstance(d, (str, int)):
                    continue
                self.enc.divisors = []
                term = self.enc.dim(d)
                faults, self.enc.divisors = self.enc.divisors, None
                items += [([z3.Not(ok)], f"{what} in a dimension of signal `{sig.name}` at {sig.span}")
                          for ok, what in faults]
                items.append(([term < 1], f"a dimension of signal `{sig.name}` may be below 1 at {sig.span}"))
        yield [*self.domain, self.in_range(self.a)], items
        for st in steps(self.enc, self.pre, self.a):
            terms = _dedup([self.a] + st.terms)
            base = self._base_assertions(terms) + [self.in_range(self.a)]
            base += [inst for _, _, inst in self.hypotheses(self.pre, c1, c2, terms, "", self.index_terms(st))]
            for lem in lemmas:
                base += self.counting_facts(lem, self.pre, terms, acting=self.a)
            items = [([pre, z3.Not(ok)], what) for pre, ok, what in st.checks]
            if st.notify is not None and st.notify[0].op == ir.SET:
                x = st.notify[0]
                waits = readers.get(x.view.signal.name, ())
                cmps = "/".join(sorted({w.cmp for w in waits}))
                items.append(([*st.guard, self.loses(st.notify, waits)],
                              f"lost notification: the Set at {x.span} may replace a value a "
                              f"{cmps} wait still needs (not proved)"))
            if st.reset is not None and self.launch_after(st.reset[0]):
                x, idxs = st.reset
                sig = x.view.signal
                waits = readers.get(sig.name, ())
                cmps = "/".join(sorted({w.cmp for w in waits}))
                if not x.view.selectors:  # any element of the signal
                    idxs = [z3.Int(f"reset_index{d}") for d in range(len(sig.dims))]
                    base = base + [z3.And(i >= 0, i < self.enc.dim(d))
                                   for i, d in zip(idxs, self.gc.sizes.dims_of(sig.name))]
                old = self.pre.cell(sig.name, self.a, idxs)
                lost = self.loses((x, old, z3.IntVal(sig.init), self.a, idxs), waits)
                items.append(([*st.guard, lost], f"lost notification: the reset at {x.span} may erase a value a "
                                                 f"{cmps} wait of a later launch still needs (not proved)"))
            yield base, items
        if self.gc.program.clean_exit:
            yield from self._clean_exit(c1, c2, lemmas)

    def launch_after(self, reset) -> bool:
        """Whether the host can launch its kernel again after `reset` (its code read as a graph).
        If not, no reader of the rank's cells is left: its kernel has returned (a reset stands
        after a join or before the first launch) and the fragment has no host waits, so a reset
        there loses nothing."""
        instrs = self.gc.host.instrs
        start = instrs.index(reset) + 1
        seen, todo = set(), [start]
        while todo:
            pc = todo.pop()
            if pc in seen or pc >= len(instrs):
                continue
            seen.add(pc)
            x = instrs[pc]
            if isinstance(x, ir.Launch):
                return True
            if isinstance(x, ir.Jump):
                todo.append(x.target)
            elif isinstance(x, ir.Branch):
                todo += [x.target, pc + 1]
            elif not isinstance(x, ir.Return):
                todo.append(pc + 1)
        return False

    def loses(self, notify, waits):
        """Satisfiable when the Set `notify` may replace a value that some wait on its signal
        accepts by a value that wait rejects: the condition under which the contract calls a
        notification lost (its other conditions, a reader still to read it, are not asked, so
        unsat is sufficient, not necessary). The readers of a cell are the processes of the
        rank that holds it, so each wait is asked as run by the holder (`rank`), with fresh
        values for its locals and launch_id, its selectors equal to the written indices:
        `TWAIT(hello[p], p + 1, EQ)` reads hello[3] only with threshold 4, while a threshold
        of locals the selectors do not fix may be anything (then only `new == old`, or a
        rising value for GE/GT waits, a falling one for LE/LT, keeps it)."""
        x, old, new, holder, idxs = notify
        bad = []
        for n, w in enumerate(waits):
            loc = {s: z3.Int(f"reader{n}_{s}") for s in range(self.gc.kernel.nslots)}
            lid = z3.Int(f"reader{n}_launch_id")
            at = [lid >= 0]
            at += [self.enc.expr(sel.expr, loc.__getitem__, holder, lid) == i
                   for sel, i in zip(w.view.selectors, idxs)]
            t = self.enc.expr(w.value, loc.__getitem__, holder, lid)
            cmp = COMPARISON[w.cmp]
            bad.append(z3.And(*at, cmp.holds(old, t), z3.Not(cmp.holds(new, t))))
        return z3.And(new != old, _or(bad))

    def _clean_exit(self, c1, c2, lemmas=()):
        """dirty_exit (`check clean_exit`), per signal: a reachable final state in which the
        cell of a holder h at indices e differs from INIT. Every rank is final there (host done,
        kernel idle or done); the query asserts it of h and of the indices (an index that is
        not a rank in range makes that instance vacuous) and instantiates the invariant on them,
        which every reachable final state satisfies: unsat rules out a dirty exit."""
        gc, enc, st = self.gc, self.enc, self.pre
        k, h = gc.kernel, gc.host
        holder = z3.Int("holder")
        for sig in gc.signals:
            idxs, bounds = [], []
            for d, dim in enumerate(gc.sizes.dims_of(sig.name)):
                e = z3.Int(f"e{d}")
                idxs.append(e)
                bounds += [e >= 0, e < enc.dim(dim)]
            terms = _dedup([holder, *idxs])
            base = self._base_assertions(terms) + [self.in_range(holder), *bounds]
            base += [inst for _, _, inst in self.hypotheses(st, c1, c2, terms, "", idxs)]
            for lem in lemmas:
                base += self.counting_facts(lem, st, terms)
            base += [z3.Implies(self.in_range(x), z3.And(st.hpc(x) == h.done,
                                                         z3.Or(st.kpc(x) == gcs.IDLE, st.kpc(x) == k.done)))
                     for x in terms]
            yield base, [([st.cell(sig.name, holder, idxs) != sig.init],
                          f"dirty exit: `{sig.name}` may differ from its initial value {sig.init} when every "
                          f"host has finished (not proved)")]

    def deadlock_free(self, c1, c2, lemmas=()) -> bool:
        """The min-progress lemma closes with the invariant (see `_deadlock`)."""
        s = _solver()
        s.add(*self._deadlock(c1, c2, lemmas))
        self.queries += 1
        return _check(s) == z3.unsat

    def _deadlock(self, c1, c2, lemmas=()) -> list:
        """Min-progress lemma: in a reachable state that is not final, take a rank m of least
        progress key; if every rank (instantiated: m, a non-final rank n, m's neighbours, the
        ranks in m's locals and in the cells it waits on, and with a counting lemma the ranks
        W(m), W(n) that have not yet notified m, n) is disabled, the invariant (and the
        lemmas' facts) must be contradicted."""
        gc, enc, st = self.gc, self.enc, self.pre
        k, h = gc.kernel, gc.host
        m, n = z3.Ints("m n")
        N = enc.N
        terms = [m, n, z3.If(m + 1 == N, 0, m + 1), z3.If(m == 0, N - 1, m - 1)]
        terms += [st.kloc(s, m) for s in range(k.nslots)]
        kloc = lambda s: st.kloc(s, m)  # noqa: E731
        indices = []  # where index clauses are instantiated: the indices m's waits read
        for pc, _ in k.after:
            x = k.instrs[pc]
            indices += [enc.expr(sel.expr, kloc, m, st.lc(m) - 1) for sel in x.view.selectors]
            if x.view.at is not None:
                terms.append(enc.expr(x.view.at, kloc, m, st.lc(m) - 1))
        terms += indices + [self.witness(lem)(y) for lem in lemmas for y in (m, n)]
        terms = _dedup(terms)
        out = self._base_assertions(terms) + [inst for _, _, inst in self.hypotheses(st, c1, c2, terms, "",
                                                                                     _dedup(indices))]
        for lem in lemmas:
            out += self.counting_facts(lem, st, terms, witnessed=(m, n))
        out += [self.in_range(m), self.in_range(n)]
        out.append(z3.Or(st.hpc(n) != h.done, z3.And(st.kpc(n) != gcs.IDLE, st.kpc(n) != k.done)))
        out += [z3.Implies(self.in_range(x), z3.And(z3.Not(self.enabled(x)), self.key_le(m, x))) for x in terms]
        return out

    # ------------------------------------------------------------ certificates

    def certificate(self, c1, c2, readers: dict, lemmas=()) -> list[tuple[str, str, str]]:
        """(kind, what it shows, SMT-LIB 2 text) of every query of the proof with the invariant
        (c1, c2): initiation, consecution per step, each obligation, the deadlock lemma. Each
        text is a closed problem (declarations, assertions, check-sat) that is unsat exactly
        when its part of the proof holds: another solver can re-check it."""
        out = []
        for name, st in self.contexts():
            post, base, hyps = self._context(st, c1, c2)
            goal = z3.Not(z3.And([c for _, c in self._goals(post, c1, c2)]))
            out.append(("initiation" if st is None else "consecution", f"the invariant holds after: {name}",
                        smt2(base + [inst for _, _, inst in hyps] + self._skolems() + [goal])))
        for lem in lemmas:
            out += [("lemma", what, smt2(q)) for q, what in self.counting_queries(lem, c1, c2)]
        for base, items in self._obligation_groups(c1, c2, readers, lemmas):
            out += [("obligation", f"never: {what}", smt2(base + extra)) for extra, what in items]
        out.append(("deadlock", "the min-progress lemma: some rank can always move until all are done",
                    smt2(self._deadlock(c1, c2, lemmas))))
        return out

    def enabled(self, x):
        gc, st, enc = self.gc, self.pre, self.enc
        k, h = gc.kernel, gc.host
        out = []
        for pc, _ in h.after:
            if isinstance(h.instrs[pc], (ir.Launch, ir.Reset)):
                out.append(st.hpc(x) == pc)
            else:
                out.append(z3.And(st.hpc(x) == pc, st.kpc(x) == k.done))
        kloc = lambda s: st.kloc(s, x)  # noqa: E731
        for pc, _ in k.after:
            y = k.instrs[pc]
            if isinstance(y, (ir.Notify, ir.Test)):  # a TTEST is one poll: it always moves
                out.append(st.kpc(x) == pc)
            else:
                lid = st.lc(x) - 1
                idxs = [enc.expr(sel.expr, kloc, x, lid) for sel in y.view.selectors]
                v = enc.expr(y.value, kloc, x, lid)
                out.append(z3.And(st.kpc(x) == pc, COMPARISON[y.cmp].holds(st.cell(y.view.signal.name, x, idxs), v)))
        return z3.Or(out)

    def key_le(self, x, y):
        """(launches, host position, kernel progress key) of x <= that of y, lexicographically."""
        st, k = self.pre, self.gc.kernel
        kpos = (gcs.IDLE,) + k.visible() + (k.done,)

        def items(pc, r):
            return [z3.IntVal(v) if kind == "c" else st.kloc(v, r) for kind, v in k.key(pc)]

        # the rank number decides a tie (a total order on processes, as the lemma allows): a
        # chain in which every rank waits for the one before it ends at its least-numbered waiter
        kle = z3.Or([z3.And(st.kpc(x) == p, st.kpc(y) == q, _lex_le(items(p, x), items(q, y), x <= y))
                     for p in kpos for q in kpos])
        if self.gc.host.loops or self.gc.program.uses_launch_id:
            return _lex_le([st.lc(x), st.hpc(x)], [st.lc(y), st.hpc(y)], kle)
        return _lex_le([st.hpc(x)], [st.hpc(y)], kle)  # one launch: the launch count is not tracked


def smt2(assertions: list) -> str:
    """A closed SMT-LIB 2 problem: the logic, the declarations, the assertions, check-sat."""
    s = z3.Solver()
    s.add(*assertions)
    # z3 prints an empty conjunction (disjunction) as a bare `and` (`or`), which is not SMT-LIB
    text = _EMPTY_OR.sub("false", _EMPTY_AND.sub("true", s.to_smt2()))
    return "(set-logic ALL)\n" + text


_EMPTY_AND = re.compile(r"(?<![(|\w])and(?=[\s)])")
_EMPTY_OR = re.compile(r"(?<![(|\w])or(?=[\s)])")


def same_problem(a: str, b: str) -> bool:
    """Whether two SMT-LIB 2 texts assert the same terms (z3 reads both: equal up to the names
    of `let` bindings and the layout, which differ between runs)."""
    try:
        x, y = z3.parse_smt2_string(a), z3.parse_smt2_string(b)
    except z3.Z3Exception:
        return False
    return len(x) == len(y) and all(p.eq(q) for p, q in zip(x, y))


SOLVERS = ("z3", "cvc5")


def available(solver: str) -> str | None:
    """None when `solver` can re-check certificates here, else why not."""
    if solver == "z3":
        return None
    try:
        import cvc5  # noqa: F401, PLC0415 - optional: not a dependency of sigproof
    except ImportError:
        return "the cvc5 Python package is not installed (pip install cvc5)"
    return None


def recheck(text: str, solver: str = "z3", timeout_ms: int = TIMEOUT_MS) -> str:
    """'unsat', 'sat' or 'unknown': `solver`'s answer to an SMT-LIB 2 problem, read from its text."""
    if solver == "z3":
        s = _solver()
        s.set("timeout", timeout_ms)
        s.from_string(text)
        return str(s.check())
    import cvc5  # noqa: PLC0415

    tm = cvc5.TermManager()
    s = cvc5.Solver(tm)
    s.setOption("tlimit-per", str(timeout_ms))
    parser = cvc5.InputParser(s)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    sm = parser.getSymbolManager()
    answer = "unknown"
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        said = cmd.invoke(s, sm).strip()
        if said in ("sat", "unsat", "unknown"):
            answer = said
    return answer


def _lex_le(a: list, b: list, tail=None):
    """a <= b lexicographically (a proper prefix is smaller); `tail` decides a tie."""
    if not a and not b:
        return z3.BoolVal(True) if tail is None else tail
    if not a:
        return z3.BoolVal(True)
    if not b:
        return z3.BoolVal(False)
    return z3.Or(a[0] < b[0], z3.And(a[0] == b[0], _lex_le(a[1:], b[1:], tail)))

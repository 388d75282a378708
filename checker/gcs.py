"""The guarded-command view of a program with symbolic sizes (the prover's model of the IR).

`translate(program, sizes)` gives a `Commands` value: per rank, a host and one kernel process
(one block), each at a visible position; one command per visible instruction, with the local
code up to the next visible instruction folded in as a finite set of symbolic `Path`s (guards
and simultaneous updates over the pre-state). Constants keep their provenance through
`Sizes.const`, so the same commands mean the program at every size. `Concrete` runs the
commands at one size (for mining candidate invariants and for the differential test against
model.System); checker/prove_smt.py reads the same commands as formulas.

Known limitations (Unsupported with the location): more than one block, tensor or remote
waits or TTESTs, a reset of part of a signal, host_barrier, asserts, local arrays, any(), data buffers, loops other
than `for (i = a; i < b; i += c)` with a bound the body does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from model import cint, ir
from model.errors import ModelError
from model.params import SYNTHETIC, Sizes, Unsupported

IDLE, DONE_OFFSET = -1, 0  # kernel not running; a finished process stands at len(instrs)
TRUNCATED = -2  # a path cut off by the unrolling bound (must be infeasible)
VISITS = 3  # how often one path may pass one instruction
BUILTIN_NAMES = ("rank", "block", "launch_id")  # other Builtin names are symbolic params (model/params.py)
_NODE_NAMES = {ir.ArrayRead: "a local array element", ir.TestExpr: "TTEST", ir.LoadExpr: "LOAD",
               ir.FetchAddExpr: "FETCH_ADD", ir.CasExpr: "CAS", ir.TestEventExpr: "TEST_EVENT"}
_BIT_OPS = ("<<", ">>", "&", "|", "^")
_EXPRS = (ir.Const, ir.Local, ir.Builtin, ir.Unary, ir.Binary, ir.Select)


@dataclass(frozen=True)
class Path:
    """Guards in evaluation order, then the updates; `dest` the next visible pc (len = done)."""

    guards: tuple[tuple[ir.Expr, bool], ...]
    updates: tuple[tuple[int, ir.Expr], ...]
    dest: int
    span: object  # where the path's last instruction is (for messages)


@dataclass(frozen=True)
class Loop:
    header: int  # the Branch `i < bound`
    back: int  # the Jump back to it
    slot: int  # the counter i


@dataclass(frozen=True)
class Code:
    kind: str  # "kernel" | "host"
    instrs: tuple
    nslots: int
    slot_names: tuple[str, ...]
    entry: tuple[Path, ...]  # from a fresh start (locals 0)
    after: tuple[tuple[int, tuple[Path, ...]], ...]  # visible pc -> paths after it
    loops: tuple[Loop, ...]

    @property
    def done(self) -> int:
        return len(self.instrs)

    def paths_after(self, pc: int) -> tuple[Path, ...]:
        return dict(self.after)[pc]

    def visible(self) -> tuple[int, ...]:
        return tuple(pc for pc, _ in self.after)

    def key(self, pc: int) -> tuple:
        """The progress key of a position: ('c', header or pc) and ('l', counter slot) items,
        lexicographic (any total preorder is sound for the min lemma; this one follows the code)."""
        if pc in (IDLE, self.done):
            return (("c", pc),)
        out = []
        for lp in sorted(self.loops, key=lambda x: x.header):
            if lp.header < pc < lp.back:
                out += [("c", lp.header), ("l", lp.slot)]
        return tuple(out) + (("c", pc),)

    def past_items(self, pc: int) -> tuple:
        """`key(pc)` with its innermost loop counter left open as ('v', None): a process is past
        `pc` at iteration v when its own key (outer counters its own) is above this one with v
        in the open place (checker/invariants.py's `past` atoms, read by both backends)."""
        items = list(self.key(pc))
        inner = max((n for n, (kind, _) in enumerate(items) if kind == "l"), default=None)
        if inner is not None:
            items[inner] = ("v", None)
        return tuple(items)


@dataclass(frozen=True)
class Commands:
    program: ir.Program
    sizes: Sizes
    kernel: Code
    host: Code
    signals: tuple[ir.SignalInfo, ...]

    def const(self, c: ir.Const):
        return self.sizes.const(c)


# ---------------------------------------------------------------- translation


def translate(program: ir.Program, sizes: Sizes, feasible=None) -> Commands:
    """`feasible(guards)` (optional) may prune local paths whose guards no values satisfy
    (checker/prove_smt.py's `feasibility`); answering True is always safe."""
    if program.nblocks != 1:
        raise Unsupported("more than one kernel block per rank", None)
    if program.buffers:
        raise Unsupported("data buffers", program.buffers[0].span)
    kernel = _code(program.kernel, "kernel", sizes, feasible)
    host = _code(program.host, "host", sizes, feasible)
    return Commands(program, sizes, kernel, host, program.signals)


def _code(code: ir.Code, kind: str, sizes: Sizes, feasible) -> Code:
    instrs = code.instrs
    for pc, x in enumerate(instrs):
        _supported(x, kind, sizes)
    loops = _loops(instrs)
    zero = {s: ir.Const(0, SYNTHETIC) for s in range(code.nslots)}
    entry = tuple(_paths(instrs, 0, zero, feasible))
    after = []
    for pc, x in enumerate(instrs):
        if x.visible:
            nxt = pc + 1
            if isinstance(x, ir.Launch):  # the host stands at the Join next
                after.append((pc, (Path((), (), nxt, x.span),)))
            else:
                after.append((pc, tuple(_paths(instrs, nxt, {}, feasible))))
    return Code(kind, instrs, code.nslots, code.slot_names, entry, tuple(after), tuple(loops))


def _supported(x, kind: str, sizes: Sizes) -> None:
    allowed = (ir.Assign, ir.Jump, ir.Branch, ir.Return, ir.Notify, ir.Wait, ir.Test) if kind == "kernel" else \
        (ir.Assign, ir.Jump, ir.Branch, ir.Return, ir.Launch, ir.Join, ir.Reset)
    if not isinstance(x, allowed):
        raise Unsupported(f"'{x.text}'", x.span)
    exprs = []
    if isinstance(x, ir.Reset):  # the whole signal, or one element, of the own rank
        v = x.view
        if v.layout is not None or v.at is not None or \
                (v.selectors and (len(v.selectors) != len(v.signal.dims) or
                                  not all(isinstance(s, ir.Index) for s in v.selectors))):
            raise Unsupported("a reset of part of a signal (the prover handles a whole signal or one element)",
                              v.span)
        exprs += [s.expr for s in v.selectors]
    if isinstance(x, ir.Assign):
        exprs.append(x.value)
    elif isinstance(x, ir.Branch):
        exprs.append(x.cond)
    elif isinstance(x, (ir.Notify, ir.Wait, ir.Test)):
        v = x.view
        if v.layout is not None or len(v.selectors) != len(v.signal.dims) or \
                not all(isinstance(s, ir.Index) for s in v.selectors):
            raise Unsupported("a signal view of more than one element (the prover handles single elements)", v.span)
        if isinstance(x, (ir.Wait, ir.Test)) and v.at is not None:
            raise Unsupported(f"a {'TWAIT' if isinstance(x, ir.Wait) else 'TTEST'} on another rank's signal", v.span)
        exprs += [x.value, v.at] + [s.expr for s in v.selectors]
    for e in exprs:
        for node in ir.walk(e):
            if not isinstance(node, _EXPRS):
                raise Unsupported(_NODE_NAMES.get(type(node), type(node).__name__), getattr(node, "span", x.span))
            if isinstance(node, ir.Const):
                sizes.const(node)  # raises when the provenance is unknown
            if isinstance(node, ir.Binary) and node.op in _BIT_OPS or isinstance(node, ir.Unary) and node.op == "~":
                raise Unsupported(f"the bit operator '{node.op}'", node.span)


def _loops(instrs) -> list[Loop]:
    """Every back edge must close a counted loop `for (i = a; i < b; i += c)`, c > 0 a literal,
    b not assigned in the loop: then every loop runs finitely often."""
    loops = []
    for j, x in enumerate(instrs):
        if isinstance(x, ir.Branch) and x.target <= j:
            raise Unsupported("a backward branch", x.span)
        if not (isinstance(x, ir.Jump) and x.target <= j):
            continue
        t = x.target
        head, upd = instrs[t], instrs[j - 1] if j >= 1 else None
        why = _counted(instrs, t, j, head, upd)
        if why:
            raise Unsupported(f"the prover needs counted loops `for (i = a; i < b; i += c)` whose bound the "
                              f"loop does not change: {why}", head.span)
        loops.append(Loop(t, j, upd.slot))
    headers = [lp.header for lp in loops]
    if len(set(headers)) != len(headers):
        i = next(h for h in headers if headers.count(h) > 1)
        raise Unsupported("a loop with a `continue` that skips its update", instrs[i].span)
    return loops


def _counted(instrs, t, j, head, upd) -> str | None:
    if not (isinstance(head, ir.Branch) and isinstance(head.cond, ir.Binary) and head.cond.op in ("<", "<=")
            and isinstance(head.cond.left, ir.Local)):
        return "the loop condition is not `i < bound`"
    slot = head.cond.left.slot
    if head.target <= j:
        return "the loop exit is not after the loop"
    if not (isinstance(upd, ir.Assign) and upd.slot == slot and isinstance(upd.value, ir.Binary)
            and upd.value.op == "+" and isinstance(upd.value.left, ir.Local) and upd.value.left.slot == slot
            and isinstance(upd.value.right, ir.Const) and upd.value.right.value > 0):
        return "the counter is not increased by a positive constant at the end of each iteration"
    assigned = {y.slot for y in instrs[t:j + 1] if isinstance(y, ir.Assign)}
    if any(isinstance(y, ir.Assign) and y.slot == slot for y in instrs[t:j - 1]):
        return "the counter is also assigned in the body"
    if any(isinstance(n, ir.Local) and n.slot in assigned for n in ir.walk(head.cond.right)):
        return "the bound is changed in the loop"
    for k in range(t + 1, j):
        y = instrs[k]
        if isinstance(y, (ir.Jump, ir.Branch)) and y.target == j:
            return "a jump skips the update"
    return None


def subst(e: ir.Expr, env: dict) -> ir.Expr:
    if isinstance(e, ir.Local):
        return env.get(e.slot, e)
    if isinstance(e, ir.Unary):
        return ir.Unary(e.op, subst(e.operand, env), e.span)
    if isinstance(e, ir.Binary):
        return ir.Binary(e.op, subst(e.left, env), subst(e.right, env), e.span)
    if isinstance(e, ir.Select):
        return ir.Select(subst(e.test, env), subst(e.then, env), subst(e.orelse, env), e.span)
    return e


def _paths(instrs, start: int, env0: dict, feasible=None):
    """Depth-first over the local code from `start` to the next visible instruction."""
    out = []
    stack = [(start, dict(env0), (), {})]
    while stack:
        pc, env, guards, visits = stack.pop()
        while True:
            if pc >= len(instrs):
                out.append(Path(guards, _updates(env), len(instrs), None))
                break
            x = instrs[pc]
            n = visits.get(pc, 0)
            if n >= VISITS:
                out.append(Path(guards, _updates(env), TRUNCATED, x.span))
                break
            visits = {**visits, pc: n + 1}
            if x.visible:
                out.append(Path(guards, _updates(env), pc, x.span))
                break
            if isinstance(x, ir.Assign):
                env = {**env, x.slot: subst(x.value, env)}
                pc += 1
            elif isinstance(x, ir.Jump):
                pc = x.target
            elif isinstance(x, ir.Return):
                out.append(Path(guards, _updates(env), len(instrs), x.span))
                break
            elif isinstance(x, ir.Branch):
                c = subst(x.cond, env)
                no, yes = guards + ((c, False),), guards + ((c, True),)
                if feasible is None or feasible(no):
                    stack.append((x.target, env, no, visits))
                if feasible is not None and not feasible(yes):
                    break
                guards = yes
                pc += 1
            else:
                raise Unsupported(f"'{x.text}'", x.span)
    return out


def _updates(env: dict) -> tuple:
    return tuple(sorted(env.items()))


# ---------------------------------------------------------------- concrete semantics


class Fault(Exception):
    pass


class GState(tuple):
    """(hpc, hloc, kpc, kloc, lc, sig): per-rank tuples, and the signals flat, rank-major."""


@dataclass
class Concrete:
    """The commands at one size: `initial()`, `successors(state)`, `project(state)`."""

    gc: Commands
    values: dict  # symbol -> int

    def __post_init__(self):
        self.R = self.values[self.gc.sizes.ranks] if isinstance(self.gc.sizes.ranks, str) else self.gc.sizes.ranks
        self.layout = {}
        off = 0
        for s in self.gc.signals:
            try:
                dims = tuple(self.gc.sizes.dim_value(d, self.values) for d in self.gc.sizes.dims_of(s.name))
            except ModelError as err:  # a computed dimension that divides by zero at this size
                raise Fault(err.message) from None
            dims = tuple(max(d, 0) for d in dims)  # none at a size the spec is not written for (an obligation)
            size = 1
            for d in dims:
                size *= d
            self.layout[s.name] = (off, dims, s.init)
            off += size
        self.E = off

    # expressions
    def ev(self, e, L, rank, lid) -> int:
        if isinstance(e, ir.Const):
            x = self.gc.const(e)
            return x.value if isinstance(x, ir.Const) else self.ev(x, L, rank, lid)
        if isinstance(e, ir.Local):
            return L[e.slot]
        if isinstance(e, ir.Builtin):
            if e.name in BUILTIN_NAMES:
                return {"rank": rank, "block": 0, "launch_id": lid}[e.name]
            return self.values[e.name]  # a symbolic param
        try:
            if isinstance(e, ir.Unary):
                return cint.UNARY[e.op](self.ev(e.operand, L, rank, lid), e.span)
            if isinstance(e, ir.Binary):
                a = self.ev(e.left, L, rank, lid)
                if e.op == "&&":
                    return int(bool(a) and bool(self.ev(e.right, L, rank, lid)))
                if e.op == "||":
                    return int(bool(a) or bool(self.ev(e.right, L, rank, lid)))
                return cint.BINARY[e.op](a, self.ev(e.right, L, rank, lid), e.span)
            if isinstance(e, ir.Select):
                t = self.ev(e.test, L, rank, lid)
                return self.ev(e.then if t else e.orelse, L, rank, lid)
        except ModelError as err:
            raise Fault(err.message) from None
        raise AssertionError(e)

    def run(self, paths, L, rank, lid):
        for p in paths:
            if all(bool(self.ev(g, L, rank, lid)) == want for g, want in p.guards):
                if p.dest == TRUNCATED:
                    raise Fault("a local loop ran past the unrolling bound")
                new = list(L)
                for slot, e in p.updates:
                    new[slot] = self.ev(e, L, rank, lid)
                return p.dest, tuple(new)
        raise AssertionError("no path applies")

    def cell(self, view, L, rank, lid) -> tuple[int, int]:
        """(holder rank, flat position in the signals) of a single-element view."""
        holder = rank if view.at is None else self.ev(view.at, L, rank, lid)
        if not 0 <= holder < self.R:
            raise Fault("rank out of range")
        off, dims, _ = self.layout[view.signal.name]
        flat = 0
        for sel, d in zip(view.selectors, dims):
            i = self.ev(sel.expr, L, rank, lid)
            if not 0 <= i < d:
                raise Fault("index out of bounds")
            flat = flat * d + i
        return holder, holder * self.E + off + flat

    def reset_cells(self, view, L, rank) -> list[int]:
        """The flat positions a host's reset clears: one element, or the whole signal of its rank."""
        if view.selectors:
            return [self.cell(view, L, rank, 0)[1]]
        off, dims, _ = self.layout[view.signal.name]
        size = 1
        for d in dims:
            size *= d
        base = rank * self.E + off
        return list(range(base, base + size))

    def initial(self):
        h, k = self.gc.host, self.gc.kernel
        hpc, hloc = [], []
        for r in range(self.R):
            pc, L = self.run(h.entry, (0,) * h.nslots, r, 0)
            hpc.append(pc)
            hloc.append(L)
        sig = []
        for r in range(self.R):
            for s in self.gc.signals:
                off, dims, init = self.layout[s.name]
                size = 1
                for d in dims:
                    size *= d
                sig += [init] * size
        return (tuple(hpc), tuple(hloc), (IDLE,) * self.R, ((0,) * k.nslots,) * self.R, (0,) * self.R, tuple(sig))

    def successors(self, st):
        """(rank, 'host'|'kernel', next state) for every enabled step."""
        hpc, hloc, kpc, kloc, lc, sig = st
        out = []
        h, k = self.gc.host, self.gc.kernel
        for r in range(self.R):
            pc = hpc[r]
            if pc != h.done:
                x = h.instrs[pc]
                if isinstance(x, ir.Launch):
                    kp, KL = self.run(k.entry, (0,) * k.nslots, r, lc[r])
                    out.append((r, "host", (_put(hpc, r, pc + 1), hloc, _put(kpc, r, kp), _put(kloc, r, KL),
                                            _put(lc, r, lc[r] + 1), sig)))
                elif isinstance(x, ir.Join) and kpc[r] == k.done:
                    npc, HL = self.run(h.paths_after(pc), hloc[r], r, 0)
                    out.append((r, "host", (_put(hpc, r, npc), _put(hloc, r, HL), _put(kpc, r, IDLE),
                                            _put(kloc, r, (0,) * k.nslots), lc, sig)))
                elif isinstance(x, ir.Reset):
                    new_sig = list(sig)
                    for pos in self.reset_cells(x.view, hloc[r], r):
                        new_sig[pos] = x.view.signal.init
                    npc, HL = self.run(h.paths_after(pc), hloc[r], r, 0)
                    out.append((r, "host", (_put(hpc, r, npc), _put(hloc, r, HL), kpc, kloc, lc, tuple(new_sig))))
            pc = kpc[r]
            if pc in (IDLE, k.done):
                continue
            x, L, lid = k.instrs[pc], kloc[r], lc[r] - 1
            _, pos = self.cell(x.view, L, r, lid)
            v = self.ev(x.value, L, r, lid)
            if isinstance(x, ir.Wait):
                if not cint.COMPARE[x.cmp](sig[pos], v):
                    continue
                new_sig = sig
            elif isinstance(x, ir.Test):  # one poll: the answer (0 or 1) into its local
                L = _put(L, x.dest, int(cint.COMPARE[x.cmp](sig[pos], v)))
                new_sig = sig
            else:
                nv = v if x.op == ir.SET else sig[pos] + v
                if not ir.INT32_MIN <= nv <= ir.INT32_MAX:
                    raise Fault("overflow")
                new_sig = sig[:pos] + (nv,) + sig[pos + 1:]
            npc, NL = self.run(k.paths_after(pc), L, r, lid)
            out.append((r, "kernel", (hpc, hloc, _put(kpc, r, npc), _put(kloc, r, NL), lc, new_sig)))
        return out

    def reachable(self, limit: int = 200_000) -> list:
        init = self.initial()
        seen = {init: None}
        frontier = [init]
        while frontier:
            nxt = []
            for s in frontier:
                for _, _, t in self.successors(s):
                    if t not in seen:
                        seen[t] = None
                        nxt.append(t)
                        if len(seen) > limit:
                            raise Fault(f"more than {limit} states")
            frontier = nxt
        return list(seen)

    def project(self, st) -> tuple:
        """Per process (hosts, then kernels) its position or None when finished or not
        running, and the signals: what model.System's states are compared on."""
        hpc, _, kpc, _, _, sig = st
        h, k = self.gc.host, self.gc.kernel
        return (tuple(None if p == h.done else p for p in hpc) +
                tuple(None if p in (IDLE, k.done) else p for p in kpc), sig)


def _put(t: tuple, i: int, v) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


def explicit_projection(program: ir.Program, limit: int = 200_000) -> set:
    """The reachable states of model.System (every interleaving, no reduction), projected on
    positions and signals (for the differential test)."""
    from model import System  # noqa: PLC0415

    system = System(program)
    init, _ = system.initial()
    seen = {init}
    frontier = [init]
    while frontier:
        nxt = []
        for s in frontier:
            for step in system.successors(s):
                t = step.next
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
                    if len(seen) > limit:
                        raise Fault(f"more than {limit} states")
        frontier = nxt
    return {(tuple(None if p is None else p[0] for p in s.procs), tuple(s.signals)) for s in seen}

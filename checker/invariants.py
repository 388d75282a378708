"""Candidate invariants: atoms over one or two ranks `i`, `j`, clauses, and mining them from the
states the guarded commands reach at small sizes (the invisible-invariants / DistAI idea).

A term or atom is plain data (tuples); `value(t, backend, env)` evaluates it with a backend
(a concrete state here, z3 terms in checker/prove_smt.py) using Python's operators, so both
readings share one definition. A clause is a tuple of (atom, polarity) literals, read as a
disjunction, universally quantified over i (one-rank clauses) or over i != j (two-rank).
Mined clauses are only candidates: Houdini (checker/prove_smt.py) keeps the inductive ones.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from checker.gcs import IDLE, Commands, Concrete, Fault
from model import ir
from model.check import source_text

MAX_FIXED_DIM = 4  # constant signal dimensions up to this size get one cell per index


def K(signal: str, dim: int) -> tuple:
    """The index variable k of index clauses, over every index of one signal's dimension."""
    return ("ivar", "k", signal, dim)



# ---------------------------------------------------------------- evaluation


def value(t, b, env):
    """The value of term `t` with backend `b` and rank variables `env` ({'i': ..., 'j': ...})."""
    k = t[0]
    if k == "int":
        return b.num(t[1])
    if k == "sym":
        return b.sym(t[1])
    if k == "rank":
        return env[t[1]]
    if k == "add":
        return value(t[1], b, env) + t[2]
    if k in ("kpc", "hpc", "lc"):
        return getattr(b, k)(env[t[1]])
    if k in ("kloc", "hloc"):
        return getattr(b, k)(t[1], env[t[2]])
    if k == "cell":  # the holder: a rank variable, or a fixed rank (("int", 0): a root)
        h = env[t[2]] if isinstance(t[2], str) else value(t[2], b, env)
        return b.cell(t[1], h, tuple(value(x, b, env) for x in t[3]))
    if k == "kexpr":
        return b.kexpr(t[1], env[t[2]])
    if k == "rot":  # how far rank t[2] lies after rank t[1] around the ring: (t[2] - t[1]) mod nranks
        return b.rot(env[t[1]], env[t[2]])
    if k == "ivar":  # the index variable of an index clause
        return env[t[1]]
    if k == "past":  # 1 when rank t[1] is past kernel pc t[2] at iteration t[3] (gcs.Code.past_items), else 0
        return b.past(env[t[1]], t[2], value(t[3], b, env))
    raise AssertionError(t)


def holds(atom, b, env):
    op, l, r = atom
    a, c = value(l, b, env), value(r, b, env)
    if op == "==":
        return a == c
    if op == "<=":
        return a <= c
    return a < c


class ConcreteView:
    """A backend reading one state of `Concrete`."""

    def __init__(self, conc: Concrete, st):
        self.c, self.st = conc, st

    def num(self, k):
        return k

    def sym(self, name):
        return self.c.values[name]

    def rot(self, x, y):
        return (y - x) % self.c.R

    def kpc(self, x):
        return self.st[2][x]

    def hpc(self, x):
        return self.st[0][x]

    def lc(self, x):
        return self.st[4][x]

    def kloc(self, s, x):
        return self.st[3][x][s]

    def hloc(self, s, x):
        return self.st[1][x][s]

    def cell(self, name, h, idxs):
        if not 0 <= h < self.c.R:  # a fixed root beyond the ranks of this size
            raise Fault("rank")
        off, dims, _ = self.c.layout[name]
        flat = 0
        for i, d in zip(idxs, dims):
            if not 0 <= i < d:
                raise Fault("index")
            flat = flat * d + i
        return self.st[5][h * self.c.E + off + flat]

    def kexpr(self, e, x):
        return self.c.ev(e, self.st[3][x], x, self.st[4][x] - 1)

    def past(self, x, pc, v):
        """Rank x's kernel is past `pc` at iteration v in its current run (its progress key above
        `pc`'s with v as the innermost counter), or it is not running after a launch."""
        k, kp = self.c.gc.kernel, self.st[2][x]
        if kp == IDLE:
            return int(self.st[4][x] >= 1)
        loc = self.st[3][x]
        mine = tuple(c if kind == "c" else loc[c] for kind, c in k.key(kp))
        target = tuple(v if kind == "v" else c if kind == "c" else loc[c] for kind, c in k.past_items(pc))
        return int(mine > target)


def index_of(clause):
    """(signal, dimension) whose indices an index clause's variable k ranges over, else None."""
    return _index_of(tuple(clause))


@functools.lru_cache(maxsize=1 << 16)
def _index_of(clause):
    stack = [t for atom, _ in clause for t in atom[1:]]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple) and t:
            if t[0] == "ivar":
                return t[2], t[3]
            stack += [x for x in t if isinstance(x, tuple)]
    return None


def clause_holds_concrete(clause, view, env) -> bool:
    """The clause at the ranks of `env`; an index clause (when env names no k) at every index
    of its dimension."""
    where = index_of(clause)
    if where is not None and "k" not in env:
        _, dims, _ = view.c.layout[where[0]]
        return all(clause_holds_concrete(clause, view, {**env, "k": v}) for v in range(dims[where[1]]))
    for atom, pol in clause:
        try:
            if bool(holds(atom, view, env)) == pol:
                return True
        except Fault:
            continue
    return False


# ---------------------------------------------------------------- the vocabulary


@dataclass(frozen=True)
class Vocabulary:
    guards1: tuple  # atoms of rank i that may be negated in front of one-rank clauses
    facts1: tuple  # atoms of rank i for the last literal
    guards2: tuple
    facts2: tuple
    # per signal dimension that no rank or fixed index covers (`ready[2 * (N - 1)]`): (signal,
    # dimension, guards1, facts1, guards2, facts2) of index clauses, whose cells stand at every
    # index k of that dimension
    index: tuple = ()


def vocabulary(gc: Commands) -> Vocabulary:
    k, h = gc.kernel, gc.host
    syms = [("sym", s) for s in gc.sizes.symbolic]
    consts = [("int", 0), ("int", 1)] + syms + [("int", v) for v in fixed_bounds(gc) if v not in (0, 1)]
    kpos = (IDLE,) + k.visible() + (k.done,)
    hpos = h.visible() + (h.done,)
    counters = {lp.slot for lp in k.loops}
    defs = _definitions(k)
    exprs = _signal_exprs(k)
    track_lc = bool(h.loops) or gc.program.uses_launch_id

    def pcs(x):
        out = [("==", ("kpc", x), ("int", v)) for v in kpos]
        out += [("==", ("hpc", x), ("int", v)) for v in hpos if len(hpos) > 1]
        return out

    def numeric(x):
        out = [("kloc", s, x) for s in range(k.nslots)] + [("hloc", s, x) for s in range(h.nslots)]
        return out + ([("lc", x)] if track_lc else [])

    def local_facts(x):
        out = []
        if isinstance(gc.sizes.ranks, str):  # rank 0 and the last rank (`if (rank != nranks - 1)`)
            last = ("add", ("sym", gc.sizes.ranks), -1)
            out += [("==", ("rank", x), ("int", 0)), ("==", ("rank", x), last)]
        for t in numeric(x):
            for c in consts:
                out += [("==", t, c), ("<=", t, c), ("<=", c, t)]
        for s, e in defs:
            out.append(("==", ("kloc", s, x), ("kexpr", e, x)))
        for slot, bound in _loop_bounds(gc):  # a counter against its loop's bound
            kl, b = ("kloc", slot, x), ("kexpr", bound, x)
            out += [("<", kl, b), ("<=", kl, b)]
        for t1, t2 in itertools.combinations(numeric(x), 2):
            out += [("==", t1, t2), ("<=", t1, t2), ("<=", t2, t1), ("==", ("add", t1, 1), t2),
                    ("==", t1, ("add", t2, 1))]
        return out

    def rank_rel(x, y):
        out = [("==", ("kexpr", e, x), ("rank", y)) for _, e in defs]  # `next = (rank + 1) % nranks` before it runs
        if x != y and chain:  # y is x's successor in rank order (`TNOTIFY(token @ rank + 1, ...)`)
            out.append(("==", ("add", ("rank", x), 1), ("rank", y)))
        for s in range(k.nslots):
            kl, ry = ("kloc", s, x), ("rank", y)
            out += [("==", kl, ry), ("<", kl, ry), ("<=", kl, ry), ("<", ry, kl), ("<=", ry, kl)]
        return out

    roots = [("int", r) for r in _roots(gc)]
    chain = _names_a_neighbour(gc)
    literal_indices = _literal_indices(gc)

    def cells(xs):
        out = []
        for sig in gc.signals:
            dims = gc.sizes.dims_of(sig.name)
            choices = []
            for n, d in enumerate(dims):
                if d == gc.sizes.ranks:
                    choices.append([("rank", y) for y in xs])
                elif isinstance(d, int) and d <= MAX_FIXED_DIM:
                    choices.append([("int", v) for v in range(d)])
                elif isinstance(d, int) and literal_indices.get((sig.name, n)):
                    choices.append([("int", v) for v in literal_indices[(sig.name, n)] if v < d])
                else:
                    choices = None
                    break
            if choices is None:
                continue
            for holder in list(xs) + roots:
                for idx in itertools.product(*choices):
                    out.append(("cell", sig.name, holder, tuple(idx)))
        return out

    def cell_facts(xs):
        exact, offset = list(consts), []
        for x in xs:
            # host locals (launch loop counters) would repeat the launch count
            terms = [t for t in numeric(x) if t[0] != "hloc" or not track_lc]
            exact += terms
            offset += [("add", t, d) for t in terms if t[0] == "lc" or t[0] == "kloc" and t[1] in counters
                       for d in (1, -1)]
            for e in exprs:
                exact.append(("kexpr", e, x))
                offset.append(("add", ("kexpr", e, x), -1))
        out = []
        for c in cells(xs):
            for v in exact:
                out += [("==", c, v), ("<=", c, v), ("<=", v, c)]
            out += [("==", c, v) for v in offset]
        return out

    def rotations(x, y):
        """Atoms on the ring offset (y - x) mod nranks against x's loop counters: only for a kernel
        that walks its peers as `(rank + i) % nranks` with i a local (which, else, no atom relates)."""
        if not _rotated_peers(gc):
            return []
        out = []
        for s in sorted(counters):
            r, kl = ("rot", x, y), ("kloc", s, x)
            out += [("<", r, kl), ("<=", kl, r), ("==", r, kl)]
        return out

    writers = {}  # signal -> the kernel TNOTIFYs into it inside a loop (for `past` atoms)
    for pc, x in enumerate(k.instrs):
        if isinstance(x, ir.Notify) and any(kind == "v" for kind, _ in k.past_items(pc)):
            writers.setdefault(x.view.signal.name, []).append(pc)

    def index_cells(xs):
        """(signal, dimension, cell) with K at the one dimension no rank or fixed index covers."""
        out = []
        for sig in gc.signals:
            choices, open_ = [], []
            for n, d in enumerate(gc.sizes.dims_of(sig.name)):
                if d == gc.sizes.ranks:
                    choices.append([("rank", y) for y in xs])
                elif isinstance(d, int) and d <= MAX_FIXED_DIM:
                    choices.append([("int", v) for v in range(d)])
                elif isinstance(d, int) and literal_indices.get((sig.name, n)):  # as `cells` takes them
                    choices.append([("int", v) for v in literal_indices[(sig.name, n)] if v < d])
                else:
                    choices.append([K(sig.name, n)])
                    open_.append(n)
            if len(open_) == 1:
                out += [(sig.name, open_[0], ("cell", sig.name, holder, tuple(idx)))
                        for holder in list(xs) + roots for idx in itertools.product(*choices)]
        return out

    def index_atoms(xs, sig, n):
        """The index k against the loop counters of the ranks, and whether each rank is past a
        TNOTIFY into the signal at iteration k."""
        k_ = K(sig, n)
        out = []
        for x in xs:
            for s in sorted(counters):
                kl = ("kloc", s, x)
                out += [("<", k_, kl), ("==", k_, kl), ("<", kl, k_)]
            out += [("==", ("past", x, pc, k_), ("int", 1)) for pc in writers.get(sig, ())]
        return out

    def index_vocabulary():
        out = []
        groups = dict.fromkeys((sig, n) for sig, n, _ in index_cells(("i", "j")))
        for sig, n in groups:
            per = []
            for xs in (("i",), ("i", "j")):
                cs = [c for g, m, c in index_cells(xs) if (g, m) == (sig, n)]
                values = [("int", 0), ("int", 1)] + [("kexpr", e, x) for x in xs for e in exprs]
                facts = [a for c in cs for v in values for a in (("==", c, v), ("<=", c, v), ("<=", v, c))]
                marks = [("==", c, v) for c in cs for v in values[:2]]
                ia = index_atoms(xs, sig, n)
                guards = [a for x in xs for a in pcs(x)] + ia + marks
                if len(xs) == 2:
                    guards += rank_rel("i", "j") + rank_rel("j", "i")
                per += [tuple(_dedup(guards)), tuple(_dedup(facts + ia))]
            out.append((sig, n, *per))
        return tuple(out)

    g1 = pcs("i")
    f1 = local_facts("i") + cell_facts(("i",)) + pcs("i") + rank_rel("i", "i")
    f1 += [("<=", ("int", 1), ("lc", "i"))]  # a kernel runs only after a launch (what `past` reads)
    g2 = pcs("i") + pcs("j") + rank_rel("i", "j") + rank_rel("j", "i") + rotations("i", "j") + rotations("j", "i")
    f2 = g2 + cell_facts(("i", "j"))
    f2 += [("<=", ("lc", "i"), ("add", ("lc", "j"), 1))] if track_lc else []
    f2 += [("<=", ("kloc", s, "i"), ("add", ("kloc", s, "j"), 1)) for s in sorted(counters)]
    return Vocabulary(tuple(_dedup(g1)), tuple(_dedup(f1)), tuple(_dedup(g2)), tuple(_dedup(f2)),
                      index_vocabulary())


def _dedup(xs):
    return list(dict.fromkeys(xs))


def _rotated_peers(gc: Commands) -> bool:
    """Whether some kernel expression is `(rank + L) % nranks` (or `(L + rank) % nranks`), L a local."""
    for x in gc.kernel.instrs:
        exprs = [x.value] if isinstance(x, ir.Assign) else []
        if isinstance(x, (ir.Notify, ir.Wait, ir.Test)):
            exprs += [x.value, x.view.at] + [sel.expr for sel in x.view.selectors]
        for e in exprs:
            if e is not None and any(_is_rotation(gc, n) for n in ir.walk(e)):
                return True
    return False


def _is_rotation(gc: Commands, n) -> bool:
    if not (isinstance(n, ir.Binary) and n.op == "%" and isinstance(n.left, ir.Binary) and n.left.op == "+"
            and isinstance(n.right, ir.Const)):
        return False
    r = gc.sizes.const(n.right)
    if not (isinstance(r, ir.Builtin) and r.name == gc.sizes.ranks):
        return False
    kinds = {type(n.left.left), type(n.left.right)}
    names = {getattr(n.left.left, "name", None), getattr(n.left.right, "name", None)}
    return kinds == {ir.Builtin, ir.Local} and "rank" in names


def fixed_bounds(gc: Commands) -> list[int]:
    """The fixed values that bound counted loops (`l < 3` with L = 3 not symbolic): b - 1 and b
    for `i < b` (b and b + 1 for `i <= b`), sorted. Candidates only (Houdini checks them)."""
    out = set()
    for code in (gc.host, gc.kernel):
        for lp in code.loops:
            cond = code.instrs[lp.header].cond
            if isinstance(cond.right, ir.Const):
                x = gc.sizes.const(cond.right)
                if isinstance(x, ir.Const):
                    b = x.value if cond.op == "<" else x.value + 1
                    out |= {b - 1, b}
    return sorted(out)


def _names_a_neighbour(gc: Commands) -> bool:
    """Whether a TNOTIFY's rank is `rank + 1` or `rank - 1` as written (not around the ring)."""
    for x in gc.kernel.instrs:
        e = x.view.at if isinstance(x, ir.Notify) else None
        if isinstance(e, ir.Binary) and e.op in ("+", "-") and isinstance(e.left, ir.Builtin) and \
                e.left.name == "rank" and isinstance(e.right, ir.Const):
            one = gc.sizes.const(e.right)
            if isinstance(one, ir.Const) and one.value == 1:
                return True
    return False


def _roots(gc: Commands) -> list[int]:
    """Fixed ranks that TNOTIFYs write to (`TNOTIFY(slot[rank] @ 0, 1, Set)`: rank 0 as the
    root): their cells get candidate facts beside those of the rank variables."""
    out = set()
    for x in gc.kernel.instrs:
        if isinstance(x, ir.Notify) and isinstance(x.view.at, ir.Const):
            c = gc.sizes.const(x.view.at)
            if isinstance(c, ir.Const):
                out.add(c.value)
    return sorted(out)


def _literal_indices(gc: Commands) -> dict:
    """(signal, dimension) -> the fixed numbers the kernel's views select there (`slot[rank][0]`
    of a `[N][16]` signal: 0), for fixed dimensions too large to take every index."""
    out: dict = {}
    for x in gc.kernel.instrs:
        if isinstance(x, (ir.Notify, ir.Wait, ir.Test)):
            for n, sel in enumerate(x.view.selectors):
                if isinstance(sel, ir.Index) and isinstance(sel.expr, ir.Const):
                    c = gc.sizes.const(sel.expr)
                    if isinstance(c, ir.Const):
                        out.setdefault((x.view.signal.name, n), set()).add(c.value)
    return {k: sorted(v) for k, v in out.items()}


def _loop_bounds(gc: Commands) -> list:
    """(counter slot, bound expression) of the kernel's counted loops whose bound is neither a
    fixed number (`fixed_bounds`) nor a plain symbolic param (the `sym` constants): `s < 2 *
    (nranks - 1)`, `i < k * nblocks`."""
    k = gc.kernel
    out = []
    for lp in k.loops:
        bound = k.instrs[lp.header].cond.right
        if isinstance(bound, ir.Const) and isinstance(gc.sizes.const(bound), (ir.Const, ir.Builtin)):
            continue
        out.append((lp.slot, bound))
    return out


def _definitions(k) -> list:
    """(slot, expression) of kernel locals assigned once, from built-ins and constants only."""
    assigns: dict = {}
    for x in k.instrs:
        if isinstance(x, ir.Assign):
            assigns.setdefault(x.slot, []).append(x.value)
    out = []
    for s, vals in sorted(assigns.items()):
        if len(vals) == 1 and not any(isinstance(n, ir.Local) for n in ir.walk(vals[0])) and \
                not isinstance(vals[0], ir.Const):
            out.append((s, vals[0]))
    return out


def _signal_exprs(k) -> list:
    """The non-constant values of the TNOTIFYs and operands of the TWAITs (without / and %)."""
    out = []
    for x in k.instrs:
        if isinstance(x, (ir.Notify, ir.Wait, ir.Test)):
            e = x.value
            nodes = list(ir.walk(e))
            if not isinstance(e, ir.Local) and any(isinstance(n, (ir.Local, ir.Builtin)) for n in nodes) and \
                    not any(isinstance(n, ir.Binary) and n.op in ("/", "%") for n in nodes):
                out.append(e)
    return _dedup(out)


# ---------------------------------------------------------------- mining


def mine(gc: Commands, samples: list[tuple[Concrete, list]]) -> tuple[list, list]:
    """One-rank and two-rank clauses of the shapes (not g1 or not g2 or fact) true on every
    sample state (for every rank, every pair of distinct ranks), minimal under inclusion."""
    voc = vocabulary(gc)
    one = _masks(samples, voc.guards1 + voc.facts1, pairs=False)
    two = _masks(samples, voc.guards2 + voc.facts2, pairs=True)
    running = set(gc.kernel.visible())
    c1 = _clauses(voc.guards1, voc.facts1, *one, keep=lambda c: _guarded(c, running))
    c2 = _clauses(voc.guards2, voc.facts2, *two, keep=lambda c: _guarded(c, running))
    for sig, n, g1, f1, g2, f2 in voc.index:  # three guards: an index clause relates a rank, a peer and k
        keep = lambda c, where=(sig, n): _guarded(c, running) and index_of(c) == where  # noqa: E731
        c1 += _clauses(g1, f1, *_masks(samples, g1 + f1, pairs=False, index=(sig, n)), keep=keep, guards=3)
        c2 += _clauses(g2, f2, *_masks(samples, g2 + f2, pairs=True, index=(sig, n)), keep=keep, guards=3)
    return c1, [c for c in c2 if _ranks(c) == {"i", "j"}]


def _guarded(clause, running: set) -> bool:
    """A clause may read rank x's kernel locals only under a guard that x's kernel runs (at
    a visible position): elsewhere they hold no meaning, only leftovers (a pruning of the
    candidates, so completeness at most is at stake)."""
    at = {a[1][1] for a, pol in clause if not pol and a[0] == "==" and a[1][0] == "kpc" and a[2][1] in running}
    return all(x in at for x in _kernel_ranks(clause))


def _kernel_ranks(clause) -> set:
    out = set()
    stack = [a for a, _ in clause]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple) and t:
            if t[0] == "kloc" or t[0] == "kexpr" and any(isinstance(n, ir.Local) for n in ir.walk(t[1])):
                out.add(t[2])
            stack += [x for x in t if isinstance(x, tuple)]
    return out


def _ranks(clause) -> set:
    out = set()
    stack = [a for a, _ in clause]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple):
            if t and t[0] in ("kpc", "hpc", "lc", "rank") and len(t) == 2:
                out.add(t[1])
            elif t and t[0] in ("kloc", "hloc", "kexpr"):
                out.add(t[2])
            elif t and t[0] == "cell":
                if isinstance(t[2], str):
                    out.add(t[2])
            elif t and t[0] == "rot":
                out |= {t[1], t[2]}
            elif t and t[0] == "past":
                out.add(t[1])
            stack += [x for x in t if isinstance(x, tuple)]
    return out


def _strongest(clauses, masks, full):
    """Drop a clause when a kept one implies it on the samples (literal by literal): only
    candidates are dropped, so this costs completeness at most, never soundness."""
    def mask(lit):
        m = masks[lit[0]]
        return m if lit[1] else full & ~m

    lm = [[mask(l) for l in c] for c in clauses]
    order = sorted(range(len(clauses)), key=lambda k: (len(clauses[k]), sum(bin(m).count("1") for m in lm[k])))
    kept: list[int] = []
    for k in order:
        if not any(all(any(a & ~b == 0 for b in lm[k]) for a in lm[q]) for q in kept):
            kept.append(k)
    return [clauses[k] for k in sorted(kept)]


def envs(conc: Concrete, pairs: bool, index=None) -> list[dict]:
    """The valuations of a clause's variables at one size: every rank (every ordered pair of
    distinct ranks), and for an index clause of (signal, dimension) every index k there."""
    R = conc.R
    out = [{"i": i, "j": j} for i in range(R) for j in range(R) if i != j] if pairs else [{"i": i} for i in range(R)]
    if index is not None:
        _, dims, _ = conc.layout[index[0]]
        out = [{**e, "k": v} for e in out for v in range(dims[index[1]])]
    return out


def _masks(samples, atoms, pairs: bool, index=None):
    atoms = _dedup(list(atoms))
    masks = {a: 0 for a in atoms}
    bit = 0
    for conc, states in samples:
        envs_ = envs(conc, pairs, index)
        for st in states:
            view = ConcreteView(conc, st)
            for env in envs_:
                b = 1 << bit
                bit += 1
                for a in atoms:
                    try:
                        if holds(a, view, env):
                            masks[a] |= b
                    except Fault:
                        pass
    return masks, (1 << bit) - 1


def _clauses(guard_atoms, facts, masks, full, keep, guards: int = 2):
    """Clauses (not p or not q or f), (not p or f), (f), with f a fact or a negated fact; with
    `guards=3` also (not p or not q or not r [or f])."""
    lits = []
    for f in facts:
        m = masks[f]
        lits.append(((f, True), m))
        lits.append(((f, False), full & ~m))
    neg = [((g, False), full & ~masks[g]) for g in guard_atoms]
    out, seen = [], set()

    def add(lit_list):
        if not keep(lit_list):
            return
        key = frozenset(lit_list)
        for r in range(1, len(lit_list)):
            for sub in itertools.combinations(lit_list, r):
                if frozenset(sub) in seen:
                    return
        if key not in seen:
            seen.add(key)
            out.append(tuple(lit_list))

    # smallest first, so that the minimality test sees the sub-clauses before
    for lit, m in lits:
        if m == full:
            add([lit])
    for (g, mg), (lit, m) in itertools.product(neg, lits):
        if g[0] != lit[0] and (mg | m) == full:
            add([g, lit])
    for (g1, m1), (g2, m2) in itertools.combinations(neg, 2):
        if (m1 | m2) == full:
            add([g1, g2])
        else:
            for lit, m in lits:
                if (m1 | m2 | m) == full and lit[0] not in (g1[0], g2[0]):
                    add([g1, g2, lit])
    if guards >= 3:
        for (g1, m1), (g2, m2), (g3, m3) in itertools.combinations(neg, 3):
            m123 = m1 | m2 | m3
            if m123 == full:
                add([g1, g2, g3])
            elif (m1 | m2) != full and (m1 | m3) != full and (m2 | m3) != full:
                for lit, m in lits:
                    if (m123 | m) == full and lit[0] not in (g1[0], g2[0], g3[0]):
                        add([g1, g2, g3, lit])
    return out


# ---------------------------------------------------------------- certificates


def expressions(gc: Commands) -> list:
    """The expressions that `kexpr` terms read, in a fixed order: a certificate names them by index."""
    return _dedup([e for _, e in _definitions(gc.kernel)] + _signal_exprs(gc.kernel) +
                  [e for _, e in _loop_bounds(gc)])


def encode(clauses, gc: Commands) -> list:
    """Clauses as JSON data (terms as lists; a `kexpr` names its expression by index)."""
    exprs = expressions(gc)

    def term(t):
        if isinstance(t, tuple):
            if t and t[0] == "kexpr":
                return ["kexpr", exprs.index(t[1]), t[2]]
            return [term(x) for x in t]
        return t

    return [[[term(a), pol] for a, pol in c] for c in clauses]


def decode(data, gc: Commands) -> list:
    """`encode`'s inverse. Raises ValueError for data that is not an encoding of clauses."""
    exprs = expressions(gc)

    def term(t):
        if isinstance(t, list):
            if t and t[0] == "kexpr":
                if not isinstance(t[1], int) or not 0 <= t[1] < len(exprs):
                    raise ValueError(f"no expression {t[1]!r}")
                return ("kexpr", exprs[t[1]], t[2])
            return tuple(term(x) for x in t)
        if not isinstance(t, (str, int)):
            raise ValueError(f"not a term: {t!r}")
        return t

    try:
        return [tuple((term(a), bool(pol)) for a, pol in c) for c in data]
    except (TypeError, ValueError) as e:
        raise ValueError(f"not an invariant: {e}") from None


# ---------------------------------------------------------------- rendering


def render_clause(clause, gc: Commands, two: bool) -> str:
    head = "for all ranks i != j" if two else "for all ranks i"
    where = index_of(clause)
    head += f" and every index k of `{where[0]}`: " if where else ": "
    return head + " or ".join(_render_atom(a, pol, gc) for a, pol in clause)


def _render_atom(atom, pol, gc: Commands) -> str:
    op, l, r = atom
    if l[0] in ("kpc", "hpc") and r[0] == "int":
        where = _position(l[0], r[1], gc)
        return f"rank {l[1]} {'is' if pol else 'is not'} {where}"
    text = f"{_term(l, gc)} {op} {_term(r, gc)}"
    return text if pol else f"not ({text})"


def _position(kind, pc, gc: Commands) -> str:
    code = gc.kernel if kind == "kpc" else gc.host
    what = "kernel" if kind == "kpc" else "host"
    if pc == IDLE:
        return f"with its {what} not running"
    if pc == code.done:
        return f"with its {what} returned"
    x = code.instrs[pc]
    return f"at {x.span.line}:{x.span.col} `{x.text}`"


def _term(t, gc: Commands) -> str:
    k = t[0]
    if k == "int":
        return str(t[1])
    if k == "sym":
        return "nranks" if t[1] == gc.sizes.ranks else t[1]
    if k == "rank":
        return t[1]
    if k == "add":
        return f"{_term(t[1], gc)} {'+' if t[2] >= 0 else '-'} {abs(t[2])}"
    if k == "lc":
        return f"launches({t[1]})"
    if k in ("kloc", "hloc"):
        names = (gc.kernel if k == "kloc" else gc.host).slot_names
        return f"{names[t[1]]}@{t[2]}"
    if k == "cell":
        holder = t[2] if isinstance(t[2], str) else _term(t[2], gc)
        return t[1] + "".join(f"[{_term(x, gc)}]" for x in t[3]) + f"@{holder}"
    if k == "rot":
        return f"({t[2]} - {t[1]}) mod nranks"
    if k == "ivar":
        return t[1]
    if k == "past":
        x = gc.kernel.instrs[t[2]]
        return f"past({t[1]}, `{x.text}` at {x.span.line}:{x.span.col}, iteration {_term(t[3], gc)})"
    if k == "kexpr":
        e = t[1]
        text = source_text(gc.program.source, e.span) if e.span is not None and e.span.line > 0 else "launch_id"
        return f"({text})@{t[2]}"
    return str(t)

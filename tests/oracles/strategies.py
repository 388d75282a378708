"""Hypothesis strategies for small random `.sig` protocols (differential tests).

`specs()` draws the text of a well-formed spec that parses and compiles: 1-3 ranks, 1-2
blocks, 1-2 small signals (sometimes scalar or 2-D), an optional host with 1-2 launches,
resets and host barriers, and a short kernel of TNOTIFY / TWAIT / TTEST (single elements,
slices, whole tensors) in rank and block branches, small `for` loops, TTEST polling loops
(bounded, and now and then unbounded), asserts, early returns and `any(lo, hi)` choices
(mostly of a rank, used as a target rank, an index or in a condition; now and then an
empty range) and `block_barrier;` at the top level of the kernel. Values are small so that
EQ waits are sometimes unsatisfiable and Sets overwrite unread values; AtomicAdd of
2147483647 can overflow; now and then an index, a remote TWAIT, an assert or a local spin
loop goes wrong: every verdict is reachable. The size budget keeps most state spaces at a
few hundred states (rarely more than a few thousand; the tests skip those).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

INT32_MAX = 2**31 - 1
CMPS = ("EQ", "NE", "GT", "GE", "LT", "LE")


@dataclass
class Sig:
    name: str
    dims: tuple[int, ...]
    init: int


@dataclass
class Ctx:
    """What the statement being drawn can use."""

    sigs: list[Sig]
    loop_vars: list[str] = field(default_factory=list)
    locals: list[str] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)  # locals from any(0, nranks - 1): ranks
    budget: int = 0  # visible statements still allowed
    depth: int = 0
    in_loop: bool = False
    counter: int = 0  # for fresh names
    uses_launch_id: bool = False
    kernel: bool = True  # the host has no `block` and no loops here
    counters: bool = False  # every TNOTIFY an AtomicAdd of a small value of either sign

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"


def _rare(draw, n: int) -> bool:
    """True about once in n draws (Hypothesis favours the ends of a range, so test the middle)."""
    return draw(st.integers(0, n - 1)) == n // 2


def _index(draw, ctx: Ctx, size: int) -> str:
    """An index expression for a dimension of `size`: mostly in bounds, rarely not."""
    if _rare(draw, 80):
        return str(size)  # out of bounds: an `error` when executed
    options = ["0", "0", "0"] + [str(k) for k in range(1, size)] + [f"rank % {size}", f"(rank + 1) % {size}"]
    if ctx.kernel:
        options += [f"block % {size}"] + [f"{v} % {size}" for v in ctx.loop_vars]
    options += [f"{c} % {size}" for c in ctx.chosen]
    return draw(st.sampled_from(options))


def _ref(draw, ctx: Ctx, sig: Sig) -> str:
    """One element: every dimension indexed."""
    return sig.name + "".join(f"[{_index(draw, ctx, d)}]" for d in sig.dims)


def _view(draw, ctx: Ctx, sig: Sig) -> str:
    """A view for TWAIT / TTEST / reset: one element, a slice, or trailing dims left open."""
    parts = []
    for k, d in enumerate(sig.dims):
        kind = draw(st.sampled_from(("index", "index", "slice", "open")))
        if kind == "open":
            break  # this and every later dimension stay whole
        if kind == "slice" and d > 1:
            a = draw(st.integers(0, d - 1))
            b = draw(st.integers(a + 1, d))
            s = draw(st.sampled_from(("", "", ":2")))
            parts.append(f"[{a}:{b}{s}]")
        else:
            parts.append(f"[{_index(draw, ctx, d)}]")
    return sig.name + "".join(parts)


def _target(draw, ctx: Ctx) -> str:
    return draw(st.sampled_from(("", "", "", " @ rank", " @ (rank + 1) % nranks", " @ (rank + nranks - 1) % nranks",
                                 " @ 0") + tuple(f" @ {c}" for c in ctx.chosen) * 3))


def _notify(draw, ctx: Ctx) -> str:
    sig = draw(st.sampled_from(ctx.sigs))
    op = draw(st.sampled_from(("Set", "Set", "comm::NotifyOp::Set", "AtomicAdd", "NotifyOp::AtomicAdd")))
    if ctx.counters:
        op, value = "AtomicAdd", draw(st.sampled_from(("1", "-1", "2", "-2", "1", "-1", "rank + 1")))
        return f"TNOTIFY({_ref(draw, ctx, sig)}{_target(draw, ctx)}, {value}, {op});"
    if op.endswith("Set"):
        values = ["1", "1", "2", "0", "3", "rank + 1"] + ["launch_id + 1"] * 2 * ctx.uses_launch_id
        value = draw(st.sampled_from(values))
    else:
        value = draw(st.sampled_from(("1", "1", "1", "2", "2", "-1", "-1", "1", "1", str(INT32_MAX))))
    return f"TNOTIFY({_ref(draw, ctx, sig)}{_target(draw, ctx)}, {value}, {op});"


def _wait_args(draw, ctx: Ctx) -> str:
    sig = draw(st.sampled_from(ctx.sigs))
    view = _view(draw, ctx, sig)
    if _rare(draw, 60):
        view += " @ (rank + 1) % nranks"  # remote wait: an `error` when executed (unless 1 rank)
    values = ["1", "1", "1", "0", "2", "3", "nblocks", "nranks", "rank + 1", "2 * block + 1"]
    if ctx.uses_launch_id:
        values += ["launch_id + 1"] * 3  # epoch counters
    value = draw(st.sampled_from(values))
    cmp = draw(st.sampled_from(("GE", "GE", "GE", "EQ", "EQ") + CMPS))
    if draw(st.integers(0, 5)) == 0:
        cmp = "WaitCmp::" + cmp
    return f"{view}, {value}, {cmp}"


def _cond(draw, ctx: Ctx) -> str:
    options = ["rank == 0", "rank != 0", "block == 0", "rank == nranks - 1", "(rank + block) % 2 == 0"]
    if ctx.loop_vars:
        options.append(f"{ctx.loop_vars[-1]} == 0")
    if ctx.locals:
        options.append(f"{ctx.locals[-1]} > 1")
    if ctx.chosen:
        options += [f"{ctx.chosen[-1]} == rank", f"{ctx.chosen[-1]} != 0"]
    if ctx.uses_launch_id:
        options.append("launch_id == 0")
    return draw(st.sampled_from(options))


def _assert(draw, ctx: Ctx) -> str:
    kind = draw(st.sampled_from(("test", "test", "plain")))
    if kind == "test":
        return f"assert(TTEST({_wait_args(draw, ctx)}));"
    return f"assert({draw(st.sampled_from(('rank < 2', 'block == 0', 'nranks > 0', 'rank + block < 2')))});"


def _stmt(draw, ctx: Ctx, indent: str) -> str:
    kinds = ["notify"] * 5 + ["wait"] * 3 + ["assert", "local", "pipe", "choose"]
    if ctx.depth < 3:
        kinds += ["ttest_if"]
    if ctx.depth < 2 and ctx.budget >= 2:
        kinds += ["branch", "branch", "loop", "poll_for", "poll_while"]
    if ctx.in_loop:
        kinds += ["break_if"]
    if ctx.kernel and ctx.depth == 0:
        kinds += ["block_barrier"]
    kinds += ["return_if"]
    kind = draw(st.sampled_from(kinds))
    ctx.budget -= 1
    if kind == "notify":
        return indent + _notify(draw, ctx)
    if kind == "wait":
        return indent + f"TWAIT({_wait_args(draw, ctx)});"
    if kind == "assert":
        return indent + _assert(draw, ctx)
    if kind == "pipe":
        return indent + "pipe_barrier(PIPE_ALL);"
    if kind == "block_barrier":  # every block of the rank meets here (a deadlock after an early return)
        return indent + "block_barrier;"
    if kind == "local":
        name = ctx.fresh("x")
        init = draw(st.sampled_from(("rank", "block + 1", "nranks * 2", "min(rank, 1)")))
        ctx.locals.append(name)
        return indent + f"int {name} = {init}; {name} += 1;"
    if kind == "choose":  # a rank (or a small value) picked nondeterministically
        name = ctx.fresh("c")
        bounds = draw(st.sampled_from(("0, nranks - 1", "0, nranks - 1", "rank, nranks - 1", "0, 1", "1, rank")))
        ctx.chosen.append(name)
        ctx.locals.append(name)
        if bounds in ("0, 1", "1, rank"):  # not a rank: keep it as an index only when it fits
            return indent + f"int {name} = any({bounds}); {name} = {name} % nranks;"
        return indent + f"int {name} = any({bounds});"
    if kind == "break_if":
        return indent + f"if ({_cond(draw, ctx)}) break;"
    if kind == "return_if":
        return indent + f"if ({_cond(draw, ctx)}) return;"
    inner = indent + "    "
    ctx.depth += 1
    try:
        if kind == "ttest_if":
            return _if_else(draw, ctx, indent, f"TTEST({_wait_args(draw, ctx)})", 1)
        if kind == "branch":
            return _if_else(draw, ctx, indent, _cond(draw, ctx), 2)
        if kind == "loop":
            var = ctx.fresh("i")
            n = draw(st.integers(1, 2))
            ctx.loop_vars.append(var)
            was_in_loop, ctx.in_loop = ctx.in_loop, True
            body = _body(draw, ctx, inner, 1, 2)
            ctx.loop_vars.pop()
            ctx.in_loop = was_in_loop
            return f"{indent}for (int {var} = 0; {var} < {n}; {var}++) {{\n{body}\n{indent}}}"
        if kind == "poll_for":
            var = ctx.fresh("i")
            n = draw(st.integers(1, 3))
            args = _wait_args(draw, ctx)
            return (f"{indent}for (int {var} = 0; {var} < {n}; {var}++) {{\n"
                    f"{inner}if (TTEST({args})) break;\n{indent}}}")
        if _rare(draw, 10):
            return f"{indent}if ({_cond(draw, ctx)}) {{ while (true) {{ }} }}"  # spins with no signal operation
        # poll_while: spins until the test holds (a livelock if it never can)
        return f"{indent}while (!TTEST({_wait_args(draw, ctx)})) {{ }}"
    finally:
        ctx.depth -= 1


def _body(draw, ctx: Ctx, indent: str, lo: int, hi: int) -> str:
    n = draw(st.integers(lo, max(lo, min(hi, ctx.budget))))
    saved, saved_chosen = len(ctx.locals), len(ctx.chosen)
    lines = [_stmt(draw, ctx, indent) for _ in range(n)]
    del ctx.locals[saved:]  # declared in this block only
    del ctx.chosen[saved_chosen:]
    return "\n".join(lines)


def _if_else(draw, ctx: Ctx, indent: str, head: str, hi: int) -> str:
    """`if (head) { ... }`, sometimes with an `else { ... }`, bodies of 1..hi statements."""
    inner = indent + "    "
    text = f"{indent}if ({head}) {{\n{_body(draw, ctx, inner, 1, hi)}\n{indent}}}"
    if draw(st.booleans()):
        text += f" else {{\n{_body(draw, ctx, inner, 1, hi)}\n{indent}}}"
    return text


def _host(draw, sigs: list[Sig]) -> str | None:
    """A host block, or None for the default `host { launch; }`."""
    if draw(st.integers(0, 2)) == 0:
        return None
    launches = draw(st.integers(1, 2))
    lines = []
    for k in range(launches):
        if k > 0 or draw(st.integers(0, 3)) == 0:
            extra = draw(st.sampled_from(("", "barrier", "reset", "reset+barrier", "rank0-reset", "rank0-barrier")))
            if "reset" in extra:
                sig = draw(st.sampled_from(sigs))
                view = _view(draw, Ctx(sigs=sigs, kernel=False), sig)
                prefix = "if (rank == 0) " if extra.startswith("rank0") else ""
                lines.append(f"    {prefix}reset {view};")
            if "barrier" in extra:
                prefix = "if (rank == 0) " if extra.startswith("rank0") else ""  # a barrier only one host reaches
                lines.append(f"    {prefix}host_barrier;")
        lines.append("    launch;")
    if draw(st.integers(0, 3)) == 0:
        lines.append(f"    {draw(st.sampled_from(('host_barrier;', 'reset ' + sigs[0].name + ';')))}")
    if _rare(draw, 30):
        lines.insert(0, "    assert(rank < 1);")
    return "host {\n" + "\n".join(lines) + "\n}"


@st.composite
def specs(draw, max_visible: int = 8, counters: bool = False) -> str:
    """The text of a small well-formed spec. `max_visible` bounds the kernel's statements;
    it shrinks as the number of kernel processes grows, to keep the state space small.
    `counters`: every TNOTIFY is an AtomicAdd of a small value of either sign (counters that
    go up and down, like DeepEP's barrier_block)."""
    nranks = draw(st.integers(1, 3))
    nblocks = draw(st.integers(1, 2))
    nprocs = nranks * nblocks
    if nprocs > 4:
        nblocks = 1
        nprocs = nranks
    sigs = []
    for k in range(draw(st.sampled_from((1, 1, 2)))):
        shape = draw(st.sampled_from(("1d", "1d", "1d", "2d", "scalar")))
        if shape == "1d":
            dims = (draw(st.sampled_from((1, 2, 2, 3))),)
        elif shape == "2d":
            dims = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        else:
            dims = ()
        init = draw(st.sampled_from((0, 0, 0, 1)))
        sigs.append(Sig(f"s{k}", dims, init))
    host = _host(draw, sigs)
    launches = 1 if host is None else host.count("launch;")
    budget = max(1, max_visible - (nprocs - 1) - (launches - 1))
    ctx = Ctx(sigs=sigs, budget=budget, uses_launch_id=launches > 1 and draw(st.booleans()), counters=counters)
    first = ("    " + _notify(draw, ctx) + "\n") if draw(st.booleans()) else ""
    ctx.budget -= bool(first)
    body = first + _body(draw, ctx, "    ", 1, max(1, ctx.budget))

    lines = []
    if draw(st.booleans()):
        lines.append("param N = %d;" % nranks)
        lines.append("ranks N;")
    else:
        lines.append(f"ranks {nranks};")
    if nblocks > 1 or draw(st.booleans()):
        lines.append(f"blocks {nblocks};")
    for s in sigs:
        dims = "".join(f"[{d}]" for d in s.dims)
        lines.append(f"signal {s.name}{dims}" + (f" = {s.init};" if s.init else ";"))
    if draw(st.integers(0, 2)) == 0:
        lines.append("check clean_exit;")
    if host is not None:
        lines.append(host)
    lines.append("kernel {\n" + body + "\n}")
    return "\n".join(lines) + "\n"

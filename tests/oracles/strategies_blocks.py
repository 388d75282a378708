"""Hypothesis strategies for small `.sig` protocols whose blocks run the same code (the block
symmetry tests, tests/model/test_block_symmetry.py).

`block_specs()` draws the shapes of multi-block kernels: arrival counters on the own rank or
a neighbour, flags indexed by `block` (on the own rank, so that each rank's blocks are
permuted on their own, or on another rank, so that one permutation renames every rank's
blocks), a block's own flag Set, read and cleared (a pending notification whose mark moves
with its block), a leader told apart by `block == 0` (or `block < 1`, or `if (block)`), an element
at a fixed block index, block barriers, TTEST branches, Sets that can overwrite an unread
value and EQ waits that can deadlock, asserts that can fail, and hosts that launch twice
with a reset between. With `break_it` one statement breaks the symmetry the way real
kernels do (a block number written into a signal, held in a local, compared with a
counter, used in arithmetic, a loop counter indexing the block dimension, a hardware wait
over the block dimension), so that the tests see the detector refuse it.
"""

from __future__ import annotations

from hypothesis import strategies as st

BREAKERS = (
    "TNOTIFY(g, block, Set);",
    "int me = block; TNOTIFY(g, me, AtomicAdd);",
    "if (block < launch_id) {{ TNOTIFY(g, 1, AtomicAdd); }}",
    "TNOTIFY(f[(block + 1) % nblocks], 1, AtomicAdd);",
    "TNOTIFY(f[block], 1, AtomicAdd); for (int b = 0; b < nblocks; b++) {{ TWAIT(f[b], 1, GE); }}",
    "TNOTIFY(f[block], 1, AtomicAdd); TWAIT(f, 1, GE);",
)


@st.composite
def block_specs(draw, break_it: bool = False) -> str:
    n = draw(st.integers(1, 2))
    blocks = draw(st.integers(2, 3)) if n == 1 else draw(st.sampled_from((2, 3, 3)))
    lines = [f"ranks {n};", f"blocks {blocks};", "signal c;", f"signal f[{blocks}];", "signal g;"]
    if draw(st.integers(0, 3)) == 0:
        lines.append("check clean_exit;")
    host = draw(st.sampled_from(("", "", "launch;", "launch; reset f; launch;", "launch; reset c; reset g; launch;")))
    if host:
        lines.append("host { " + host + " }")
    body = ["int next = (rank + 1) % nranks;"]
    leader = draw(st.sampled_from(("block == 0", "block != 0", "block < 1", "block", "block >= 2", None)))
    remote = draw(st.booleans())
    values = ("1", "2")

    def stmt() -> str:
        kind = draw(st.sampled_from(("add", "add", "wait", "fset", "fwait", "gset", "gwait", "test", "fixed",
                                     "barrier", "assert", "handoff")))
        v = draw(st.sampled_from(values))
        if kind == "add":
            return f"TNOTIFY(c @ {draw(st.sampled_from(('rank', 'next')))}, 1, AtomicAdd);"
        if kind == "wait":
            return f"TWAIT(c, {v}, {draw(st.sampled_from(('GE', 'GE', 'EQ')))});"
        if kind == "fset":
            at = " @ next" if remote else ""
            return f"TNOTIFY(f[block]{at}, {v}, {draw(st.sampled_from(('Set', 'AtomicAdd')))});"
        if kind == "fwait":
            return f"TWAIT(f[block], {v}, {draw(st.sampled_from(('GE', 'EQ', 'NE')))});"
        if kind == "gset":
            return f"TNOTIFY(g @ {draw(st.sampled_from(('rank', 'next')))}, {v}, Set);"
        if kind == "gwait":
            return f"TWAIT(g, {v}, {draw(st.sampled_from(('GE', 'EQ')))});"
        if kind == "test":
            return f"if (TTEST(c, {v}, GE)) {{ TNOTIFY(g, {v}, Set); }} else {{ TNOTIFY(c, 1, AtomicAdd); }}"
        if kind == "fixed":
            return "TWAIT(f[0], 1, GE);" if draw(st.booleans()) else "TNOTIFY(f[0] @ next, 1, AtomicAdd);"
        if kind == "handoff":  # a block's own flag, Set, read and cleared: a pending mark that moves with it
            at = " @ next" if remote else ""
            return f"TNOTIFY(f[block]{at}, {v}, Set); TWAIT(f[block], {v}, EQ); TNOTIFY(f[block]{at}, 0, Set);"
        if kind == "barrier":
            return "block_barrier;"
        return f"assert(TTEST(g, {v}, NE) || TTEST(c, 1, GE));"

    stmts = [stmt() for _ in range(draw(st.integers(1, 3)))]
    if leader is not None:
        then = [stmt() for _ in range(draw(st.integers(1, 2)))]
        orelse = [stmt() for _ in range(draw(st.integers(0, 2)))]
        branch = f"if ({leader}) {{ " + " ".join(then) + " }"
        if orelse:
            branch += " else { " + " ".join(orelse) + " }"
        stmts.insert(draw(st.integers(0, len(stmts))), branch)
    if break_it:
        stmts.insert(draw(st.integers(0, len(stmts))), draw(st.sampled_from(BREAKERS)).format())
    body += stmts
    lines.append("kernel {\n    " + "\n    ".join(body) + "\n}")
    return "\n".join(lines) + "\n"

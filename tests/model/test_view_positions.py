"""`model.analysis.view_positions` against a plain enumeration: the bit mask of the elements
a view may name, for a 2-D buffer whose slice bounds take several values (abstract locals).
A contiguous slice is kept as merged runs (a large buffer's slice is not enumerated index by
index); the mask must be the one every concrete (start, stop, step) gives, ORed."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from model import analysis as A
from model import compile_spec, ir, parse

ROWS, COLS = 3, 40
SPEC = f"""
protocol vp;
ranks 2;
buffer b[{ROWS}][{COLS}];
kernel {{
    int r = 0;
    int x = 0;
    int y = 0;
    int s = 1;
    READ(b[r][x:y:s]);
    READ(b[r:r + 1][x:y]);
}}
"""
PROGRAM = compile_spec(parse(SPEC, "vp.sig"))
ACCESSES = [i for i in PROGRAM.kernel.instrs if isinstance(i, ir.Access)]
# the locals r, x, y, s are slots 0..3, in the order they are declared
assert [i.slot for i in PROGRAM.kernel.instrs if isinstance(i, ir.Assign)] == [0, 1, 2, 3]


def plain(rows, starts, stops, steps) -> int:
    """Every element of b[r][a:b:s] for every concrete r, a, b, s (bounds out of range: none)."""
    mask = 0
    for r in rows:
        for a in starts:
            for b in stops:
                for s in steps:
                    if s >= 1 and 0 <= a <= COLS and 0 <= b <= COLS:
                        for c in range(a, b, s):
                            mask |= 1 << (r * COLS + c)
    return mask


values = st.frozensets(st.integers(-3, COLS + 3), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(rows=st.frozensets(st.integers(0, ROWS - 1), min_size=1, max_size=2), starts=values, stops=values,
       steps=st.sampled_from([frozenset({1}), frozenset({2}), frozenset({1, 3})]))
def test_view_positions_is_the_union_of_the_concrete_views(rows, starts, stops, steps):
    ctx = A.Analysis(PROGRAM).ctx("kernel", 0, 0)
    env = (rows, starts, stops, steps)
    assert A.view_positions(ACCESSES[0].view, env, ctx, 0, 2, ROWS * COLS) == plain(rows, starts, stops, steps)
    # b[r:r + 1][x:y]: the row bounds too are taken each for all their values (r and r + 1
    # apart: rows 0 and 2 give the slices 0:1, 0:3, 2:3), so every row in between as well
    between = frozenset(k for a in rows for b in rows for k in range(a, b + 1))
    assert A.view_positions(ACCESSES[1].view, env, ctx, 0, 2, ROWS * COLS) == plain(between, starts, stops,
                                                                                      frozenset({1}))

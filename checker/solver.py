"""The one module that talks to z3: the lost-notification predicate test.

Question: given a wait comparison `cmp` whose operand can take the values in `intervals`,
is there an operand v with `old cmp v` true and `new cmp v` false? (Then a wait that the
overwritten value would have satisfied can no longer be satisfied by the new one.)
Answers are cached; the solver runs with a fixed seed and a timeout, and `unknown` raises
SolverUnknown, never reads as "no".
"""

from __future__ import annotations

from functools import lru_cache

from model.vocabulary import COMPARISON

TIMEOUT_MS = 10_000


class SolverUnknown(Exception):
    """z3 answered unknown (timeout or incompleteness): the question stays open."""


def _holds(cmp: str, a, b):
    return COMPARISON[cmp].holds(a, b)


@lru_cache(maxsize=65536)
def distinguishing_operand(cmp: str, intervals: tuple[tuple[int, int], ...], old: int, new: int) -> int | None:
    """An operand value v in `intervals` with `old cmp v` and not `new cmp v`, or None."""
    if not intervals:
        return None
    import z3  # here, not at the top: most checks never ask (a tenth of a second at start-up)

    v = z3.Int("operand")
    solver = z3.Optimize()  # the smallest witness, so that reports do not depend on z3's search
    solver.set("timeout", TIMEOUT_MS)
    z3.set_param("smt.random_seed", 0)
    solver.add(z3.Or([z3.And(v >= lo, v <= hi) for lo, hi in intervals]))
    solver.add(_holds(cmp, z3.IntVal(old), v))
    solver.add(z3.Not(_holds(cmp, z3.IntVal(new), v)))
    solver.minimize(v)
    answer = solver.check()
    if answer == z3.sat:
        return solver.model().eval(v, model_completion=True).as_long()
    if answer == z3.unsat:
        return None
    raise SolverUnknown(f"z3 could not decide {old} {cmp} v and not {new} {cmp} v: {solver.reason_unknown()}")


def as_intervals(values) -> tuple[tuple[int, int], ...]:
    """Sorted integer values as maximal runs of consecutive integers."""
    runs: list[list[int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return tuple((a, b) for a, b in runs)

"""Hypothesis strategy: steps whose independence depends on the values they meet.

The shapes behind the value rules of the reduction's `conflicts` (model/independence.py)
that the general strategies (tests/oracles/strategies.py) drew too rarely to see one of
them dropped (stop 48's audit, docs/trust.md 3a):

- a Set of the value its element already holds, beside later writes of the element that
  nobody waits on (only `check clean_exit` sees the order): the `w_nop` rule;
- increases and decreases beside TTESTs inside asserts, of every comparison, that fail or
  hold now: `_falsified`, its largest and smallest operands;
- a TTEST in the kernel of a host that has not launched yet, beside another rank's
  increase: `_falsified`'s kernels ahead (`later`);
- a host standing in its launch while its block waits for a count that a third process
  may complete, beside a write its reset after the launch conflicts with: `stuck`.
- an AtomicAdd at the int32 edge that may overflow (a fault that writes nothing and stops
  its block), beside an add of the other sign after which it succeeds and its block goes
  on: a step with an event touching whatever its instruction may touch (stop 49).

Each spec is one of the five shapes, with its values, comparisons and process order drawn,
or 2-3 processes (ranks of one block, or blocks of one rank) each drawn freely from their
parts; g is the element the values play on (with a random initial value), f the count a
waiter needs.
"""

from __future__ import annotations

from hypothesis import strategies as st

CMPS = ("EQ", "NE", "GT", "GE", "LT", "LE")


ROLES = ("setter", "setter", "adder", "tester", "tester", "waiter", "opener")


def _spec(nranks: int, nblocks: int, bodies: list, host: str, clean: bool, init: int) -> str:
    who = "rank" if nranks > 1 else "block"
    lines = [f"    {'if' if p == 0 else 'else if'} ({who} == {p}) {{ {body} }}" for p, body in enumerate(bodies)]
    return (f"ranks {nranks};\nblocks {nblocks};\nsignal g = {init};\nsignal f;\n"
            f"{'check clean_exit;' + chr(10) if clean else ''}{host}kernel {{\n" + "\n".join(lines) + "\n}\n")


@st.composite
def _family(draw, family: str) -> str:
    """One of the five shapes, its values, comparisons and process order drawn."""
    v = draw(st.integers(0, 3))
    init = None  # g's initial value (drawn small unless the family needs another)
    cmp = draw(st.sampled_from(CMPS))
    neg = draw(st.sampled_from(("", "!")))
    if family == "nop":  # a Set of the value another Set left, beside that one's later add
        bodies = [f"TNOTIFY(g, {v}, Set);", f"TNOTIFY(g, {v}, Set); TNOTIFY(g, {draw(st.sampled_from((-1, 1, -v)))}, AtomicAdd);"]
        nranks, host, clean = 1, "", True
    elif family == "tests":  # adds of both signs beside a TTEST in an assert
        bodies = [f"assert({neg}TTEST(g, {v}, {cmp}));", f"TNOTIFY(g, {draw(st.integers(1, 2))}, AtomicAdd);",
                  f"TNOTIFY(g, {-draw(st.integers(1, 2))}, AtomicAdd);"]
        nranks, host, clean = 1, "", False
    elif family == "ahead":  # a TTEST in a launch that has not started, beside an increase
        bodies = [f"assert({neg}TTEST(g, {v}, {draw(st.sampled_from(('GE', 'GT')))}));",
                  f"TNOTIFY(g @ 0, {draw(st.integers(1, 3))}, Set); TNOTIFY(f @ 0, 1, AtomicAdd);"]
        nranks, host, clean = 2, "host { reset f; launch; }\n", False
    elif family == "fault":  # an add at the int32 edge that may overflow (and stop its block),
        # beside an add of the other sign after which it succeeds and its block goes on
        up = draw(st.booleans())
        init = (2147483647 - draw(st.integers(0, 1))) if up else (-2147483648 + draw(st.integers(0, 1)))
        sign = 1 if up else -1
        after = draw(st.sampled_from(("assert(false);", "TNOTIFY(f, 1, AtomicAdd);", f"assert({neg}TTEST(g, {v}, {cmp}));")))
        bodies = [f"TNOTIFY(g, {sign * draw(st.integers(1, 2))}, AtomicAdd); {after}",
                  f"TNOTIFY(g, {-sign * draw(st.integers(1, 2))}, AtomicAdd);"]
        nranks, host, clean = 1, "", draw(st.booleans())
    else:  # "stuck": a host in its launch, its block waiting for a count a third rank gives
        bodies = ["TWAIT(f, 1, GE); TNOTIFY(f, -1, AtomicAdd);", f"TNOTIFY(g @ 0, {v}, Set);", "TNOTIFY(f @ 0, 1, AtomicAdd);"]
        nranks, host, clean = 3, "host { launch; reset g; }\n", True
    if nranks == 1:  # blocks of one rank, in any order
        bodies = draw(st.permutations(bodies))
    else:  # the holder of g and f stays rank 0 (TTEST and TWAIT read their own rank)
        bodies = bodies[:1] + draw(st.permutations(bodies[1:]))
    return _spec(nranks, 1 if nranks > 1 else len(bodies), list(bodies), host, clean,
                 init if init is not None else draw(st.integers(0, 2)))


ROLES = ("setter", "setter", "adder", "tester", "tester", "waiter", "opener")


@st.composite
def _free(draw) -> str:
    """Processes of 1-2 statements each, drawn from the roles of the four shapes."""
    ranks_not_blocks = draw(st.booleans())
    n = draw(st.integers(2, 3))
    home = draw(st.sampled_from((0, n - 1))) if ranks_not_blocks else 0  # the rank g and f live on
    at = f" @ {home}" if ranks_not_blocks else ""
    bodies = []
    for p in range(n):
        parts = []
        for role in draw(st.lists(st.sampled_from(ROLES), min_size=1, max_size=2)):
            if role in ("tester", "waiter") and ranks_not_blocks and p != home:
                role = "setter"  # a TTEST or TWAIT reads its own rank's elements
            v = draw(st.integers(0, 3))
            if role == "setter":
                parts.append(f"TNOTIFY(g{at}, {v}, Set);")
            elif role == "adder":
                parts.append(f"TNOTIFY(g{at}, {draw(st.sampled_from((-1, 1, 2)))}, AtomicAdd);")
            elif role == "tester":
                neg = draw(st.sampled_from(("", "!")))
                parts.append(f"assert({neg}TTEST(g, {v}, {draw(st.sampled_from(CMPS))}));")
            elif role == "waiter":  # waits for a count, then takes it back (a clean exit)
                k = draw(st.integers(1, 2))
                parts.append(f"TWAIT(f, {k}, GE); TNOTIFY(f, {-k}, AtomicAdd);")
            else:  # a count the waiter may be waiting for
                parts.append(f"TNOTIFY(f{at}, 1, AtomicAdd);")
        bodies.append(" ".join(parts))
    host = draw(st.sampled_from(("", "host { launch; reset g; }\n", "host { reset f; launch; }\n")))
    nranks, nblocks = (n, 1) if ranks_not_blocks else (1, n)
    return _spec(nranks, nblocks, bodies, host, draw(st.sampled_from((True, True, False))), draw(st.integers(0, 2)))


def value_specs():
    """One of the five shapes (values, comparisons, order drawn), or processes drawn freely
    from their parts."""
    return st.sampled_from(("nop", "tests", "ahead", "stuck", "fault", "free", "free")).flatmap(
        lambda family: _free() if family == "free" else _family(family))

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

2-3 processes (ranks of one block, or blocks of one rank), signals g (the element the
values play on, with a random initial value) and f (the count a waiter needs), each process
a short list of those statements; hosts launch once and now and then reset g afterwards.
"""

from __future__ import annotations

from hypothesis import strategies as st

CMPS = ("EQ", "NE", "GT", "GE", "LT", "LE")


ROLES = ("setter", "setter", "adder", "tester", "tester", "waiter", "opener")


@st.composite
def value_specs(draw) -> str:
    ranks_not_blocks = draw(st.booleans())
    n = draw(st.integers(2, 3))
    nranks, nblocks = (n, 1) if ranks_not_blocks else (1, n)
    who = "rank" if ranks_not_blocks else "block"
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
    lines = [f"    {'if' if p == 0 else 'else if'} ({who} == {p}) {{ {body} }}" for p, body in enumerate(bodies)]
    host = draw(st.sampled_from(("", "host { launch; reset g; }\n", "host { reset f; launch; }\n")))
    clean = draw(st.sampled_from(("check clean_exit;\n", "check clean_exit;\n", "")))
    return (f"ranks {nranks};\nblocks {nblocks};\nsignal g = {draw(st.integers(0, 2))};\nsignal f;\n{clean}{host}"
            "kernel {\n" + "\n".join(lines) + "\n}\n")

"""Hypothesis strategy: readers whose waits are gated, beside blocks that overwrite.

The shape behind the reduction's `m_now` rule (model/independence.py `conflicts`): a block
whose own step (a TTEST of a flag, a choice, a wait on another element) decides whether it
will still read an element, while another block Sets or resets that element more than
once. Whether an overwrite loses a notification depends on where the reader stands, so such
a step does not commute with the overwrites even though it touches nothing they write.
The general strategies (tests/oracles/strategies.py) did not draw it in 6,000 examples.
"""

from __future__ import annotations

from hypothesis import strategies as st

CMPS = ("EQ", "GE", "GE", "NE", "LE")


@st.composite
def gated_specs(draw) -> str:
    nranks = draw(st.integers(1, 2))
    nblocks = draw(st.integers(2, 3))
    lines = []
    for b in range(nblocks):
        role = draw(st.sampled_from(("reader", "writer")) if b else st.just("reader"))
        if role == "reader":
            read = draw(st.sampled_from(("TWAIT", "TTEST")))
            op = (f"TWAIT(g, {draw(st.integers(0, 2))}, {draw(st.sampled_from(CMPS))});" if read == "TWAIT"
                  else f"if (TTEST(g, {draw(st.integers(0, 2))}, {draw(st.sampled_from(CMPS))})) {{ }}")
            gate = draw(st.sampled_from(("ttest", "choice", "wait", "none", "ttest")))
            if gate == "ttest":  # a flag that may or may not be set
                body = f"if (TTEST(f, 1, {draw(st.sampled_from(('EQ', 'NE')))})) {{ {op} }}"
            elif gate == "choice":
                body = f"int k = any(0, 1); if (k == 1) {{ {op} }}"
            elif gate == "wait":  # decided by another element, read for good
                body = f"if (TTEST(f, 1, GE)) {{ {op} }} TNOTIFY(h, 1, AtomicAdd);"
            else:
                body = op
        else:
            sets = draw(st.lists(st.sampled_from(("set0", "set1", "set2", "flag", "reset")), min_size=1, max_size=3))
            parts = []
            for s in sets:
                if s == "flag":
                    parts.append("TNOTIFY(f, 1, Set);")
                elif s == "reset" and nranks > 1:
                    parts.append("TNOTIFY(g @ (rank + 1) % nranks, 0, Set);")
                elif s == "reset":
                    parts.append("TNOTIFY(g, 0, Set);")
                else:
                    parts.append(f"TNOTIFY(g, {s[-1]}, Set);")
            body = " ".join(parts)
        lines.append(f"    {'if' if b == 0 else 'else if'} (block == {b}) {{ {body} }}")
    return (f"ranks {nranks};\nblocks {nblocks};\nsignal g;\nsignal f;\nsignal h;\n"
            "kernel {\n" + "\n".join(lines) + "\n}\n")

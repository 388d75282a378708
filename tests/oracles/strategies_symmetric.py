"""Hypothesis strategies for small rank-symmetric `.sig` protocols (the symmetry tests).

`symmetric_specs()` draws rings and neighbourhood protocols written the way symmetric kernels
are: every rank runs the same code, ranks are named relative to `rank`
(`(rank + c) % nranks`, `any(0, nranks - 1)`, local arrays of them), signals are indexed by a round (a number) or
by a rank (a dimension of size nranks), and comparisons between ranks are == and != only.
Now and then (`break_it`) one statement breaks the symmetry the way real specs do (a fixed
rank, an ordered comparison, a counted loop over ranks), so that the tests see the detector
refuse it. Values are small so that EQ waits can be unsatisfiable and Sets can overwrite
unread values: deadlocks and lost notifications are reachable. A process may spin forever in
a local loop that keeps assigning a rank to a local nobody reads (its state then holds a
dead local: stop 49 found the renaming wrong there).
"""

from __future__ import annotations

from hypothesis import strategies as st

CMPS = ("EQ", "NE", "GT", "GE", "LT", "LE")
BREAKERS = (
    "if (rank == 0) {{ TNOTIFY({sig} @ next, 1, AtomicAdd); }}",
    "if (rank < next) {{ TNOTIFY({sig} @ next, 1, AtomicAdd); }}",
    "TNOTIFY({sig} @ 0, 1, AtomicAdd);",
    "for (int p = 0; p < nranks; p++) {{ if (p != rank) {{ TNOTIFY({sig} @ p, 1, AtomicAdd); }} }}",
)


@st.composite
def symmetric_specs(draw, break_it: bool = False) -> str:
    n = draw(st.integers(2, 4))
    blocks = draw(st.sampled_from((1, 1, 2))) if n <= 3 else 1
    rounds = draw(st.integers(1, 2))
    round_dims = draw(st.sampled_from(((), (rounds,))))
    rank_sig = draw(st.booleans())
    lines = [f"ranks {n};"]
    if blocks > 1:
        lines.append(f"blocks {blocks};")
    lines.append("signal f" + "".join(f"[{d}]" for d in round_dims) + ";")
    if rank_sig:
        lines.append(f"signal m[{n}];")
    if draw(st.integers(0, 2)) == 0:
        lines.append("check clean_exit;")
    host = draw(st.sampled_from(("", "launch;", "launch; reset f;", "launch; host_barrier; launch;",
                                 "launch; reset f; host_barrier; launch;")))
    if host:
        lines.append("host { " + host + " }")
    ranks = ["rank", "next", "prev"]
    body = [f"int next = (rank + {draw(st.integers(1, n))}) % nranks;",
            "int prev = (rank + nranks - 1) % nranks;"]
    if draw(st.integers(0, 2)) == 0:
        body.append("int q = any(0, nranks - 1);")
        ranks.append("q")
    if draw(st.integers(0, 3)) == 0:  # a local array of ranks
        body.append("int pr[2] = {next, prev};")
        ranks += ["pr[0]", "pr[1]"]
    stmts = []
    budget = draw(st.integers(2, 5 if blocks == 1 and n <= 3 else 3))
    in_round = rounds > 1 and draw(st.booleans())
    index = "[step]" if in_round and round_dims else ("[0]" if round_dims else "")
    value = "step + 1" if in_round else "1"
    for _ in range(budget):
        kind = draw(st.sampled_from(("notify", "notify", "wait", "wait", "test", "if_rank", "if_block", "mnotify",
                                     "mwait", "assert", "spin")))
        target = draw(st.sampled_from(ranks))
        if kind == "notify":
            op = draw(st.sampled_from(("Set", "AtomicAdd")))
            stmts.append(f"TNOTIFY(f{index} @ {target}, {draw(st.sampled_from((value, '1', '2')))}, {op});")
        elif kind == "wait":
            stmts.append(f"TWAIT(f{index}, {draw(st.sampled_from((value, '1', '2')))}, "
                         f"{draw(st.sampled_from(('GE', 'GE', 'EQ', 'NE', 'LE')))});")
        elif kind == "test":
            stmts.append(f"if (TTEST(f{index}, {value}, {draw(st.sampled_from(CMPS))})) "
                         f"{{ TNOTIFY(f{index} @ {target}, 1, AtomicAdd); }}")
        elif kind == "if_rank":
            a, b = draw(st.sampled_from(ranks)), draw(st.sampled_from(ranks))
            cmp = draw(st.sampled_from(("==", "!=")))
            stmts.append(f"if ({a} {cmp} {b}) {{ TNOTIFY(f{index} @ {target}, 1, AtomicAdd); }}")
        elif kind == "if_block" and blocks > 1:
            stmts.append(f"if (block == 0) {{ TWAIT(f{index}, 1, GE); }} else {{ TNOTIFY(f{index} @ {target}, 1, "
                         f"AtomicAdd); }}")
        elif kind == "mnotify" and rank_sig:
            stmts.append(f"TNOTIFY(m[{draw(st.sampled_from(ranks))}] @ {target}, 1, "
                         f"{draw(st.sampled_from(('Set', 'AtomicAdd')))});")
        elif kind == "mwait" and rank_sig:
            stmts.append(f"TWAIT(m[{draw(st.sampled_from(ranks))}], 1, GE);")
        elif kind == "spin":  # spins forever holding ranks in locals, one of them dead (stop 49)
            stmts.append(f"if (TTEST(f{index}, {draw(st.sampled_from(('0', value)))}, GE)) {{ int u = {target}; "
                         f"while (true) {{ u = {draw(st.sampled_from(ranks))}; }} }}")
        elif kind == "assert":
            stmts.append(f"assert({draw(st.sampled_from(ranks))} != {draw(st.sampled_from(ranks))});")
    if break_it:
        at = draw(st.integers(0, len(stmts)))
        stmts.insert(at, draw(st.sampled_from(BREAKERS)).format(sig=f"f{'[0]' if round_dims else ''}"))
    if in_round:
        body.append(f"for (int step = 0; step < {rounds}; step++) {{ " + " ".join(stmts) + " }")
    else:
        body += stmts
    lines.append("kernel {\n    " + "\n    ".join(body) + "\n}")
    return "\n".join(lines) + "\n"

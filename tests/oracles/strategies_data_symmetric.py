"""Hypothesis strategies for small rank-symmetric `.sig` protocols with data buffers (the
tests of the rank rotation over the happens-before clocks, tests/model/test_data_symmetry.py).

`symmetric_data_specs()` draws rings written the way symmetric data kernels are: every rank
runs the same code, peers are named relative to `rank` (`next`, `prev`), a per-rank buffer
`b[2]` and a buffer `box[N]` with a rank dimension (`box[p]` on rank r: what rank p put
there), signals `f[2]` and now and then `m[N]` with a rank dimension. Statements: TPUT (plain,
AtomicAdd, async with WAIT_EVENT, TEST_EVENT or neither, sometimes a TNOTIFY before the
wait), TGET, READ and WRITE (local and remote), fences and pipe_barrier/dsb, TNOTIFY (Set,
AtomicAdd), TWAIT and TTEST on one element or the whole signal (after both flags are
notified, so that a pass that has read one holds a pending clock), LOAD, STORE, FETCH_ADD, CAS,
in branches on blocks or on `next != prev`; hosts that launch twice with a reset. Unfenced
puts before a notify, reads without a wait and Sets over unread values are all drawn, so
data races, deadlocks and lost notifications are reachable.

With `break_it` one statement breaks the symmetry the way real data kernels do (a fixed
rank, a constant rank index), so that the tests see the detector refuse it.
"""

from __future__ import annotations

from hypothesis import strategies as st
from oracles.strategies_data import FORMS

BREAKERS = (  # each refused whatever else the kernel does
    "TPUT(b[0] @ 0, b[1]);",
    "READ(box[0]); TPUT(box[rank] @ next, b[0]);",
    "if (rank == 0) {{ WRITE(b[0]); }}",
    "TPUT(box[1] @ next, b[0]); READ(box[prev]);",
    "for (int p = 0; p < nranks; p++) {{ READ(b[0] @ p); }}",
)


@st.composite
def _stmt(draw, peers: list[str], rank_sig: bool) -> str:
    kind = draw(st.sampled_from(["tput", "tput", "tput_box", "tget", "read", "read_box", "write", "async", "fence",
                                 "pipe_dsb", "notify", "notify", "wait", "test", "load", "store", "fetch_add", "cas",
                                 "flags"]
                                + (["mnotify", "mwait"] if rank_sig else [])))
    i, j = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    peer = draw(st.sampled_from(peers))
    if kind in FORMS:
        return FORMS[kind].format(i=i, j=j, peer=peer)
    if kind == "tput":
        atomic = ", AtomicAdd" if draw(st.integers(0, 3)) == 0 else ""
        return f"TPUT(b[{i}] @ {peer}, b[{j}]{atomic});"
    if kind == "tput_box":
        return f"TPUT(box[rank] @ {peer}, b[{j}]);"
    if kind == "read":
        return f"READ(b[{i}]{draw(st.sampled_from(('', f' @ {peer}')))});"
    if kind == "read_box":
        return f"READ(box[{draw(st.sampled_from(peers))}]);"
    if kind == "write":
        return f"WRITE(b[{i}]{draw(st.sampled_from(('', f' @ {peer}')))});"
    if kind == "async":
        wait = draw(st.sampled_from(("WAIT_EVENT(e);", "if (TEST_EVENT(e)) { READ(b[0]); }", "")))
        note = f" TNOTIFY(f[{j}] @ {peer}, 1, Set);" if draw(st.booleans()) else ""
        return f"{{ event e = TPUT_ASYNC(box[rank] @ {peer}, b[{j}]);{note} {wait} }}"
    if kind == "notify":
        return f"TNOTIFY(f[{i}] @ {peer}, 1, {draw(st.sampled_from(('Set', 'AtomicAdd')))});"
    if kind == "wait":
        return f"TWAIT({draw(st.sampled_from((f'f[{i}]', 'f')))}, 1, GE);"
    if kind == "test":
        return f"if (TTEST(f[{i}], 1, GE)) {{ READ(box[{peer}]); }}"
    if kind == "flags":  # both flags, then a wait over both: a pass that has read one holds a pending clock
        return f"TNOTIFY(f[0] @ {peer}, 1, Set); TNOTIFY(f[1] @ {peer}, 1, AtomicAdd); TWAIT(f, 1, GE);"
    if kind == "mnotify":
        return f"TNOTIFY(m[rank] @ {peer}, 1, AtomicAdd);"
    return f"TWAIT(m[{peer}], 1, GE);"


@st.composite
def symmetric_data_specs(draw, break_it: bool = False) -> str:
    n = draw(st.integers(2, 3))
    blocks = draw(st.sampled_from((1, 1, 2))) if n == 2 else 1
    rank_sig = draw(st.booleans())
    lines = [f"ranks {n};", f"blocks {blocks};", "buffer b[2];", f"buffer box[{n}];", "signal f[2];"]
    if rank_sig:
        lines.append(f"signal m[{n}];")
    host = draw(st.sampled_from(("", "", "launch; launch;", "launch; host_barrier; reset f; host_barrier; launch;")))
    if host:
        lines.append("host { " + host + " }")
    peers = ["rank", "next", "prev"]
    body = [f"int next = (rank + {draw(st.integers(1, n - 1))}) % nranks;",
            "int prev = (rank + nranks - 1) % nranks;"]
    stmts = [draw(_stmt(peers, rank_sig)) for _ in range(draw(st.integers(1, 3 if n == 2 and blocks == 1 else 2)))]
    shape = draw(st.sampled_from(("plain", "plain", "block", "peers")))
    if shape == "block" and blocks > 1:
        other = draw(_stmt(peers, rank_sig))
        stmts = [f"if (block == 0) {{ {' '.join(stmts)} }} else {{ {other} }}"]
    elif shape == "peers":
        stmts = [f"if (next != prev) {{ {' '.join(stmts)} }} else {{ {draw(_stmt(peers, rank_sig))} }}"]
    if break_it:
        stmts.insert(draw(st.integers(0, len(stmts))), draw(st.sampled_from(BREAKERS)).format())
    body += stmts
    lines.append("kernel {\n    " + "\n    ".join(body) + "\n}")
    return "\n".join(lines) + "\n"

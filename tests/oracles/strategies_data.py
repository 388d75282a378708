"""Hypothesis strategies for tiny `.sig` protocols with data buffers (data-race tests).

`data_specs()` draws 1-2 ranks x 1-2 blocks, a buffer `b[2]` and signals `f[2]`, an
optional host with two launches (a reset, a host barrier), and per process a handful of
statements: TPUT (plain and AtomicAdd), TGET, READ, WRITE, an async put with WAIT_EVENT
or TEST_EVENT (sometimes none), fences and the two-part pipe_barrier/dsb, TNOTIFY (Set,
AtomicAdd), TWAIT / TTEST on one element or the whole signal, LOAD, STORE, FETCH_ADD, CAS,
in rank / block branches. Small enough to enumerate every execution.
"""

from __future__ import annotations

from hypothesis import strategies as st

PEERS = ("rank", "(rank + 1) % nranks", "0")

# statements made of two element indices i, j (0 or 1) and a peer alone (str.format templates);
# tests/oracles/strategies_data_symmetric.py draws them too
FORMS = {
    "tget": "TGET(b[{i}], b[{j}] @ {peer});",
    "fence": "fence;",
    "pipe_dsb": "pipe_barrier(PIPE_ALL); dsb(DSB_DDR);",
    "load": "if (LOAD(f[{i}] @ {peer}) > 0) {{ READ(b[{j}]); }}",
    "store": "STORE(f[{i}] @ {peer}, 1);",
    "fetch_add": "FETCH_ADD(f[{i}] @ {peer}, 1);",
    "cas": "if (CAS(f[{i}] @ {peer}, 0, 1)) {{ WRITE(b[{j}]); }}",
}


@st.composite
def _stmt(draw, async_ok: bool):
    kind = draw(st.sampled_from(["tput", "tput", "tget", "read", "read", "write", "notify", "notify", "wait",
                                 "wait", "test", "fence", "pipe_dsb", "load", "store", "fetch_add", "cas"]
                                + (["async"] if async_ok else [])))
    i, j = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    peer = draw(st.sampled_from(PEERS))
    if kind in FORMS:
        return FORMS[kind].format(i=i, j=j, peer=peer)
    if kind == "tput":
        atomic = ", AtomicAdd" if draw(st.booleans()) and draw(st.booleans()) else ""
        return f"TPUT(b[{i}] @ {peer}, b[{j}]{atomic});"
    if kind in ("read", "write"):
        at = draw(st.sampled_from(("", "", f" @ {peer}")))
        return f"{kind.upper()}(b[{i}]{at});"
    if kind == "notify":
        op = draw(st.sampled_from(("Set", "AtomicAdd")))
        return f"TNOTIFY(f[{i}] @ {peer}, 1, {op});"
    if kind == "wait":
        view = draw(st.sampled_from((f"f[{i}]", "f")))
        return f"TWAIT({view}, 1, GE);"
    if kind == "test":
        return f"if (TTEST(f[{i}], 1, GE)) {{ READ(b[{j}]); }}"
    wait = draw(st.sampled_from(("WAIT_EVENT(e);", "if (TEST_EVENT(e)) { READ(b[0]); }", "")))
    note = f" TNOTIFY(f[{j}] @ {peer}, 1, Set);" if draw(st.booleans()) else ""
    return f"{{ event e = TPUT_ASYNC(b[{i}] @ {peer}, b[{j}]);{note} {wait} }}"


@st.composite
def data_specs(draw, max_statements: int = 3) -> str:
    nranks = draw(st.integers(1, 2))
    nblocks = draw(st.integers(1, 2)) if nranks == 1 else 1
    host = draw(st.sampled_from(("", "", "host { launch; launch; }", "host { launch; host_barrier; reset f; "
                                 "host_barrier; launch; }")))
    branches = []
    for cond in (("rank == 0", "rank != 0") if nranks > 1 else ("block == 0", "block != 0")):
        n = draw(st.integers(1, max_statements))
        body = " ".join(draw(_stmt(async_ok=True)) for _ in range(n))
        branches.append((cond, body))
    kernel = " else ".join(f"if ({c}) {{ {b} }}" for c, b in branches)
    return (f"ranks {nranks};\nblocks {nblocks};\nbuffer b[2];\nsignal f[2];\n{host}\n"
            f"kernel {{\n    {kernel}\n}}\n")


def _sign(draw, op: str) -> str:
    return "-" if op == "AtomicAdd" and draw(st.integers(0, 3)) == 0 else ""


def _notify(draw, i, peer, v) -> str:
    op = draw(st.sampled_from(("Set", "AtomicAdd", "AtomicAdd")))
    return f"TNOTIFY(f[{i}] @ {peer}, {_sign(draw, op)}{v}, {op});"


# kind -> (draw, element index, peer, value) -> statement; "data" falls back to `_stmt`
_POR_FORMS = {
    "load_assert": lambda draw, i, peer, v:
        f"if (LOAD(f[{i}] @ {peer}) {draw(st.sampled_from(('>', '==', '<')))} {v - 1}) {{ assert(false); }}",
    "cas_assert": lambda draw, i, peer, v: f"if (CAS(f[{i}] @ {peer}, 0, {v})) {{ assert(rank != 0); }}",
    "fetch_assert": lambda draw, i, peer, v: f"{{ int old = FETCH_ADD(f[{i}] @ {peer}, 1); assert(old != {v}); }}",
    "test_assert": lambda draw, i, peer, v:
        f"assert(!TTEST(f[{i}], {v}, {draw(st.sampled_from(('GE', 'EQ', 'LE')))}));",
    "notify": _notify,
    "wait": lambda draw, i, peer, v: f"TWAIT(f[{i}], {v}, {draw(st.sampled_from(('GE', 'GE', 'EQ', 'LE')))});",
    "poll": lambda draw, i, peer, v: f"while (!TTEST(f[{i}], {v}, GE)) {{ }}",
    "choice": lambda draw, i, peer, v: (f"{{ int c = any(0, 1); if (c == 1) {{ TNOTIFY(f[{i}] @ {peer}, {v}, Set); }} "
                                        f"else {{ assert(rank != 1); }} }}"),
    "store": lambda draw, i, peer, v: f"STORE(f[{i}] @ {peer}, {v});",
}


@st.composite
def _por_stmt(draw):
    """A statement whose outcome depends on the order of other processes' signal steps, for the
    reduction's data mode: asserts on LOAD, CAS and FETCH_ADD results and on TTEST, waits and
    notifies of values 1 and 2 (GE, EQ, LE; Set and AtomicAdd of both signs), a spinning poller,
    a choice, and the data statements of `_stmt`."""
    kind = draw(st.sampled_from(["load_assert", "cas_assert", "fetch_assert", "test_assert", "notify", "notify",
                                 "notify", "wait", "poll", "choice", "store", "data", "data"]))
    i = draw(st.integers(0, 1))
    peer = draw(st.sampled_from(PEERS))
    v = draw(st.integers(1, 2))
    form = _POR_FORMS.get(kind)
    if form is not None:
        return form(draw, i, peer, v)
    return draw(_stmt(async_ok=False))


@st.composite
def data_por_specs(draw, max_statements: int = 3) -> str:
    """Tiny data protocols for the reduction's data mode: 2 or 3 processes (ranks, or blocks of
    one rank) with a buffer `b[2]` and signals `f[2]`, each running a few `_por_stmt`."""
    nranks = draw(st.integers(1, 3))
    nblocks = draw(st.integers(2, 3)) if nranks == 1 else 1
    conds = [f"rank == {k}" for k in range(nranks)] if nranks > 1 else [f"block == {k}" for k in range(nblocks)]
    branches = []
    for cond in conds:
        n = draw(st.integers(1, max_statements))
        branches.append((cond, " ".join(draw(_por_stmt()) for _ in range(n))))
    kernel = " else ".join(f"if ({c}) {{ {b} }}" for c, b in branches)
    return f"ranks {nranks};\nblocks {nblocks};\nbuffer b[2];\nsignal f[2];\nkernel {{\n    {kernel}\n}}\n"


# statements on whole blocks of two elements: b[4] as two blocks, m[2][2] as two rows (model/grain.py),
# str.format templates over i, j (0 or 1), p (a peer) and the fields of `_fill`
_GRAIN_FORMS = (
    "TPUT(b[2 * {i}:2 * {i} + 2] @ {p}, b[{j2}:{j2e}]);",
    "TPUT(b @ {p}, b, AtomicAdd);",
    "TGET(b[{i2}:{i2e}], b[{j2}:{j2e}] @ {p});",
    "READ(b[{i2}:{i2e}] @ {p});",
    "WRITE(b[{i2}:]);",
    "for (int k = 0; k < 2; k += 1) {{ WRITE(b[2 * k:2 * k + 2] @ {p}); }}",
    "{{ int o = {i} * 2; o = o + 2 * {j}; READ(b[o % 4:o % 4 + 2]); }}",
    "TPUT(m[{i}] @ {p}, m[{j}]);",
    "READ(m[0] @ {p});",
    "TPUT(b @ {p}, m);",  # buffers of different grains: 4 elements each
    "TGET(m[{i}], b[{j2}:{j2e}] @ {p});",
    "{{ int c = any(0, 1); READ(b[c * 2:c * 2 + 2] @ {p}); }}",
    "WRITE(b[rank * 2:rank * 2 + 2] @ {p});",
    "READ(b[(rank == {i} ? 2 : 0):(rank == {i} ? 4 : 2)]);",
    "{{ int v = LOAD(f[{i}]) * 2; if (v < 4) {{ WRITE(b[v:v + 2] @ {p}); }} }}",
    "{{ int o = {j2}; if (rank == {i}) {{ o = 2 - o; }} READ(b[o:o + 2] @ {p}); }}",
    "{{ int o = 2 * {i} + 2; WRITE(b[o % 4:4] @ {p}); }}",
    "{{ int c = any(0, 1); READ(b[-(c * -2):4]); }}",
    "{{ int c = any(0, 1); WRITE(b[c << 1:4] @ {p}); }}",
    "WRITE(m[{i}:]);",
    "{{ event e = TPUT_ASYNC(b[{i2}:{i2e}] @ {p}, b[0:2]); WAIT_EVENT(e); }}",
    "fence;",
    "pipe_barrier(PIPE_ALL); dsb(DSB_DDR);",
    "TNOTIFY(f[{i}] @ {p}, 1, Set);",
    "TNOTIFY(f[{i}] @ {p}, 1, AtomicAdd);",
    "TWAIT(f[{i}], 1, GE);",
    "if (TTEST(f[{i}], 1, GE)) {{ READ(m[{j}]); }}",
)
# statements that touch part of a block: with one, the buffer keeps one shadow per element
_GRAIN_BREAKERS = (
    "READ(b[{i2o}] @ {p});",
    "WRITE(m[{i}][{j}]);",
    "TPUT(b[1:3] @ {p}, b[0:2]);",
    "READ(b[{i}:4:2]);",
    "WRITE(b[0:4:{i_2}] @ {p});",
    "{{ int c = any(0, 1); READ(b[c + {i}:c + {i} + 2] @ {p}); }}",
    "{{ int v = LOAD(f[{i}]); if (v < 3) {{ WRITE(b[v:v + 2] @ {p}); }} }}",
    "{{ int o = {two_i}; if (rank == {j}) {{ o = {i_1}; }} WRITE(b[o:o + 2] @ {p}); }}",
    "READ(b[(rank == {i} ? {j2} : 1):(rank == {i} ? {j2e} : 3)] @ {p});",
    "READ(b[(rank == {i} ? 1 : {j2}):(rank == {i} ? 3 : {j2e})] @ {p});",
    "{{ int o = 1; if (rank == 5) {{ o = {j2}; }} WRITE(b[o:o + 2] @ {p}); }}",
    "{{ int c = any(1, 2); READ(b[c * 1:c * 1 + 2]); }}",
    "{{ int o = {i} + 1; WRITE(b[o % 4:4] @ {p}); }}",
)


def _fill(draw, forms) -> str:
    i, j = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    return draw(st.sampled_from(forms)).format(
        i=i, j=j, p=draw(st.sampled_from(PEERS)), i2=2 * i, i2e=2 * i + 2, i2o=2 * i + 1, j2=2 * j, j2e=2 * j + 2,
        i_2=2 + i, two_i=2 - i, i_1=1 + i)


@st.composite
def grain_specs(draw, max_statements: int = 3) -> str:
    """Tiny data protocols whose buffers are mostly accessed in whole blocks (`b[4]` in halves,
    `m[2][2]` by rows; through slices, loops, locals, async puts), sometimes with one access
    to part of a block: for the differential of model/grain.py against one shadow per element."""
    nranks = draw(st.integers(1, 2))
    nblocks = draw(st.integers(1, 2)) if nranks == 1 else 1
    conds = ("rank == 0", "rank != 0") if nranks > 1 else ("block == 0", "block != 0")
    breaker = draw(st.integers(0, 2)) == 2
    branches = []
    for cond in conds:
        stmts = []
        for _ in range(draw(st.integers(1, max_statements))):
            stmts.append(_fill(draw, _GRAIN_FORMS))
        if breaker and not branches:
            stmts.insert(draw(st.integers(0, len(stmts))), _fill(draw, _GRAIN_BREAKERS))
        branches.append((cond, " ".join(stmts)))
    kernel = " else ".join(f"if ({c}) {{ {b} }}" for c, b in branches)
    return (f"ranks {nranks};\nblocks {nblocks};\nbuffer b[4];\nbuffer m[2][2];\nsignal f[2];\n"
            f"kernel {{\n    {kernel}\n}}\n")

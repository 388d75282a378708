"""Hypothesis strategy: root-and-peers protocols over several launches with host barriers.

The shape of `specs/root_multi_launch.sig` and of the field's epilogues: peers count in
at rank 0 with AtomicAdds, rank 0 waits for the count and releases them; between launches
the hosts reset their signals, with host barriers around the resets. Each part is drawn
with its usual bugs: a barrier left out or put on one rank only, a reset in the wrong
place or on one rank only, adds of the wrong sign or of both signs, a Set among the adds,
hosts that add to the count too,
rank 0 adding to its own counter, a threshold off by one, EQ for GE, a second add, values
that depend on the launch. These are what the reduction's rules about hosts past a
host_barrier, the adds a host can still make before one, and the AtomicAdds that commute
with each other (model/independence.py) must get right: `tests/model/test_reduction.py`
holds the reduced search to the plain reference on them.
"""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def rooted_specs(draw) -> str:
    nranks = draw(st.integers(2, 3))
    launches = draw(st.integers(1, 3) if nranks == 2 else st.integers(1, 2))
    waits = [draw(st.sampled_from(("GE", "GE", "EQ")))]

    def host_step(kind: str) -> str:
        if kind == "barrier":
            return "host_barrier;"
        if kind == "barrier0":
            return "if (rank == 0) { host_barrier; }"
        if kind == "hostadd":  # a host that counts in too (or takes one back)
            return f"if (rank != 0) {{ TNOTIFY(arrived @ 0, {draw(st.sampled_from(('1', '-1')))}, AtomicAdd); }}"
        target = draw(st.sampled_from(("arrived", "release", "arrived", "release")))
        return f"reset {target};" if kind == "reset" else f"if (rank == {draw(st.integers(0, 1))}) {{ reset {target}; }}"

    between = draw(st.lists(st.sampled_from(("barrier", "reset", "reset", "barrier", "barrier0", "reset1", "hostadd")),
                            min_size=0, max_size=4))
    before = draw(st.lists(st.sampled_from(("barrier", "reset")), max_size=1))
    body = [host_step(k) for k in before] + ["launch;"] + [host_step(k) for k in between]
    if draw(st.booleans()) or launches == 1:
        host = "host {\n    for (int l = 0; l < %d; l++) {\n%s\n    }\n}" % (
            launches, "\n".join("        " + x for x in body))
    else:  # unrolled, the last launch without what follows it
        lines = []
        for k in range(launches):
            lines += body if k < launches - 1 else [host_step(x) for x in before] + ["launch;"]
        host = "host {\n%s\n}" % "\n".join("    " + x for x in lines)

    add = draw(st.sampled_from(("1", "1", "1", "-1", "2", "launch_id + 1")))
    second = draw(st.sampled_from((None, None, None, "1", "-1")))
    threshold = draw(st.sampled_from(("nranks - 1", "nranks - 1", "nranks - 1", "nranks", "nranks - 2",
                                      "(nranks - 1) * (launch_id + 1)")))
    if add == "-1":
        threshold = "0 - (nranks - 1)"
        waits[0] = draw(st.sampled_from(("LE", "EQ")))
    root_own = draw(st.sampled_from((None, None, None, "1", "-1")))
    peer_op = draw(st.sampled_from(("AtomicAdd", "AtomicAdd", "AtomicAdd", "AtomicAdd", "Set")))
    release = draw(st.sampled_from(("1", "1", "launch_id + 1")))
    release_op = draw(st.sampled_from(("Set", "Set", "AtomicAdd")))
    release_wait = draw(st.sampled_from(("GE", "GE", "EQ")))
    release_value = "1" if release_op == "Set" or release == "1" else "launch_id + 1"

    root = []
    if root_own is not None:
        root.append(f"TNOTIFY(arrived @ 0, {root_own}, AtomicAdd);")
    root.append(f"TWAIT(arrived, {threshold}, {waits[0]});")
    root.append("for (int p = 1; p < nranks; p++) {")
    root.append(f"    TNOTIFY(release @ p, {release}, {release_op});")
    root.append("}")
    peer = [f"TNOTIFY(arrived @ 0, {add}, {peer_op});"]
    if second is not None:
        peer.append(f"TNOTIFY(arrived @ 0, {second}, AtomicAdd);")
    peer.append(f"TWAIT(release, {release_value}, {release_wait});")
    kernel = ("kernel {\n    if (rank == 0) {\n%s\n    } else {\n%s\n    }\n}" %
              ("\n".join("        " + x for x in root), "\n".join("        " + x for x in peer)))
    check = "check clean_exit;\n" if draw(st.integers(0, 3)) == 0 else ""
    return (f"ranks {nranks};\nsignal arrived;\nsignal release;\n{check}{host}\n{kernel}\n")

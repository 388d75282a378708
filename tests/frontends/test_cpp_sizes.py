"""A signal whose size the files do not give is sized to cover the indices the kernel uses
(issue 20, item 3: no false "index out of bounds" from a default size). simpler's allreduce
kernels index their scratch signal with a round counter, `int round = 0;` increased by
`++round` in two `for (step = 1; step < nranks; ++step)` loops, and with `256 / nranks`:
the counter is bounded by its start plus, per increment, the trips of the loops around it,
and a division by the rank count by its dividend. The look-alikes keep the default size
param (and its error verdict where an index passes it): a counter that also decreases, is
assigned, changes in a `while`, or is passed by reference; a loop whose variable changes in
its body."""

from __future__ import annotations

import pytest

from checker.kernels import check_inputs
from frontends.cpp import extract

HEAD = "#include <pto/comm/pto_comm_inst.hpp>\n"
KERNEL = """
extern "C" __aicore__ void kernel_entry(__gm__ int32_t *sig, int nranks, int my_rank)
{{
    int round = 0;
    for (int step = 1; step < nranks; ++step) {{
        {A}
        ++round;
    }}
    for (int step = 1; step < nranks; ++step) {{
        pto::comm::TNOTIFY(pto::comm::Signal(sig + 256 / nranks + round * 16 + my_rank), 1,
                           pto::comm::NotifyOp::AtomicAdd);
        {B}
    }}
}}
"""
CONFIG = {"pragmas": False, "rank": ["my_rank"], "nranks": ["nranks"], "ranks": 4}


def write(tmp_path, a: str = "", b: str = "++round;") -> str:
    p = tmp_path / "k.cpp"
    p.write_text(HEAD + KERNEL.format(A=a, B=b))
    return str(p)


def size_note(ex) -> str:
    return next(a.text for a in ex.assumptions if a.text.startswith("the size of signal sig"))


def test_a_round_counter_bounds_the_signal_size_and_the_check_is_ok(tmp_path):
    path = write(tmp_path)
    ex = extract([path], CONFIG)
    note = size_note(ex)
    assert "to cover the indices used" in note and "SIG_SIZE" not in ex.sig_text, note
    [result] = check_inputs([path], config=CONFIG)
    assert [v.property for v in result.violations] == [], result.violations
    assert result.stats.states > 1


@pytest.mark.parametrize("a, b", [
    ("--round;", "++round;"),                    # it also decreases
    ("round = 3;", "++round;"),                  # it is assigned
    ("while (round < 2) { round += 1; }", ""),   # it changes in a while loop
    ("bump(round);", "++round;"),                # passed by reference to a helper
    ("", "++round; step += 1;"),                 # the loop variable changes in the body
    ("again: ++round; if (round < 3) goto again;", ""),   # a goto can repeat the increment
])
def test_look_alikes_keep_the_default_size(tmp_path, a, b):
    path = tmp_path / "k.cpp"
    path.write_text(HEAD + "__aicore__ inline void bump(int &r) { r += 1; }\n" + KERNEL.format(A=a, B=b))
    ex = extract([str(path)], CONFIG)
    assert "is not known from the code; modelled as param SIG_SIZE = 16" in size_note(ex), size_note(ex)


def test_runtime_values_are_named_after_the_source_not_their_line(tmp_path):
    """Issue 20, item 3: simpler's `tensor->start_offset` was VALUE_93; now START_OFFSET, and a
    second value of the same name gets a suffix, not a line number."""
    p = tmp_path / "k.cpp"
    p.write_text(HEAD + """
struct T { int start_offset; };
extern "C" __aicore__ void kernel_entry(__gm__ int32_t *sig, __gm__ T *a, __gm__ T *b)
{
    pto::comm::TNOTIFY(pto::comm::Signal(sig + a->start_offset), 1, pto::comm::NotifyOp::AtomicAdd);
    pto::comm::TWAIT(pto::comm::Signal(sig + b->start_offset), 1, pto::comm::WaitCmp::GE);
}
""")
    ex = extract([str(p)], {"pragmas": False})
    params = sorted(line.split()[1] for line in ex.sig_text.splitlines() if line.startswith("param START"))
    assert params == ["START_OFFSET", "START_OFFSET_1"], ex.sig_text
    assert not [line for line in ex.sig_text.splitlines() if line.startswith("param VALUE")]

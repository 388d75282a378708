"""`switch` statements in a kernel: an if / else-if chain in the skeleton (docs/frontends.md,
"How it works"), with fall-through, shared labels and `default`; and the look-alikes: a
switch with no signal operation is local code, a `break` that belongs to a loop is the
loop's, and a `break` out of a case's control flow is refused where it matters."""

from __future__ import annotations

import pytest

from frontends.cpp import ExtractError, extract
from model import compile_spec, parse

HEAD = "#include <pto/comm/pto_comm_inst.hpp>\n"
SIG = "pto::comm::Signal"


def run(tmp_path, body: str):
    p = tmp_path / "k.cpp"
    p.write_text(HEAD + body)
    ex = extract([str(p)], {"pragmas": False})
    compile_spec(parse(ex.sig_text, "k.sig"), {})       # the skeleton is a valid spec
    return ex


def kernel(ex) -> list[str]:
    return [ln.strip() for ln in ex.sig_text.split("kernel {\n", 1)[1].split("\n}\n\nhost {", 1)[0].splitlines() if ln.strip()]


def notify(i: int, op: str = "Set") -> str:
    return f"pto::comm::TNOTIFY({SIG}(sig + {i}), 1, pto::comm::NotifyOp::{op});"


GROUPS = f"""
__global__ AICORE void k(__gm__ int32_t *sig)
{{
    int me = GetRank();
    switch (me) {{
    case 0:
        {notify(0)}
        break;
    case 1:
    case 2: {{
        pto::comm::TWAIT({SIG}(sig + 1), 1, pto::comm::WaitCmp::GE);
        break;
    }}
    case 3:
        {notify(3)}
    default:
        {notify(2, "AtomicAdd")}
    }}
}}
"""


def test_a_switch_is_an_if_chain_with_shared_labels_fall_through_and_default(tmp_path):
    ex = run(tmp_path, GROUPS)
    assert kernel(ex) == [
        "if (rank == 0) {", "TNOTIFY(sig[0], 1, Set);",
        "} else {", "if (rank == 1 || rank == 2) {", "TWAIT(sig[1], 1, GE);",
        "} else {", "if (rank == 3) {", "TNOTIFY(sig[3], 1, Set);", "TNOTIFY(sig[2], 1, AtomicAdd);",   # falls through
        "} else {", "TNOTIFY(sig[2], 1, AtomicAdd);",                                                  # default
        "}", "}", "}"]
    # each branch cites its case label; the fall-through's statements cite their own lines
    lines = ex.sig_text.splitlines()
    at = {e.sig_line: e.line for e in ex.source_map}
    cited = {lines[n - 1].strip(): line for n, line in at.items()}
    assert cited["if (rank == 1 || rank == 2) {"] == 10      # `case 1:`, the first label of the entry
    assert cited["if (rank == 3) {"] == 15


def test_a_default_in_the_middle_falls_through_into_the_next_case(tmp_path):
    body = GROUPS.replace("    case 3:\n        " + notify(3) + "\n    default:\n",
                          "    default:\n        " + notify(3) + "\n    case 4:\n")
    ex = run(tmp_path, body)
    k = kernel(ex)
    at = k.index("if (rank == 4) {")
    assert k[at + 1:at + 5] == ["TNOTIFY(sig[2], 1, AtomicAdd);", "} else {",        # case 4
                                "TNOTIFY(sig[3], 1, Set);", "TNOTIFY(sig[2], 1, AtomicAdd);"]   # default, falling into case 4


def test_a_constant_switch_takes_its_case(tmp_path):
    body = GROUPS.replace("template", "").replace("switch (me)", "switch (MODE)")
    ex = run(tmp_path, "constexpr int MODE = 3;\n" + body)
    assert kernel(ex) == ["TNOTIFY(sig[3], 1, Set);", "TNOTIFY(sig[2], 1, AtomicAdd);"]
    ex = run(tmp_path, "constexpr int MODE = 7;\n" + body)
    assert kernel(ex) == ["TNOTIFY(sig[2], 1, AtomicAdd);"]
    ex = run(tmp_path, "constexpr int MODE = 7;\n" + body.replace("    default:\n", "    case 5:\n"))
    assert "TNOTIFY" not in "".join(kernel(ex))      # no case matches, no default: nothing runs


def test_a_case_break_inside_a_loop_leaves_the_switch_not_the_loop(tmp_path):
    body = f"""
__global__ AICORE void k(__gm__ int32_t *sig)
{{
    for (int i = 0; i < 3; ++i) {{
        switch (i) {{
        case 0:
            {notify(0)}
            break;
        default:
            for (int j = 0; j < 2; ++j) {{
                if (j == 1) {{
                    break;
                }}
                {notify(1)}
            }}
            break;
        }}
    }}
}}
"""
    k = kernel(run(tmp_path, body))
    assert k[:3] == ["for (int i = 0; i < 3; i++) {", "if (i == 0) {", "TNOTIFY(sig[0], 1, Set);"]
    assert k.count("break;") == 1                  # the inner loop's own break, nothing else
    assert k[k.index("break;") - 1] == "if (j == 1) {"


def test_a_switch_without_signal_operations_is_local_code(tmp_path):
    body = f"""
__global__ AICORE void k(__gm__ int32_t *sig, int mode)
{{
    int me = GetRank();
    int scratch = 0;
    switch (mode) {{ case 0: scratch = 1; break; default: scratch = 2; }}
    int peer = 0;
    switch (mode) {{ case 0: peer = 1; break; case 1: peer = me; break; }}
    pto::comm::TNOTIFY({SIG}(sig), 1, pto::comm::NotifyOp::Set);
    pto::comm::TNOTIFY({SIG}(sig), peer, pto::comm::NotifyOp::Set);
}}
"""
    k = kernel(run(tmp_path, body))
    assert not any("scratch" in ln for ln in k)       # pruned: no signal operation reads it
    assert k[:7] == ["int peer = 0;", "if (MODE == 0) {", "peer = 1;", "} else {", "if (MODE == 1) {", "peer = rank;", "}"]


def test_a_break_out_of_a_case_s_control_flow_is_refused_around_a_signal_operation(tmp_path):
    body = GROUPS.replace("    case 3:\n", "    case 3:\n        if (me > 5) {\n            break;\n        }\n")
    with pytest.raises(ExtractError) as e:
        run(tmp_path, body)
    assert ":17:13: error: a break out of a switch from inside a case's control flow" in str(e.value)


def test_the_same_break_without_a_signal_operation_is_left_out_and_said(tmp_path):
    body = f"""
__global__ AICORE void k(__gm__ int32_t *sig, int mode)
{{
    int peer = 0;
    switch (mode) {{ case 0: if (GetRank() == 0) {{ break; }} peer = 1; break; }}
    int unused = 0;
    switch (mode) {{ case 0: if (GetRank() == 0) {{ break; }} break; }}
    pto::comm::TNOTIFY({SIG}(sig), 1, pto::comm::NotifyOp::Set);
}}
"""
    ex = run(tmp_path, body)
    said = [str(a) for a in ex.assumptions if "this switch is left out" in a.text]
    assert len(said) == 1 and ":6:5: " in said[0] and "it assigns peer" in said[0], said


def test_a_switch_on_a_signal_read_reads_it_once(tmp_path):
    body = f"""
__global__ AICORE void k(__gm__ int32_t *sig)
{{
    switch (pto::comm::TTEST({SIG}(sig), 1, pto::comm::WaitCmp::GE)) {{
    case 1:
        {notify(1)}
        break;
    case 0:
        {notify(2)}
        break;
    }}
}}
"""
    k = kernel(run(tmp_path, body))
    assert k[0].startswith("int switch_value = TTEST(sig[0]") or k[0].startswith("int switch_value = TTEST(sig"), k
    assert sum("TTEST" in ln for ln in k) == 1
    assert k[1] == "if (switch_value == 1) {"

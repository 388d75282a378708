"""Which functions are kernels, and which of a file's kernels `sigproof check` checks (issue
20, item 1; docs/frontends.md, "Checking a kernel"): one kernel entry is checked whatever its
name, `__global__` or pypto / simpler's `extern "C" __aicore__`; of several, each with a
signal or data-transfer operation, one result each named `file.cpp:Kernel`, unless the
config picks one. The look-alikes: a device helper with signal operations (`AICORE inline`,
`__aicore__` without C linkage) is never a second kernel."""

from __future__ import annotations

import pytest

from checker.kernels import check_inputs, kernel_names, split_name, spec_name
from frontends.cpp import ExtractError, extract, kernels
from frontends.cpp.source import load

HEAD = "#include <pto/comm/pto_comm_inst.hpp>\n"
NOTIFY = "pto::comm::TNOTIFY(pto::comm::Signal(sig), 1, pto::comm::NotifyOp::AtomicAdd);"
WAIT = "pto::comm::TWAIT(pto::comm::Signal(sig + 1), 1, pto::comm::WaitCmp::GE);"


def write(tmp_path, body: str, name: str = "k.cpp") -> str:
    p = tmp_path / name
    p.write_text(HEAD + body)
    return str(p)


def entries(path: str) -> list[str]:
    return sorted(n for n, fs in load([path]).functions.items() for f in fs if f.is_kernel)


@pytest.mark.parametrize("decl", [
    'extern "C" __aicore__ void kernel_entry(__gm__ int32_t *sig)',          # pypto, simpler
    'extern "C" AICORE void kernel_entry(__gm__ int32_t *sig)',
    'extern "C" __global__ __aicore__ void kernel_entry(__gm__ int32_t *sig)',
    '__global__ AICORE void kernel_entry(__gm__ int32_t *sig)',
    'extern "C" {\n__aicore__ void kernel_entry(__gm__ int32_t *sig)',
])
def test_one_kernel_entry_is_checked_without_config_whatever_its_name(tmp_path, decl):
    close = "}\n" if decl.startswith('extern "C" {') else ""
    path = write(tmp_path, f"{decl}\n{{\n    {NOTIFY}\n}}\n{close}")
    assert kernels([path], {"pragmas": False}) == ["kernel_entry"]
    ex = extract([path], {"pragmas": False})
    assert ex.kernel == "kernel_entry" and "TNOTIFY(sig, 1, AtomicAdd);" in ex.sig_text
    assert kernel_names(__import__("pathlib").Path(path), {"pragmas": False}) == [None]   # named as the file


def test_an_entry_after_a_blanked_region_with_multi_byte_characters_is_found(tmp_path):
    """simpler's deepseek kernels: a `#if defined(__CPU_SIM)` region whose comments hold
    multi-byte characters is blanked byte for byte before `extern "C" __aicore__
    __attribute__((always_inline)) void kernel_entry`; the qualifiers are found by character
    offsets of the original text (before: 'no kernel entry found' on 24 of simpler's kernels)."""
    body = ('#if defined(__CPU_SIM)\n// simulator stubs \u2014 \u201cdcci\u201d and \u201cdsb\u201d as fences\n#endif\n'
            'extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int32_t *sig)\n{\n'
            f'    {NOTIFY}  // \u2192 the peer\n    {WAIT}\n}}\n')
    path = write(tmp_path, body)
    assert entries(path) == ["kernel_entry"]
    ex = extract([path], {"pragmas": False})
    assert [(c.kind, c.line, c.col) for c in ex.call_sites] == [("TNOTIFY", 7, 5), ("TWAIT", 8, 5)]


def test_device_helpers_with_signal_operations_are_not_kernels(tmp_path):
    body = f"""
AICORE inline void Ping(__gm__ int32_t *sig) {{ {NOTIFY} }}
__aicore__ void Pong(__gm__ int32_t *sig) {{ {WAIT} }}
extern "C" __aicore__ inline void Both(__gm__ int32_t *sig) {{ Ping(sig); Pong(sig); }}
extern "C" {{ static __aicore__ void Quiet(__gm__ int32_t *sig) {{ {NOTIFY} }} }}
extern "C" __aicore__ void kernel_entry(__gm__ int32_t *sig)
{{
    Both(sig);
}}
"""
    path = write(tmp_path, body)
    assert entries(path) == ["kernel_entry"]
    assert kernels([path], {"pragmas": False}) == ["kernel_entry"]
    lines = extract([path], {"pragmas": False}).sig_text
    assert "TNOTIFY(sig[0], 1, AtomicAdd);" in lines and "TWAIT(sig[1], 1, GE);" in lines


def test_a_global_mark_earlier_in_the_file_does_not_make_a_later_c_function_a_kernel(tmp_path):
    # the mark is looked for between the function and what precedes it, also inside extern "C" { }
    body = f"""
__global__ AICORE void First(__gm__ int32_t *sig) {{ {NOTIFY} }}
extern "C" {{
AICORE inline void Helper(__gm__ int32_t *sig) {{ {WAIT} }}
void HostSide(int n) {{ }}
}}
#if 1
void Other(__gm__ int32_t *sig) {{ Helper(sig); }}
#endif
"""
    path = write(tmp_path, body)
    assert entries(path) == ["First"]


MULTI = f"""
AICORE inline void Ping(__gm__ int32_t *sig)
{{
    {NOTIFY}
}}

__global__ AICORE void Good(__gm__ int32_t *sig)
{{
    Ping(sig);
}}

__global__ AICORE void Stuck(__gm__ int32_t *sig)
{{
    {WAIT}
}}

__global__ AICORE void Copy(__gm__ float *a, __gm__ float *b)
{{
    a[0] = b[0];
}}
"""


def test_several_kernels_check_each_with_signal_operations_and_say_which_are_skipped(tmp_path):
    path = write(tmp_path, MULTI)
    assert kernels([path], {"pragmas": False}) == ["Good", "Stuck"]     # Good through its helper
    results = check_inputs([path], config={"pragmas": False})
    assert [(r.spec, r.status) for r in results] == [(f"{path}:Good", "pass"), (f"{path}:Stuck", "fail")]
    for r in results:
        skipped = [a for a in r.assumptions if "kernel Copy has no signal" in a.text]
        assert len(skipped) == 1 and skipped[0].span.line == 18, r.assumptions    # cited at Copy
    stuck = results[1].violations[0]
    assert {(s.span.file, s.span.line) for s in stuck.situation if s.statement.startswith("TWAIT")} == {(path, 15)}


def test_the_config_picks_one_kernel_named_as_the_file(tmp_path):
    path = write(tmp_path, MULTI)
    assert kernels([path], {"pragmas": False, "kernel": "Copy"}) == ["Copy"]
    results = check_inputs([path], config={"pragmas": False, "kernel": "Stuck"})
    assert [(r.spec, r.status) for r in results] == [(path, "fail")]
    assert not any("not checked" in a.text for a in results[0].assumptions)
    pragma = write(tmp_path, '// sigproof: kernel = "Good"\n' + MULTI, "p.cpp")
    assert [(r.spec, r.status) for r in check_inputs([pragma])] == [(pragma, "pass")]


def test_several_kernels_none_with_signal_operations_are_each_reported_not_passed(tmp_path):
    body = "__global__ AICORE void A(__gm__ int32_t *x) { x[0] = 1; }\n" \
           "__global__ AICORE void B(__gm__ int32_t *x) { x[1] = 2; }\n"
    path = write(tmp_path, body)
    assert kernels([path], {"pragmas": False}) == ["A", "B"]
    results = check_inputs([path], config={"pragmas": False})
    assert [r.spec for r in results] == [f"{path}:A", f"{path}:B"]
    assert all(r.status == "vacuous" for r in results), [r.status for r in results]


def test_extract_of_one_of_several_needs_a_choice_and_no_kernel_suggests_the_entry_forms(tmp_path):
    path = write(tmp_path, MULTI)
    with pytest.raises(ExtractError) as e:
        extract([path], {"pragmas": False})
    assert "several kernels (Good, Stuck, Copy)" in str(e.value) and 'kernel = "NAME"' in str(e.value)
    assert "TWAIT" in extract([path], {"pragmas": False}, kernel="Stuck").sig_text
    helper = write(tmp_path, f"AICORE inline void Ping(__gm__ int32_t *sig) {{ {NOTIFY} }}\n", "h.cpp")
    with pytest.raises(ExtractError) as e:
        kernels([helper], {"pragmas": False})
    assert 'extern "C" __aicore__ void NAME(...)' in str(e.value) and "__global__" in str(e.value)
    [r] = check_inputs([helper], config={"pragmas": False})
    assert r.status == "error" and 'extern "C" __aicore__' in r.error


def test_spec_names_of_kernels_split_back(tmp_path):
    from pathlib import Path

    p = Path("dir/k.cpp")
    assert split_name(spec_name(p, "Stuck")) == (p, "Stuck")
    assert split_name(spec_name(p, None)) == (p, None)
    assert split_name("dir/k.sig") == (Path("dir/k.sig"), None)
    assert split_name("dir/k.cpp:not a name") == (Path("dir/k.cpp:not a name"), None)


def test_the_kernel_option_picks_one_of_several_for_check_extract_graph_and_replay(tmp_path):
    """`--kernel NAME` (check, extract, graph, export) instead of a config line; the result is
    named `file.cpp:NAME`, and replay finds that kernel again from the name alone."""
    import json

    from helpers import sigproof

    path = write(tmp_path, MULTI)
    (tmp_path / "sigproof.toml").write_text("pragmas = false\n")
    code, out, err = sigproof("check", path, "--kernel", "Stuck", "--format", "json", "--no-timing", "-j", "1")
    doc = json.loads(out)
    assert code == 1 and [(r["spec"], r["violated"]) for r in doc["results"]] == [(f"{path}:Stuck", ["deadlock"])]
    trace = tmp_path / "t.json"
    trace.write_text(out)
    code, out, err = sigproof("replay", f"{path}:Stuck", trace)
    assert code == 0 and "replayed all" in out, err
    code, out, err = sigproof("extract", path, "--kernel", "Good")
    assert code == 0 and "TNOTIFY" in out and "TWAIT" not in out
    code, out, err = sigproof("graph", path, "--kernel", "Stuck")
    assert code == 0 and out.startswith("strict digraph")
    code, out, err = sigproof("export", "--promela", path, "--kernel", "Good")
    assert code == 0 and "proctype" in out
    code, out, err = sigproof("check", path, "--kernel", "Nope")
    assert code == 2 and "Nope" in err

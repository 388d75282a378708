"""Buffer grains (model/grain.py): elements always accessed together share one happens-before
shadow. The analysis is pinned on access shapes; a Hypothesis differential checks that a
grained run reports exactly what one shadow per element reports (verdicts, states, messages,
traces element by element); production-size buffers fit under the shadow cap."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from helpers import compile_text, sigproof
from hypothesis import HealthCheck, given, settings
from oracles.strategies_data import grain_specs

from checker.check import Options, check_program
from checker.report import json_doc
from model import System
from model.errors import SpecErrors

HEAD = "ranks 2; buffer b[8]; buffer m[4][4]; signal f; "


@pytest.mark.parametrize("body, grains", [
    ("READ(b); WRITE(m);", (8, 16)),  # whole buffers: one block each
    ("TPUT(b[0:4] @ 1, b[4:8]);", (4, 16)),
    ("TPUT(b[0:4] @ 1, b[2:6]);", (2, 16)),  # 2 and 6 are even, not multiples of 4
    ("READ(b[3]);", (1, 16)),  # one element
    ("READ(b[0:8:2]);", (1, 16)),  # a strided slice touches parts of every block
    ("for (int i = 0; i < 2; i += 1) { WRITE(b[4 * i:4 * i + 4]); }", (4, 16)),  # a loop counter
    ("for (int i = 0; i < 8; i += 4) { WRITE(b[i:i + 4]); }", (4, 16)),  # stepping by 4
    ("for (int i = 0; i < 8; i += 2) { WRITE(b[i:i + 4]); }", (2, 16)),
    ("{ int o = 4; int k = any(0, 1); o = o * k; READ(b[o:o + 4]); }", (4, 16)),  # o * k: 4 times anything
    ("{ int k = any(0, 1); READ(b[k:k + 4]); }", (1, 16)),  # a choice: any value
    ("{ int o = 4; o = o + 1; READ(b[o - 1:o + 3]); }", (1, 16)),  # o is 5: the analysis keeps 1
    ("READ(m[1]); READ(m[2:4]);", (8, 4)),  # rows of 4
    ("READ(m[1][0:2]); READ(m[2][2:]);", (8, 2)),
    ("READ(m[1:3][0]);", (8, 1)),
    ("TPUT(b[rank * 4:rank * 4 + 4] @ 1, b[0:4]);", (4, 16)),  # 4 times any rank
    ("TPUT(b[rank + 2:rank + 6] @ 1, b[0:4]);", (1, 16)),  # rank is any value
    ("{ int s = 4 << 1; READ(b[s % 8:s % 8 + 4]); }", (4, 16)),
    ("READ(b[(rank == 0 ? 0 : 4):(rank == 0 ? 4 : 8)]);", (4, 16)),
])
def test_grain_of_access_shapes(body, grains):
    assert compile_text(HEAD + f"kernel {{ {body} }}").grains == grains


def test_a_local_reused_for_another_value_does_not_spoil_the_first():
    # slots are reused across scopes: the analysis follows the control flow, not the slot
    text = HEAD + "kernel { { int o = 4; READ(b[o:o + 4]); } { int k = any(0, 3); TNOTIFY(f @ 1, k, Set); } }"
    program = compile_text(text)
    assert program.grains[0] == 4


def test_a_buffer_behind_a_declared_view_keeps_one_shadow_per_element():
    text = "ranks 1; buffer b[8]; view g[2][4] = b; kernel { READ(g[1]); }"
    assert compile_text(text).grains == (1,)


def _report(program, **options) -> dict:
    doc = json_doc([check_program(program, "t.sig", Options(**options))], timing=False)
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grain_specs())
def test_grained_runs_report_what_one_shadow_per_element_reports(text):
    program = compile_text(text)
    plain = replace(program, grains=())
    reports = {}
    for options in ({}, {"por": False}):
        reports[bool(options)] = _report(program, **options)
        assert reports[bool(options)] == _report(plain, **options), text
    # the reduction's footprints by block (model/independence.py) judge like the full search
    assert reports[False]["results"][0]["violated"] == reports[True]["results"][0]["violated"], text


def _promise_broken(program) -> str | None:
    """Explore with one shadow per element; the first access (a view of one step) that touches
    part of a block of its buffer's grain, if any."""
    system = System(replace(program, grains=()))
    start = system.initial()[0]
    seen, todo = {start}, [start]
    while todo:
        for step in system.successors(todo.pop()):
            touched: dict = {}
            for a in step.accesses:
                rank, off = divmod(a.position, system.D)
                buf = next(b for b in reversed(program.buffers) if b.offset <= off)
                touched.setdefault((a.kind, rank, buf.name), set()).add(off - buf.offset)
            for (kind, rank, name), flats in touched.items():
                g = program.grains[[b.name for b in program.buffers].index(name)]
                if any(f // g * g + k not in flats for f in flats for k in range(g)):
                    return f"{step.instr.text} on rank {rank}: {sorted(flats)} is not whole blocks of {g}"
            if step.next not in seen:
                seen.add(step.next)
                todo.append(step.next)
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grain_specs())
def test_every_access_touches_whole_blocks_of_its_grain(text):
    # the promise itself, on every step of every execution (whether or not a report shows it)
    assert _promise_broken(compile_text(text)) is None, text


PRODUCER = """ranks 2;
buffer recv[36864];
buffer send[36864];
signal ready;
kernel {
    if (rank == 0) {
        for (int t = 0; t < 9; t += 1) {
            TPUT(recv[t * 4096:(t + 1) * 4096] @ 1, send[t * 4096:t * 4096 + 4096]);
        }
        FENCE
        TNOTIFY(ready @ 1, 1, Set);
    } else {
        TWAIT(ready, 1, EQ);
        READ(recv[TILE]);
    }
}
"""


def test_production_tiles_fit_and_keep_their_verdicts(tmp_path):
    # 147,456 elements over both ranks, 36 shadow entries: over the element cap before grains
    ok = tmp_path / "ok.sig"
    ok.write_text(PRODUCER.replace("FENCE", "fence;").replace("TILE", "4096:8192") + "expect ok;\n")
    code, out, _ = sigproof("check", ok)
    assert code == 0, out
    racy = tmp_path / "racy.sig"
    racy.write_text(PRODUCER.replace("FENCE", "").replace("TILE", "4096:8192") + "expect data_race;\n")
    code, out, _ = sigproof("check", racy)
    assert code == 0, out
    assert "data race on recv[4096]@1" in out
    # the text shows each TPUT's 4096 elements as one line, the JSON lists them one by one
    assert "writes data recv[0..4095]@1 (4096 elements)" in out
    assert "data race on recv[4096..8191]@1 (4096 elements) with the earlier write by rank 0 block 0" in out
    code, out, _ = sigproof("check", racy, "--format", "json")
    trace = json.loads(out)["results"][0]["violations"][0]["trace"]
    writes = [e for s in trace for e in s["effects"] if e.startswith("writes data recv[")]
    assert len(writes) == 9 * 4096 and writes[4096] == "writes data recv[4096]@1"


def test_an_access_to_part_of_a_block_brings_back_the_cap_with_its_location(tmp_path):
    spec = tmp_path / "one.sig"
    spec.write_text(PRODUCER.replace("FENCE", "fence;").replace("TILE", "4097"))
    code, _, err = sigproof("check", spec)
    assert code == 2
    # recv element by element, send still in 9 tiles of 4096 per rank: (36,864 + 9) * 2
    assert f"{spec}:2:1: error: the buffers need 73746 happens-before entries" in err
    assert "'recv' counts element by element" in err
    assert "at most 65536 are explored" in err
    with pytest.raises(SpecErrors):
        compile_text(PRODUCER.replace("FENCE", "fence;").replace("TILE", "4097"))


def test_one_statement_touches_at_most_65536_elements(tmp_path):
    # the buffer may be far larger (blocks), but a trace lists every element of an access
    spec = tmp_path / "big.sig"
    spec.write_text("ranks 1;\nbuffer b[1000000];\nkernel { WRITE(b[0:500000]); READ(b[0:65536]); }\n")
    code, out, _ = sigproof("check", spec)
    assert code == 1
    assert "error: rank 0 block 0: a view of 500000 elements of 'b'; one statement touches at most 65536" in out
    spec.write_text("ranks 1;\nbuffer b[1000000];\nkernel { WRITE(b[0:65536]); READ(b[0:65536]); }\nexpect ok;\n")
    assert sigproof("check", spec)[0] == 0

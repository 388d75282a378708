"""The data and ordering extension: happens-before, data_race, memory models (sig-data.md).

Unit tests pin the hb edges one by one; a Hypothesis test compares the checker's data_race
verdict with tests/oracles/reference_hb.py, which enumerates every execution and checks hb by brute
force; specs without buffers explore exactly as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import check_text, compile_text, violated
from hypothesis import given, settings
from oracles.agreement import DATA, data_agrees
from oracles.reference_hb import RaceReference
from oracles.strategies_data import data_specs

from model import System

ROOT = Path(__file__).resolve().parents[2]
PRODUCER = """ranks 2; buffer d[2]; signal f;
kernel { if (rank == 0) { TPUT(d @ 1, d); FENCE TNOTIFY(f @ 1, 1, Set); } else { TWAIT(f, 1, GE); READ(d); } }"""


def producer(fence: str) -> str:
    return PRODUCER.replace("FENCE", fence)


# ---------------------------------------------------------------- hb edges, one by one


def test_a_notify_orders_earlier_writes_only_after_a_fence():
    assert violated(producer("")) == {"data_race"}
    assert violated(producer("fence;")) == set()
    assert violated(producer("pipe_barrier(PIPE_ALL); dsb(DSB_DDR);")) == set()
    assert violated(producer("dsb(DSB_DDR); pipe_barrier(PIPE_ALL);")) == {"data_race"}  # wrong order
    assert violated(producer("pipe_barrier(PIPE_ALL);")) == {"data_race"}  # half a fence
    assert violated(producer(""), memory_model="sc") == set()  # program order always orders


def test_reads_need_no_fence_before_a_notify():
    text = """ranks 2; buffer d; signal f;
    kernel { if (rank == 0) { READ(d @ 1); TNOTIFY(f @ 1, 1, Set); } else { TWAIT(f, 1, GE); WRITE(d); } }"""
    assert violated(text) == set()
    assert violated(text.replace("TWAIT(f, 1, GE); ", "")) == {"data_race"}


def test_release_sequences_run_through_atomic_adds_and_end_at_a_set_or_reset():
    # rank 0 writes and releases with AtomicAdd; rank 2's AtomicAdd extends the sequence, so a
    # wait for 2 synchronizes with both; a Set by rank 2 instead would end rank 0's part
    base = """ranks 3; buffer d; signal c;
    kernel {
      if (rank == 0) { WRITE(d @ 1); fence; TNOTIFY(c @ 1, 1, AtomicAdd); }
      else if (rank == 2) { TWAIT(c @ 2, 0, GE); TNOTIFY(c @ 1, 1, OP); }
      else { TWAIT(c, 2, GE); READ(d); }
    }"""
    ok = base.replace("TWAIT(c @ 2, 0, GE); ", "")
    assert violated(ok.replace("OP", "AtomicAdd")) == set()
    # with Set the value 2 is never reached when rank 2's Set lands last; make the reader wait for 1
    set_after = ok.replace("OP", "Set").replace("TWAIT(c, 2, GE)", "TWAIT(c, 1, GE)")
    assert "data_race" in violated(set_after)  # reading rank 2's Set(1) does not order rank 0's write
    reset = """ranks 2; buffer d; signal c;
    host { launch; if (rank == 1) { reset c; } }
    kernel { if (rank == 0) { WRITE(d @ 1); fence; TNOTIFY(c @ 1, 1, AtomicAdd); } else { TWAIT(c, 1, GE); READ(d); } }"""
    assert violated(reset) == set()


def test_launch_and_join_and_host_barrier_order():
    # the host's write before launch is ordered before its kernel, the kernel before the host after it
    assert violated("ranks 1; buffer d; host { WRITE(d); launch; READ(d); } kernel { WRITE(d); }") == set()
    # two ranks' launches, ordered only by a host barrier
    text = """ranks 2; buffer d; host { if (rank == 1) { launch; } host_barrier; if (rank == 0) { launch; } }
    kernel { WRITE(d @ 0); }"""
    assert violated(text) == set()
    assert violated(text.replace("host_barrier; ", "")) == {"data_race"}


def test_async_transfers_are_ordered_only_through_their_event():
    text = """ranks 2; buffer s; buffer d; signal f;
    kernel { if (rank == 0) { event e = TPUT_ASYNC(d @ 1, s); COMPLETE TNOTIFY(f @ 1, 1, Set); }
             else { TWAIT(f, 1, GE); READ(d); } }"""
    assert violated(text.replace("COMPLETE", "")) == {"data_race"}
    assert violated(text.replace("COMPLETE", "WAIT_EVENT(e);")) == set()
    assert violated(text.replace("COMPLETE", "while (!TEST_EVENT(e)) { }")) == set()
    assert violated(text.replace("COMPLETE", "if (TEST_EVENT(e)) { } else { }")) == {"data_race"}
    assert violated(text.replace("COMPLETE", ""), memory_model="sc") == set()


def test_atomic_puts_do_not_race_each_other():
    text = """ranks 3; buffer acc; kernel { if (rank != 0) { TPUT(acc @ 0, acc, AtomicAdd); } }"""
    assert violated(text) == set()
    assert violated(text.replace(", AtomicAdd", "")) == {"data_race"}


def test_loads_and_cas_synchronize_like_satisfied_waits():
    text = """ranks 2; buffer d; signal f;
    kernel { if (rank == 0) { WRITE(d @ 1); fence; STORE(f @ 1, 1); }
             else { int v = LOAD(f); if (v == 1) { READ(d); } } }"""
    assert violated(text) == set()
    cas = """ranks 2; buffer d; signal f;
    kernel { if (rank == 0) { WRITE(d @ 1); fence; TNOTIFY(f @ 1, 1, Set); }
             else { if (CAS(f, 1, 2)) { READ(d); } } }"""
    assert violated(cas) == set()


def test_observe_records_an_assertion_and_goes_on():
    r = check_text("ranks 1; signal f; kernel { observe(false); TNOTIFY(f, 1, Set); }", clean_exit=True)
    assert r.violated == ["assertion", "dirty_exit"]  # the notify after the failed observe still ran


def test_race_report_names_both_accesses_and_the_missing_fence():
    r = check_text(producer(""))
    (v,) = r.violations
    assert "the write by rank 0 block 0 at t.sig:2:27 (TPUT(d @ 1, d))" in v.message
    assert "the read by rank 1 block 0" in v.message and "READ(d)" in v.message
    assert "no fence between the TPUT at t.sig:2:27 and the TNOTIFY" in v.message
    assert v.trace[-1].statement == "READ(d)" and v.span.line == 2


def test_misuse_is_a_spec_error_with_a_location():
    from model import SpecErrors

    for text, message in [
        ("ranks 1; buffer d; kernel { TWAIT(d, 1, EQ); }", "'d' is a buffer, not a signal"),
        ("ranks 1; signal f; kernel { READ(f); }", "'f' is a signal; READ moves buffer data"),
        ("ranks 2; buffer a[2]; buffer b[3]; kernel { TPUT(a @ 1, b); }", "the views must have the same size"),
        ("ranks 2; buffer a; kernel { TPUT(a @ 1, a @ 0); }", "TPUT reads the own rank's source"),
        ("ranks 1; buffer a; kernel { int x = 1; WAIT_EVENT(x); }", "WAIT_EVENT takes an event"),
        ("ranks 1; buffer a; kernel { WAIT_EVENT(e); }", "undeclared name 'e'"),
        ("ranks 1; signal f[2]; kernel { int v = LOAD(f); }", "LOAD takes one signal element"),
        ("ranks 2; buffer a; kernel { event e = TPUT_ASYNC(a @ 1, a); int y = e; }", "event 'e' can only be used"),
    ]:
        with pytest.raises(SpecErrors) as info:
            compile_text(text)
        assert any(message in e.message and e.span is not None for e in info.value.errors), info.value.render()
    assert violated("ranks 1; buffer a; buffer b; kernel { event e = TPUT_ASYNC(b @ 0, a); WAIT_EVENT(e); "
                    "WAIT_EVENT(e); }") == {"error"}  # waited twice


# the unreduced (--no-por) state and transition counts of the shipped specs, pinned before the extension
UNREDUCED = json.loads((ROOT / "tests" / "golden" / "unreduced_counts.json").read_text())


def test_specs_without_buffers_explore_exactly_as_before():
    import re

    for path in sorted((ROOT / "specs").glob("*.sig")):
        text = path.read_text()
        if re.search(r"^\s*buffer\b", text, re.M) or re.search(r"\b(LOAD|STORE|FETCH_ADD|CAS|observe)\b", text):
            continue
        program = compile_text(text, file=path.as_posix())
        system = System(program)
        assert system.clocks is None and system.initial()[0].hb == ()
        r = check_text(text, por=False, symmetry=False)
        assert [r.stats.states, r.stats.transitions] == UNREDUCED[path.name], path


# ---------------------------------------------------------------- against the brute-force reference


# A TPUT reads its source and writes its destination. Under pto only the *write* waits for a
# fence before a later TNOTIFY; its read is ordered by program order (found by the deep run:
# the reference once held the whole statement back).
READ_BEFORE_NOTIFY = """ranks 1; blocks 2; buffer b[2]; signal f[2];
kernel { if (block == 0) { TPUT(b[1] @ rank, b[0]); TNOTIFY(f[1] @ rank, 1, Set); }
         else { TWAIT(f[1], 1, GE); TPUT(b[0] @ rank, b[0]); } }"""


def test_a_read_before_an_unfenced_notify_is_ordered_but_the_write_is_not():
    for text, race in [(READ_BEFORE_NOTIFY, False),
                       # the second block now writes what the first block wrote without a fence
                       (READ_BEFORE_NOTIFY.replace("TPUT(b[0] @ rank, b[0]); } }", "TPUT(b[1] @ rank, b[0]); } }"), True),
                       # with a fence that write is ordered too
                       (READ_BEFORE_NOTIFY.replace("TPUT(b[0] @ rank, b[0]); } }", "TPUT(b[1] @ rank, b[0]); } }")
                        .replace("b[0]); TNOTIFY", "b[0]); fence; TNOTIFY"), False)]:
        assert RaceReference(System(compile_text(text))).has_race() == race, text
        assert ("data_race" in check_text(text).violated) == race, text


@DATA
@given(data_specs())
def test_data_race_agrees_with_brute_force_pto(text):
    data_agrees(text, "pto")


@settings(DATA, max_examples=20)
@given(data_specs())
def test_data_race_agrees_with_brute_force_sc(text):
    data_agrees(text, "sc")


# ---------------------------------------------------------------- --set-granularity line


def test_packed_set_slots_lose_a_notification_at_line_granularity_only():
    packed = (ROOT / "specs" / "packed_set_slots.sig").read_text()
    padded = (ROOT / "specs" / "padded_set_slots.sig").read_text()
    assert violated(packed) == set() and violated(padded) == set()
    r = check_text(packed, set_granularity="line")
    assert set(r.violated) == {"lost_notification", "deadlock"}
    lost = next(v for v in r.violations if v.property == "lost_notification")
    assert "cache-line clobber" in lost.message and "slot[" in lost.message
    assert violated(padded, set_granularity="line") == set()
    # AtomicAdd stays word-atomic: the same packed slots counted with AtomicAdd lose nothing
    assert violated(packed.replace("1, Set)", "1, AtomicAdd)"), set_granularity="line") == set()


def test_a_set_at_line_granularity_is_two_steps():
    r = check_text("ranks 1; signal f; kernel { TNOTIFY(f, 1, Set); TWAIT(f, 2, EQ); }", set_granularity="line")
    (v,) = r.violations
    statements = [s.statement for s in v.trace]
    assert statements.count("TNOTIFY(f, 1, Set)") == 2
    assert v.trace[1].effects[0].text.startswith("reads the cache line f@0 .. f@0")


def test_race_report_is_structured_in_the_json(tmp_path):
    import io
    import json

    from checker.cli import run

    p = tmp_path / "r.sig"
    p.write_text(producer(""))
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", str(p), "--format", "json"], out, err) == 1
    race = json.loads(out.getvalue())["results"][0]["violations"][0]["race"]
    assert (race["first"]["statement"], race["first"]["access"], race["first"]["element"]) == \
        ("TPUT(d @ 1, d)", "write", "d[0]@1")
    assert (race["second"]["statement"], race["second"]["access"]) == ("READ(d)", "read")
    assert race["sync"]["statement"] == "TWAIT(f, 1, GE)" and "no fence" in race["missing"] and race["fix"]

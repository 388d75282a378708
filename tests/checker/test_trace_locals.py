"""Counterexample steps carry the locals of their process that they changed (checker/trace.py):
exact values in JSON and text, the right name for a slot that sibling scopes reuse, stored
records that keep them, and replay that compares them."""

import io
import json

from checker.records import result_from_data, result_to_data
from checker.replay import replay
from checker.report import json_doc, text
from checker.trace import changed_locals
from helpers import check_text, compile_text, system_of

# Two sibling loops: `round` and `tries` share local slot 0 (the first name is `round`). Rank 1
# waits for three notifications, rank 0 sends two: a deadlock whose trace runs both loops.
LOOPS = """protocol loops;
ranks 2;
signal flag;
kernel {
    if (rank == 0) {
        for (int round = 0; round < 2; round++) {
            TNOTIFY(flag @ 1, 1, AtomicAdd);
        }
    } else {
        for (int tries = 0; tries < 3; tries++) {
            TWAIT(flag, tries + 1, GE);
        }
    }
}
expect deadlock;
"""


def deadlock(result):
    (v,) = result.violations
    assert v.property == "deadlock"
    return v


def test_json_steps_name_the_loop_counters_they_advance():
    result = check_text(LOOPS, por=False)
    steps = json_doc([result])["results"][0]["violations"][0]["trace"]
    got = [(s["process"], s["statement"], s["locals"]) for s in steps]
    assert got == [
        ("host 0", "launch (default host)", {}),
        ("host 1", "launch (default host)", {}),
        ("rank 0 block 0", "TNOTIFY(flag @ 1, 1, AtomicAdd)", {"round": 1}),
        ("rank 0 block 0", "TNOTIFY(flag @ 1, 1, AtomicAdd)", {}),  # round = 2 ends the loop: dead after
        ("host 0", "launch (default host)", {}),
        ("rank 1 block 0", "TWAIT(flag, tries + 1, GE)", {"tries": 1}),  # slot 0, named in its own scope
        ("rank 1 block 0", "TWAIT(flag, tries + 1, GE)", {"tries": 2}),
    ]
    assert compile_text(LOOPS).kernel.slot_names == ("round",)  # what a plain slot-name lookup would say


def test_the_text_report_shows_them_after_the_statement():
    out = io.StringIO()
    text([check_text(LOOPS, por=False)], out, timing=False)
    lines = [line for line in out.getvalue().splitlines() if "TNOTIFY" in line or "TWAIT" in line]
    assert lines[0].endswith("  TNOTIFY(flag @ 1, 1, AtomicAdd)  (round = 1)")
    assert lines[1].endswith("  TNOTIFY(flag @ 1, 1, AtomicAdd)")
    assert lines[2].endswith("  TWAIT(flag, tries + 1, GE)  (tries = 1)")
    assert lines[3].endswith("  TWAIT(flag, tries + 1, GE)  (tries = 2)")


def test_several_locals_and_an_initialization():
    spec = """protocol two;
ranks 2;
signal flag;
kernel {
    if (rank == 0) {
        int sent = 0;
        for (int r = 0; r < 2; r++) {
            TNOTIFY(flag @ 1, 1, AtomicAdd);
            sent += 10;
        }
        int late = sent + 5;
        TWAIT(flag, late, EQ);
    }
}
expect deadlock;
"""
    trace = deadlock(check_text(spec, por=False)).trace
    # after the second TNOTIFY: r = 2 ends its loop and sent = 20 is last read by `late = sent + 5`,
    # so both are dead from there (zeroed in the state, not shown); `late` was dead before the
    # step and is assigned by it
    assert [s.locals for s in trace if s.actor.kind == "kernel"] == [(("sent", 10), ("r", 1)), (("late", 25),)]


def test_stored_records_keep_the_locals():
    result = check_text(LOOPS)
    back = result_from_data(json.loads(json.dumps(result_to_data(result))))
    assert deadlock(back).trace == deadlock(result).trace
    assert any(s.locals for s in deadlock(back).trace)
    a, b = io.StringIO(), io.StringIO()
    text([result], a, timing=False)
    text([back], b, timing=False)
    assert a.getvalue() == b.getvalue()


def test_replay_checks_the_locals():
    program = compile_text(LOOPS)
    doc = json_doc([check_text(LOOPS)])
    violation = doc["results"][0]["violations"][0]
    out = io.StringIO()
    assert replay(program, violation, out) is None
    assert "TWAIT(flag, tries + 1, GE)  (tries = 1)" in out.getvalue()
    wrong = json.loads(json.dumps(violation))
    n = next(k for k, s in enumerate(wrong["trace"]) if s["locals"])
    wrong["trace"][n]["locals"] = {"round": 7}
    mismatch = replay(program, wrong, io.StringIO())
    assert mismatch is not None and mismatch.step == n + 1 and "locals" in mismatch.message
    for s in violation["trace"]:  # a trace written before steps had locals still replays
        del s["locals"]
    assert replay(program, violation, io.StringIO()) is None


def test_a_launch_changes_no_local_of_its_host():
    system = system_of(LOOPS)
    state = system.initial()[0]
    for step in system.successors(state):  # the hosts' launches: no local of a host changes
        assert changed_locals(system, state, step) == ()


def test_the_other_views_show_them_too():
    from checker import ci_formats, html

    result = check_text(LOOPS, por=False)
    page = html.page([result], timing=False)
    assert "<td class=\"locals\">round = 1</td>" in page and "locals after: tries = 2" in page
    violation = json_doc([result])["results"][0]["violations"][0]
    shown = ci_formats.steps(violation)  # the counterexample of JUnit failures and GitHub annotations
    assert "TWAIT(flag, tries + 1, GE)  (tries = 1)" in shown
    flow = json.loads(ci_formats.sarif({"results": [{**json_doc([result])["results"][0], "expected": []}]}))
    messages = [x["location"]["message"]["text"]
                for x in flow["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"]]
    assert "rank 0 block 0: TNOTIFY(flag @ 1, 1, AtomicAdd)  (round = 1) — flag@1: 0 -> 1" in messages

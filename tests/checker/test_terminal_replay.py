"""--color (rich terminal output), the progress line, and `sigproof replay`."""

from __future__ import annotations

import io
import json
import re

import pytest

from checker import terminal
from checker.check import check_file
from checker import cli
from checker.cli import run
from conftest import SPECS

RACE = SPECS / "bug_host_reset_race.sig"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Tty(io.StringIO):
    def isatty(self):
        return True


def _cli(*argv, stdout=None):
    out, err = stdout or io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_use_color():
    assert cli.use_color("always", io.StringIO(), {"NO_COLOR": "1"})
    assert not cli.use_color("never", Tty(), {})
    assert cli.use_color("auto", Tty(), {})
    assert not cli.use_color("auto", Tty(), {"NO_COLOR": "1"})
    assert cli.use_color("auto", Tty(), {"NO_COLOR": ""})  # only a non-empty NO_COLOR counts
    assert not cli.use_color("auto", io.StringIO(), {})


@pytest.mark.parametrize("color", ["never", "auto"])
def test_plain_text_is_unchanged(color, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _cli("check", "-j", "1", "--no-timing", str(RACE))[1]
    assert _cli("check", "-j", "1", "--no-timing", "--color", color, str(RACE), stdout=Tty())[1] == plain
    monkeypatch.delenv("NO_COLOR")
    assert _cli("check", "-j", "1", "--no-timing", "--color", color, str(RACE))[1] == plain  # not a terminal


def test_color_shows_the_trace_and_a_source_excerpt(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = _cli("check", "-j", "1", "--no-timing", "--color", "always", str(RACE))
    assert code == 0 and ANSI.search(out)
    text = ANSI.sub("", out)
    assert "\x1b" not in text
    assert text.splitlines()[0] == f"{RACE} [L=2]: PASS: deadlock, lost_notification"
    assert re.search(r">\s*31 \|\s+TWAIT\(flag, 1, GE\);", text)  # the stuck wait, marked in its excerpt
    assert re.search(r">\s*23 \|\s+reset flag;", text)  # the erasing reset
    assert "overwrites the unread value 1 of flag@1" in text
    rows = [line for line in text.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert len(rows) > 10 and len({line.index(str(RACE)) for line in rows}) == 1  # locations in one column


def test_progress_line_on_a_terminal():
    err = Tty()
    p = terminal.Progress(err)
    p(10, 20, 1.0)
    assert err.getvalue() == ""  # nothing for short runs
    p(5000, 9000, 2.5)
    p.done()
    shown = ANSI.sub("", err.getvalue())
    assert "5,000 states, 9,000 transitions, 2,000 states/s, 2 s elapsed" in shown


@pytest.fixture(scope="module")
def race_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "race.json"
    code, out, _ = _cli("check", "-j", "1", "--format", "json", str(RACE))
    path.write_text(out)
    return path


def test_replay_takes_every_step_and_shows_the_signals(race_json):
    code, out, err = _cli("replay", str(RACE), str(race_json), "--property", "lost_notification")
    assert code == 0, err
    (r,) = check_file(RACE)
    v = [v for v in r.violations if v.property == "lost_notification"][0]
    assert f"replayed all {len(v.trace)} step(s)" in out
    assert re.search(r"\n  3\. rank 0 block 0  \S*bug_host_reset_race\.sig:29:9  TNOTIFY\(flag @ 1, 1, Set\)\n"
                     r"       flag@1: 0 -> 1\n       rank 0 block 0 returns\n     signals: flag@0 = 0, flag@1 = 1\n", out)
    assert out.count("     signals: ") == len(v.trace)
    last = out.split(f"  {len(v.trace)}. ")[1]
    assert "overwrites the unread value 1 of flag@1" in last and "signals: flag@0 = 0, flag@1 = 0" in last


def test_replay_one_violation_file(race_json, tmp_path):
    v = json.loads(race_json.read_text())["results"][0]["violations"][0]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(v))
    code, out, _ = _cli("replay", str(RACE), str(one))
    assert code == 0 and out.startswith(f"replaying {v['property']} counterexample")


def test_a_trace_that_does_not_replay_names_the_step(race_json, tmp_path):
    doc = json.loads(race_json.read_text())
    doc["results"][0]["violations"][0]["trace"][2]["process"] = "host 1"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, out, err = _cli("replay", str(RACE), str(bad))
    assert code == 1 and "step 3:" in err and "Traceback" not in err
    fixed = tmp_path / "fixed.sig"  # the trace of the bug does not replay on the fixed protocol
    fixed.write_text(RACE.read_text().replace("reset flag;                         // BUG",
                                              "reset flag; host_barrier; // fixed"))
    code, out, err = _cli("replay", str(fixed), str(race_json))
    assert code == 1 and re.search(r"step \d+: ", err)


@pytest.mark.parametrize("content, says", [("nope", "not a JSON file"), ('{"results": []}', "no violation"),
                                           ("[1, 2]", "not the JSON output")])
def test_replay_usage_errors(tmp_path, content, says):
    path = tmp_path / "t.json"
    path.write_text(content)
    code, _, err = _cli("replay", str(RACE), str(path))
    assert code == 2 and says in err and "Traceback" not in err

"""The reduced search and the compiled unreduced one in turns (checker/race.py).

The schedule on scripted searches (who runs when, who is reported, what is dropped), then
the whole check: with the race made to start at once, every shipped spec the compiled search
takes gives the verdicts of the reduced search alone and of the plain unreduced search, the
winner's own counts and counterexamples, the same output on every run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import sigproof

from checker import check, native
from checker.check import Options, check_program
from checker.race import race
from checker.result import Stop
from model import System, compile_spec, parse

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = native._library()
compiled = pytest.mark.skipif(isinstance(LIBRARY, str), reason=f"no compiled engine: {LIBRARY}")


class _Ex:
    def __init__(self, name, stop=None):
        self.name, self.stop = name, stop


def _search(name, counts, stop=None, log=None):
    """A scripted search: yields `counts` in turn (logging them), then ends with `stop`."""
    def gen():
        try:
            for c in counts:
                if log is not None:
                    log.append((name, c))
                yield c
        except KeyboardInterrupt:
            return _Ex(name, Stop("interrupted", ""))
        return _Ex(name, stop)
    return gen()


def test_the_unreduced_search_joins_after_start_and_gets_weight_per_state():
    log = []
    reduced = _search("r", range(10, 1000, 10), log=log)
    out = race(reduced, lambda: _search("u", range(100, 10**6, 100), log=log), start=50, weight=20)
    assert out.exploration.name == "r" and not out.unreduced
    assert log[:5] == [("r", 10), ("r", 20), ("r", 30), ("r", 40), ("r", 50)]
    # from then on the unreduced search runs while it has stored at most 20 per reduced state past 50
    assert log[5:8] == [("r", 60), ("u", 100), ("u", 200)]
    for k, (name, c) in enumerate(log):
        if name == "u":
            last_r = max(n for who, n in log[:k] if who == "r")
            assert c - 100 < 20 * (last_r - 50)


def test_a_negative_start_lets_the_unreduced_search_go_first():
    """--fail-fast: the unreduced search leads with -start reduced states' worth of work."""
    log = []
    race(_search("r", range(10, 1000, 10), log=log), lambda: _search("u", range(100, 10**6, 100), log=log),
         start=-5, weight=20)
    assert log[:4] == [("u", 100), ("r", 10), ("u", 200), ("u", 300)]


def test_a_reduced_search_that_ends_before_start_runs_alone():
    made = []
    out = race(_search("r", [10, 20]), lambda: made.append(1), start=50, weight=20)
    assert out.exploration.name == "r" and not made and out.reduced_states == 20


@pytest.mark.parametrize("stop", [None, Stop("fail_fast", "")])
def test_the_first_to_finish_is_reported(stop):
    out = race(_search("r", range(1, 100)), lambda: _search("u", [5, 10], stop=stop), start=0, weight=10)
    assert out.exploration.name == "u" and out.unreduced and out.reduced_states == 2


@pytest.mark.parametrize("reason", ["max_states", "memory", "local_steps", "timeout"])
def test_an_unreduced_search_at_its_own_limit_is_dropped(reason):
    log = []
    out = race(_search("r", range(1, 30), log=log),
               lambda: _search("u", [5, 10], stop=Stop(reason, ""), log=log), start=0, weight=10)
    assert out.exploration.name == "r" and not out.unreduced and out.exploration.stop is None
    assert log[-1] == ("r", 29)  # the reduced search went on alone to its end


def test_where_the_compiled_search_does_not_apply_the_reduced_runs_alone():
    out = race(_search("r", range(1, 30)), lambda: None, start=0, weight=10)
    assert out.exploration.name == "r" and out.reduced_states == 29


def test_an_interrupt_in_the_unreduced_search_stops_both():
    out = race(_search("r", range(1, 100)), lambda: _search("u", [5], stop=Stop("interrupted", "")),
               start=0, weight=10)
    assert out.exploration.name == "r" and out.exploration.stop.reason == "interrupted"


# ---------------------------------------------------------------- the whole check


def _shipped():
    out = []
    for folder in ("specs", "bench/specs"):
        for path in sorted((ROOT / folder).rglob("*.sig")):
            try:
                program = compile_spec(parse(path.read_text(), str(path.relative_to(ROOT))))
            except Exception:  # an error on purpose (specs/errors/...)
                continue
            if native.why_not(System(program)) is None:
                out.append(pytest.param(program, id=str(path.relative_to(ROOT))))
    return out


SHIPPED = _shipped() if not isinstance(LIBRARY, str) else []
LIMITS = dict(timeout=60)
PLAIN_LIMIT = 200_000  # unreduced states: past them the plain search and the race's are cut


def _verdict(r):
    return r.status, tuple(r.violated), r.stop is None


@compiled
@pytest.mark.parametrize("fail_fast", [False, True])
@pytest.mark.parametrize("program", SHIPPED[::2])
def test_raced_at_once_the_verdicts_stay(program, fail_fast, monkeypatch):
    """The race from the first turn, the unreduced search given every weight it can use (it
    wins wherever it finishes at all): the verdicts are the reduced search's alone and the
    plain search's; the counts are those of the search reported."""
    name = program.name
    alone = check_program(program, name, Options(engine="python", fail_fast=fail_fast, **LIMITS))
    plain = check_program(program, name, Options(por=False, symmetry=False, fail_fast=fail_fast,
                                                 max_states=PLAIN_LIMIT, **LIMITS))
    monkeypatch.setattr(check, "RACE_START", 0)
    monkeypatch.setattr(check, "RACE_WEIGHT", 10**6)
    monkeypatch.setattr(check, "RACE_CAP", PLAIN_LIMIT)
    raced = check_program(program, name, Options(fail_fast=fail_fast, **LIMITS))
    assert alone.stop is None or fail_fast
    if plain.stop is not None and plain.stop.reason == "max_states":  # the race's unreduced search is dropped too
        assert raced.stats.race_reduced_states is None
        plain = alone
    if not fail_fast:
        assert _verdict(raced) == _verdict(alone) == _verdict(plain)
    else:  # the first unexpected violation: the same property set is not promised, a failure is
        assert raced.status == alone.status == plain.status
    if raced.stats.race_reduced_states is not None:
        assert (raced.stats.states, raced.stats.transitions) == (plain.stats.states, plain.stats.transitions)
        assert raced.stats.reduction is None and raced.stats.symmetry is None
        assert [v.trace for v in raced.violations] == [v.trace for v in plain.violations]
    else:
        assert (raced.stats.states, raced.stats.transitions) == (alone.stats.states, alone.stats.transitions)


@compiled
def test_both_winners_occur_among_the_shipped_specs(monkeypatch):
    monkeypatch.setattr(check, "RACE_START", 0)
    winners = set()
    for p in SHIPPED:
        program = p.values[0]
        r = check_program(program, program.name, Options(**LIMITS))
        winners.add(r.stats.race_reduced_states is not None)
        if winners == {True, False}:
            break
    assert winners == {True, False}


PING_PONG = """
protocol pingpong; param R = 40; ranks 2; signal ping; signal pong;
kernel {
    for (int i = 1; i <= R; i++) {
        if (rank == 0) { TNOTIFY(ping @ 1, i, Set); TWAIT(pong, i, EQ); }
        else { TWAIT(ping, i, EQ); TNOTIFY(pong @ 0, i, Set); }
    }
    if (rank == 0) { TWAIT(pong, R + 1, EQ); }
}
"""


@compiled
def test_the_losers_findings_are_never_reported(monkeypatch):
    """The deadlock is 163 steps deep: the reduced search has not met it when the unreduced
    one is done, so only the winner's monitor may speak (reporting the loser's says ok)."""
    program = compile_spec(parse(PING_PONG, "p.sig"))
    monkeypatch.setattr(check, "RACE_START", 0)
    monkeypatch.setattr(check, "RACE_WEIGHT", 10**6)
    raced = check_program(program, "p.sig", Options())
    assert raced.stats.race_reduced_states is not None
    alone = check_program(program, "p.sig", Options(engine="python", max_states=raced.stats.race_reduced_states))
    assert alone.violated == [] and alone.stop is not None  # not yet met by the reduced search ...
    assert raced.violated == ["deadlock"] and raced.stop is None  # ... but reported
    assert len(raced.violations[0].trace) == 163


@compiled
def test_the_command_line_says_which_search_and_the_same_every_time(tmp_path):
    spec = tmp_path / "a2a.sig"  # without its expect lines: --fail-fast stops at the first loss
    text = (ROOT / "specs/bug_a2a_reset_after_wait.sig").read_text()
    spec.write_text("\n".join(line for line in text.splitlines() if not line.startswith("expect")))
    args = ("check", spec, "-D", "N=8", "--dfs", "--fail-fast", "--no-timing")
    runs = [sigproof(*args) for _ in range(2)]
    assert runs[0] == runs[1]
    assert "unreduced: finished before the reduced search, at " in runs[0][1]
    code, out, _ = sigproof(*args, "--format", "json")
    stats = json.loads(out)["results"][0]["stats"]
    assert stats["reduction"] is None and stats["race"]["winner"] == "unreduced"
    assert stats["race"]["reduced_states"] == 0  # with --fail-fast it went first, and found the loss

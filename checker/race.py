"""The reduced search and the compiled unreduced one, taking turns. Entry point: `race`.

Partial-order and symmetry reduction run in Python and cost 75 µs to 1 ms a state; the
compiled search (checker/native.py) takes every interleaving at 2-3 µs a state. Where the
reduction is weak (a TTEST loop with many tries, a multi-launch protocol whose resets race)
the unreduced space is less than about forty times the reduced one, and the compiled search
finishes first. Which one is not known in advance, so both run, in turns, in this process:
once the reduced search has stored `start` states, the unreduced one may do up to `weight`
units of work for each further state the reduced one stores (a negative `start` lets it go
first, with -start reduced states' worth). The first to finish is the one
reported (both are exhaustive, so both give the same verdicts; docs/trust.md 3e); the other
is dropped unread. A finish is a complete search or a stop at an unexpected violation
(`--fail-fast`); the unreduced search stopping at its own limit (`cap` states, memory) is
dropped and the reduced one goes on alone, as without the race.

Turns come at the points where each search yields (every 64 expansions of the Python loop,
every 256 of the C one), which depend only on the searches, never on the clock: the same
input gives the same winner and the same report. Only a time limit (`--timeout`) can end a
race at a point that depends on the clock, and then the reduced search is reported, as
without the race.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.explore import Exploration


@dataclass(frozen=True)
class Outcome:
    exploration: Exploration
    unreduced: bool  # the compiled unreduced search finished first
    reduced_states: int  # states the reduced search had stored when the race ended


def _finished(ex: Exploration) -> bool:
    return ex.stop is None or ex.stop.reason == "fail_fast"


def race(reduced, unreduced, *, start: int, weight: int) -> Outcome:
    """Run two searches (generators of explore.exploring) in turns, as the module says; the
    one reported. `unreduced` is made only when its turn first comes (a callable giving the
    generator, or None where the compiled search does not apply), so a reduced search that
    finishes before `start` states runs alone."""
    nr = nu = 0
    other = None  # the unreduced search, once started; None again once dropped
    alive = True
    while True:
        if alive and nr >= start and weight * (nr - start) > nu:
            if other is None:
                other = unreduced()
                if other is None:  # the compiled search does not apply
                    alive = False
                    continue
            try:
                nu = next(other)
                continue
            except StopIteration as end:
                ex = end.value
            if _finished(ex):
                reduced.close()
                return Outcome(ex, True, nr)
            alive, other = False, None  # its own limit: the reduced search goes on alone
            if ex.stop.reason == "interrupted":  # Ctrl-C landed in the unreduced search: stop both
                try:
                    reduced.throw(KeyboardInterrupt)
                except StopIteration as rend:
                    return Outcome(rend.value, False, nr)
            del ex
            continue
        try:
            nr = next(reduced)
        except StopIteration as end:
            if other is not None:
                other.close()
            return Outcome(end.value, False, nr)

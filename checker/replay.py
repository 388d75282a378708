"""Replay a counterexample on the model, step by step: `sigproof replay SPEC TRACE.json`.

TRACE.json is the JSON output of `sigproof check --format json` (the violation is picked by
property, the first one by default), one result of it, or one violation of it. Each step is
taken again with model.System: the named process must be able to move, at the recorded
statement, with the recorded effects and changed locals; the signal values after it are
printed. Entry points: `load_violation`, `replay`. The semantics the trace was found under come from the result
(`results[].semantics`); a bare violation record carries none, so the caller supplies them.
A kernel's trace cites C++ locations: `cite` maps the skeleton's rendering to them first.
A result of one of a file's several kernels (`file.cpp:Kernel`) is replayed on that kernel
(`Found.kernel`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

from checker.ci_formats import locals_text
from checker.trace import trace_of
from model import System
from model.semantics import DEFAULT, Semantics, SemanticsError

MAX_SHOWN = 32  # elements shown after each step; past that only those that differ from their initial value


class ReplayError(Exception):
    """A file that holds no trace to replay (a usage error)."""


@dataclass(frozen=True)
class Found:
    """A violation to replay, with the params and semantics of the result it came from (None:
    a bare violation record, which does not say)."""

    violation: dict
    params: dict
    semantics: Semantics | None
    kernel: str | None = None  # the result's kernel, for one of a file's several (`file.cpp:Kernel`)


@dataclass
class Mismatch:
    step: int
    message: str


def load_violation(path: str, prop: str | None, spec: str | None = None) -> Found:
    """The violation to replay from a JSON file, with its result's params and semantics."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ReplayError(f"{path}: cannot read: {e.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise ReplayError(f"{path}: not a JSON file") from None
    if isinstance(doc, dict) and "trace" in doc:
        if prop is not None and doc.get("property") != prop:
            raise ReplayError(f"{path}: the violation is {doc.get('property')}, not {prop}")
        return Found(doc, {}, None)
    results = doc.get("results") if isinstance(doc, dict) and "results" in doc else [doc]
    if not isinstance(results, list):
        raise ReplayError(f"{path}: not the JSON output of sigproof check")
    from checker.kernels import split_name

    candidates = []
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("violations"), list):
            raise ReplayError(f"{path}: not the JSON output of sigproof check")
        if spec is not None and len(results) > 1 and r.get("spec") != spec and (
                not isinstance(r.get("spec"), str) or split_name(r["spec"])[0].as_posix() != spec):
            continue    # another file's result (one of a file's several kernels is `file.cpp:Kernel`)
        for v in r["violations"]:
            if isinstance(v, dict) and (prop is None or v.get("property") == prop):
                candidates.append((v, r))
    if not candidates:
        what = f"no {prop} violation" if prop else "no violation"
        raise ReplayError(f"{path}: {what} to replay" + (f" for {spec}" if spec and len(results) > 1 else ""))
    violation, result = candidates[0]
    try:
        semantics = Semantics.from_data(result.get("semantics"))
    except (SemanticsError, TypeError) as e:
        raise ReplayError(f"{path}: the result's semantics: {e}") from None
    params = dict(result.get("params") or {})
    kernel = split_name(result["spec"])[1] if isinstance(result.get("spec"), str) else None
    return Found(violation, params, semantics, kernel)


def _values(system: System, state) -> str:
    init = system.init_values
    positions = range(len(init))
    if len(init) > MAX_SHOWN:
        positions = [p for p in positions if system.value(state, p) != init[p]]
        if not positions:
            return "(every element at its initial value)"
    return ", ".join(f"{system.element(p).name} = {system.value(state, p)}" for p in positions)


def _rendered(got, cite: Callable[[str], str]) -> dict:
    """A model step's fields as a trace records them (locations cited as the trace cites them)."""
    return {"location": cite(got.location), "statement": cite(got.statement),
            "effects": [cite(e.text) for e in got.effects], "locals": dict(got.locals)}


def _differs(want: dict, mine: dict) -> tuple | None:
    """The first field of a recorded step that the model's step renders differently (a trace
    written before steps recorded their locals has no `locals`, and is not compared on them)."""
    for what in ("location", "statement", "effects", "locals"):
        if what in want and want[what] != mine[what]:
            return what, mine[what]
    return None


def replay(program, violation: dict, out: IO[str], *, semantics: Semantics = DEFAULT,
           cite: Callable[[str], str] = lambda text: text,
           pause: Callable[[int], bool] | None = None) -> Mismatch | None:
    """Take the violation's steps again under `semantics`, printing each with the signal values
    after it; the first step that does not match, or None. `cite` maps the model's locations to
    those the trace shows (a kernel's C++). `pause(n)` runs after step n; False stops the replay."""
    steps = violation.get("trace")
    if not isinstance(steps, list):
        raise ReplayError("the violation has no trace")
    system = System(program, semantics)
    state, _ = system.initial()
    out.write(f"replaying {violation.get('property', 'a')} counterexample: {len(steps)} step(s)\n")
    out.write(f"  initial: {_values(system, state)}\n")
    for n, want in enumerate(steps, 1):
        if not isinstance(want, dict) or not isinstance(want.get("process"), str):
            raise ReplayError(f"step {n} of the trace is not a step record")
        moves = [s for s in system.successors(state) if system.process_name(s.process) == want["process"]]
        if not moves:
            return Mismatch(n, f"{want['process']} cannot take a step here (the trace says "
                               f"{want.get('statement')} at {want.get('location')})")
        # a process with several steps (the values of an any(lo, hi), the outcomes of a
        # TEST_EVENT): the one the trace shows
        rendered = [(s, _rendered(trace_of(system, [s], state)[0], cite)) for s in moves]
        step, got = next(((s, g) for s, g in rendered if not _differs(want, g)), rendered[0])
        differs = _differs(want, got)
        if differs is not None:
            what, mine = differs
            return Mismatch(n, f"{want['process']}: the trace says {what} {json.dumps(want[what])}, "
                               f"the model gives {json.dumps(mine)}")
        state = step.next
        out.write(f"  {n}. {want['process']}  {got['location']}  {got['statement']}{locals_text(got)}\n")
        for e in got["effects"]:
            out.write(f"       {e}\n")
        out.write(f"     signals: {_values(system, state)}\n")
        if pause is not None and not pause(n):
            out.write("  (stopped)\n")
            return None
    for line in violation.get("situation") or []:
        out.write(f"  at the end: {line}\n")
    out.write(f"replayed all {len(steps)} step(s)\n")
    return None

"""Reporters: a Result (or several) to text or JSON on a stream. Entry points: `text`, `json_doc`."""

from __future__ import annotations

import json
from typing import IO

from checker.result import Result

_LABEL = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}


def _params(result: Result) -> str:
    return " ".join(f"{k}={v}" for k, v in result.params.items())


def _verdict(result: Result) -> str:
    got = ", ".join(result.violated) or "ok"
    want = ", ".join(result.expected) or "ok"
    if result.status == "pass":
        return got
    if result.status == "inconclusive":
        return f"{got} so far (expected {want})"
    return f"{got} (expected {want})"


def text(results: list[Result], out: IO[str], *, quiet: bool = False, timing: bool = True) -> None:
    """Human-readable report: each violation with its numbered trace, then a summary line."""
    for r in results:
        params = f" [{_params(r)}]" if r.params else ""
        out.write(f"{r.spec}{params}: {_LABEL[r.status]}: {_verdict(r)}\n")
        if r.stop:
            out.write(f"  stopped early: {r.stop}\n")
        if not quiet:
            for v in r.violations:
                expected = " (expected)" if v.property in r.expected else ""
                out.write(f"  {v.property}{expected}: {v.message}\n")
                pw = max((len(s.process) for s in v.trace), default=0)
                lw = max((len(s.location) for s in v.trace), default=0)
                nw = len(str(len(v.trace)))
                if not v.trace:
                    out.write("    (in the initial state, before any step)\n")
                for s in v.trace:
                    out.write(f"    {s.step:>{nw}}. {s.process:<{pw}}  {s.location:<{lw}}  {s.statement}\n")
                    for e in s.effects:
                        out.write(f"    {'':>{nw}}  {'':<{pw}}  {'':<{lw}}    {e}\n")
                if v.situation:
                    title = "stuck:" if v.property == "deadlock" else "at the end:"
                    out.write(f"    {title}\n")
                    for line in v.situation:
                        out.write(f"      {line}\n")
        seconds = f", {r.stats.seconds:.2f} s" if timing else ""
        out.write(f"  {r.stats.states} states, {r.stats.transitions} transitions{seconds}\n")


def json_doc(results: list[Result], errors: list[str], *, timing: bool = True) -> dict:
    doc = {"results": [_result(r, timing) for r in results]}
    if errors:
        doc["errors"] = errors
    return doc


def write_json(results: list[Result], errors: list[str], out: IO[str], *, timing: bool = True) -> None:
    json.dump(json_doc(results, errors, timing=timing), out, indent=2)
    out.write("\n")


def _result(r: Result, timing: bool) -> dict:
    stats = {"states": r.stats.states, "transitions": r.stats.transitions,
             "seconds": round(r.stats.seconds, 3) if timing else None}
    doc = {
        "spec": r.spec,
        "params": dict(r.params),
        "status": r.status,
        "violated": r.violated,
        "expected": list(r.expected),
        "stats": stats,
        "violations": [
            {"property": v.property, "message": v.message,
             "trace": [{"step": s.step, "process": s.process, "location": s.location, "statement": s.statement,
                        "effects": list(s.effects)} for s in v.trace],
             "situation": list(v.situation)}
            for v in r.violations
        ],
    }
    if r.stop:
        doc["stopped"] = r.stop
    return doc

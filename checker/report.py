"""Reporters: results to text or JSON on a stream. Entry points: `text`, `json_doc`, `write_json`.

Spec errors are Results with `error` set: the text reporter leaves them to standard error
(the CLI writes them there), the JSON document lists them under "errors".
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import IO

from checker.result import LABEL as _LABEL, ElementRef, ProcessRef, Result, Span, operations


def _params(result: Result) -> str:
    return " ".join(f"{k}={v}" for k, v in result.params.items())


def verdict(result: Result) -> str:
    """The verdict part of a result's first line (checker.result.verdict_phrase)."""
    return result.verdict


def text(results: list[Result], out: IO[str], *, quiet: bool = False, timing: bool = True) -> None:
    """Human-readable report: each violation with its numbered trace, then a summary line."""
    for r in results:
        if r.error is not None:
            continue
        params = f" [{_params(r)}]" if r.params else ""
        out.write(f"{r.spec}{params}: {_LABEL[r.status]}: {verdict(r)}\n")
        if r.cached:
            out.write("  (from the cache)\n")
        if r.stop:
            out.write(f"  stopped early: {r.stop.detail}\n")
        for line in [] if quiet else coverage_lines(r):
            out.write(f"  {line}\n")
        if r.assumptions and not quiet:
            out.write(f"  assumptions of the extraction ({len(r.assumptions)}):\n")
            for a in r.assumptions:
                out.write(f"    {a.text}\n")
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
                    shown = f"{s.statement}  {s.locals_text}" if s.locals else s.statement
                    out.write(f"    {s.step:>{nw}}. {s.process:<{pw}}  {s.location:<{lw}}  {shown}\n")
                    for _, text in s.shown:
                        out.write(f"    {'':>{nw}}  {'':<{pw}}  {'':<{lw}}    {text}\n")
                if v.situation:
                    title = "stuck:" if v.property == "deadlock" else "at the end:"
                    out.write(f"    {title}\n")
                    for item in v.situation:
                        out.write(f"      {item.text}\n")
        seconds = f", {r.stats.seconds:.2f} s" if timing else ""
        reduced = r.stats.reductions()
        out.write(f"  {r.stats.states} states, {r.stats.transitions} transitions{reduced}{seconds}\n")


def coverage_lines(r: Result) -> list[str]:
    """What the text report says about coverage after the verdict: the statements never
    executed (one a line, indented), or that coverage is unknown after a complete search."""
    if r.unreached is None:
        return ["coverage unknown: the search without partial-order reduction that confirms it stopped early"] \
            if r.stop is None and r.operations else []
    if not r.unreached or (r.vacuous and len(r.unreached) == 1):
        return []
    return [f"{operations(len(r.unreached))} never executed:"] + [f"  {u.text}" for u in r.unreached]


def json_doc(results: list[Result], *, timing: bool = True) -> dict:
    doc = {"results": [_result(r, timing) for r in results if r.error is None]}
    errors = [r.error for r in results if r.error is not None]
    if errors:
        doc["errors"] = errors
    return doc


def write_json(results: list[Result], out: IO[str], *, timing: bool = True) -> None:
    json.dump(json_doc(results, timing=timing), out, indent=2)
    out.write("\n")


def _span(s: Span | None) -> dict | None:
    if s is None:
        return None
    return {"file": s.file, "line": s.line, "column": s.col, "end_line": s.end_line, "end_column": s.end_col}


def _data(x) -> object:
    """A result record as JSON data: its fields, with a `kind` and spans and elements spelled out."""
    if isinstance(x, Span):
        return _span(x)
    if isinstance(x, ElementRef):
        return {"element": x.name, "signal": x.signal, "index": list(x.index), "rank": x.rank}
    if isinstance(x, ProcessRef):
        return {"kind": x.kind, "rank": x.rank, "block": x.block}
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], ElementRef):  # (element, its value)
        return {**_data(x[0]), "value": x[1]}
    if isinstance(x, tuple):
        return [_data(y) for y in x]
    if hasattr(x, "__dataclass_fields__"):
        out = {"kind": x.kind} if hasattr(x, "kind") else {}
        for f in fields(x):
            value = getattr(x, f.name)
            if isinstance(value, ElementRef):
                out.update(_data(value))
            else:
                out[f.name] = _data(value)
        return out
    return x


def _race(f) -> dict:
    def side(a):
        return {"process": a.process, "span": _span(a.span), "statement": a.statement, "access": a.access,
                **_data(a.element)}

    sync = None if f.sync is None else {"process": f.sync.process, "span": _span(f.sync.span),
                                        "statement": f.sync.statement}
    return {"first": side(f.first), "second": side(f.second), "sync": sync, "missing": f.missing, "fix": f.fix}


def _result(r: Result, timing: bool) -> dict:
    stats = {"states": r.stats.states, "transitions": r.stats.transitions,
             "seconds": round(r.stats.seconds, 3) if timing else None, "reduction": r.stats.reduction,
             "symmetry": r.stats.symmetry, "store": r.stats.store,
             "store_bytes_per_state": round(r.stats.bytes_per_state, 1)}
    if r.stats.race_reduced_states is not None:
        stats["race"] = {"winner": "unreduced", "reduced_states": r.stats.race_reduced_states}
    if r.stats.store == "fingerprint":
        stats["fingerprint_bits"] = 64
        stats["collision_probability"] = r.stats.collision_probability
    doc = {
        "spec": r.spec,
        "params": dict(r.params),
        "status": r.status,
        "violated": r.violated,
        "expected": list(r.expected),
        "semantics": r.semantics.to_data(),
        "stats": stats,
        "unreached": None if r.unreached is None else [
            {"file": u.span.file, "line": u.span.line, "column": u.span.col, "text": u.statement}
            for u in r.unreached],
        "violations": [
            {"property": v.property, "message": v.message,
             "trace": [{"step": s.step, "process": s.process, "location": s.location, "statement": s.statement,
                        "effects": [e.text for e in s.effects], "locals": dict(s.locals), "span": _span(s.span),
                        "actor": _data(s.actor),
                        "details": [_data(e) for e in s.effects]} for s in v.trace],
             "situation": [x.text for x in v.situation],
             "span": _span(v.span),
             "situation_details": [_data(x) for x in v.situation],
             **({"race": _race(v.race)} if v.race is not None else {})}
            for v in r.violations
        ],
    }
    if r.reason:
        doc["reason"] = r.reason
    if r.assumptions is not None:  # a C++ kernel: what its extraction assumed
        doc["assumptions"] = [{"file": a.span.file, "line": a.span.line, "column": a.span.col, "message": a.message}
                              for a in r.assumptions]
    if r.warnings:
        doc["warnings"] = list(r.warnings)
    if r.stop:
        doc["stopped"] = r.stop.detail
        doc["stop_reason"] = r.stop.reason
    if r.cached:
        doc["cached"] = True
    return doc

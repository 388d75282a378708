"""ITF view of the `sigproof check --format json` document: each counterexample as an Apalache
Informal Trace Format trace (ADR-015, https://apalache-mc.org/docs/adr/015adr-trace.html).
Entry points: `traces` (doc -> list of ITF objects) and `itf` (doc -> str).

The output is one JSON array with an ITF trace per violation, in the order of the document's
results and their violations (expected ones too; a pass with no violation gives `[]`). State i
is the state after step i, state 0 the initial state. Its variables: `action` (`PROCESS:
STATEMENT`, `init` in state 0), `process`, `location` (`file:line:col`), `effects` (the step's
effect texts), `signals` (element name -> value), `last` (process -> `file:line:col
STATEMENT` it executed last) and `locals` (process -> local -> value). The trace's `#meta`
names the spec, params, property, message, verdict, semantics and what the verdict rests on.

Known limitations: a trace knows the signal elements only as far as the counterexample
mentions them (its reads, writes and final situation), and the locals only from the step
that first changed them (`TraceStep.locals`); a value before its element's first write is
that write's old value, an earlier read's value, or (never written) its final value.
sigproof's counterexamples are finite runs (a process that spins forever is a stuck process
of a deadlock), so no trace has `loop`.
"""

from __future__ import annotations

import json

from checker.ci_formats import basis, caveat, title
from checker.result import LABEL, verdict_phrase

FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
VARS = ("action", "process", "location", "effects", "signals", "last", "locals")
VAR_TYPES = {"action": "Str", "process": "Str", "location": "Str", "effects": "Seq(Str)",
             "signals": "Str -> Int", "last": "Str -> Str", "locals": "Str -> (Str -> Int)"}
SAFE = 2**53 - 1  # JSON integers beyond this are written as {"#bigint": "..."} (RFC 7159)


def itf(doc: dict) -> str:
    """The ITF traces of every counterexample in the document, as one JSON array."""
    return json.dumps(traces(doc), indent=2) + "\n"


def traces(doc: dict) -> list[dict]:
    return [trace(r, v) for r in doc.get("results", []) for v in r.get("violations", [])]


def integer(n: int):
    return n if -SAFE <= n <= SAFE else {"#bigint": str(n)}


def _map(pairs) -> dict:
    return {"#map": [[k, v] for k, v in pairs]}


def trace(result: dict, violation: dict) -> dict:
    """One violation of one result as an ITF trace object."""
    steps = violation.get("trace", [])
    values, order = _initial_signals(violation)
    last: dict[str, str] = {}
    locals_: dict[str, dict[str, int]] = {}
    states = [_state(0, "init", "", "", [], values, order, last, locals_)]
    for i, s in enumerate(steps, 1):
        for d in s.get("details", []):
            if d.get("kind") == "write":
                values[d["element"]] = d["new"]
        last[s["process"]] = f"{s['location']} {s['statement']}"
        if s.get("locals"):
            locals_.setdefault(s["process"], {}).update(s["locals"])
        states.append(_state(i, f"{s['process']}: {s['statement']}", s["process"], s["location"],
                             s.get("effects", []), values, order, last, locals_))
    return {"#meta": _meta(result, violation), "vars": list(VARS), "states": states}


def _state(i: int, action: str, process: str, location: str, effects: list, values: dict, order: list,
           last: dict, locals_: dict) -> dict:
    return {"#meta": {"index": i}, "action": action, "process": process, "location": location,
            "effects": list(effects), "signals": _map((e, integer(values[e])) for e in order),
            "last": _map(last.items()),
            "locals": _map((p, _map((k, integer(v)) for k, v in ls.items())) for p, ls in locals_.items())}


def _initial_signals(violation: dict) -> tuple[dict[str, int], list[str]]:
    """Each element the counterexample mentions, with its value in the initial state (the old
    value of its first write, else the value it was first read with, else its final value from
    the situation: nothing wrote it), and the elements by signal, rank and index."""
    values: dict[str, int] = {}
    keys: dict[str, tuple] = {}
    for s in violation.get("trace", []):
        for d in s.get("details", []):
            if d.get("kind") in ("read", "write"):
                values.setdefault(d["element"], d["value"] if d["kind"] == "read" else d["old"])
                keys[d["element"]] = _key(d)
    for x in violation.get("situation_details", []):
        if x.get("kind") == "dirty":
            values.setdefault(x["element"], x["initial"])
            keys[x["element"]] = _key(x)
        for e in x.get("elements", []):
            values.setdefault(e["element"], e["value"])
            keys[e["element"]] = _key(e)
    return values, sorted(values, key=lambda name: keys[name])


def _key(element: dict) -> tuple:
    return element["signal"], element["rank"], tuple(element["index"]), element["element"]


def _meta(result: dict, violation: dict) -> dict:
    status = result["status"]
    phrase = verdict_phrase(status, result["violated"], result["expected"], caveat(result), result.get("reason", ""))
    meta = {
        "format": "ITF",
        "format-description": FORMAT_DESCRIPTION,
        "source": result["spec"],
        "description": f"sigproof counterexample: {violation['property']} in {title(result)}",
        "varTypes": dict(VAR_TYPES),
        "spec": result["spec"],
        "params": dict(result.get("params", {})),
        "property": violation["property"],
        "message": violation["message"],
        "expected": violation["property"] in result["expected"],
        "status": status,
        "verdict": f"{LABEL[status]}: {phrase}",
        "span": violation.get("span"),
        "situation": list(violation.get("situation", [])),
        **basis(result),
    }
    if "stopped" in result:
        meta["stopped"] = result["stopped"]
    return meta

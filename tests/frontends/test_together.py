"""Kernels checked together (`sigproof check a.cpp b.cpp --together`, `together = true`):
model/together.py combines their skeletons into one protocol, checker/kernels.py cites each
kernel's own lines."""

import json
from pathlib import Path

import pytest

from checker.check import Options, check_program
from model import SpecErrors, compile_spec, parse
from model.together import together
from helpers import sigproof

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests/frontends/together"
SPECS = sorted((ROOT / "specs").glob("*.sig"))


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def check_json(*argv):
    code, out, err = sigproof("check", *argv, "--format", "json", "--no-timing", "-j", "1")
    return code, json.loads(out), err


def judge(spec, **options):
    return check_program(compile_spec(spec), spec.file, Options(**options))


# ---------------------------------------------------------------- C++ kernels


def test_a_wait_kernel_whose_notifier_is_another_kernel_is_ok_together():
    code, doc, _ = check_json(f"{HERE}/dispatch_wait.cpp")
    assert code == 1 and doc["results"][0]["violated"] == ["deadlock"]   # alone: nobody notifies it
    code, doc, _ = check_json(f"{HERE}/dispatch_push.cpp", f"{HERE}/dispatch_wait.cpp", "--together")
    (r,) = doc["results"]
    assert code == 0 and r["status"] == "pass" and r["violated"] == []
    assert r["spec"] == f"{HERE}/dispatch_push.cpp+{HERE}/dispatch_wait.cpp"
    notes = [a["message"] for a in r["assumptions"]]
    assert any("run at the same time on every rank" in n for n in notes)
    assert any("signal token_ready of" in n and "same memory" in n for n in notes)


def test_a_shared_signal_each_kernel_sizes_for_its_own_indices_takes_the_larger_size(tmp_path):
    """simpler's DeepSeek kernels: each kernel sizes a shared runtime tensor's signal for the
    indices it uses, so the two declarations differ. Sizes the extraction chose (not the
    config) are widened to the larger per dimension; here the wait kernel also sets a slot
    after the peers' (index nranks), which the push kernel never touches."""
    for name in ("dispatch_push.cpp", "dispatch_wait.cpp", "sigproof.toml"):
        (tmp_path / name).write_text((ROOT / HERE / name).read_text())
    wait = tmp_path / "dispatch_wait.cpp"
    wait.write_text(wait.read_text().replace(
        "        pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::EQ);\n    }\n",
        "        pto::comm::TWAIT(sig, 1, pto::comm::WaitCmp::EQ);\n    }\n"
        "    pto::comm::Signal done(token_ready + n);\n    pto::comm::TNOTIFY(done, 1, pto::comm::NotifyOp::Set);\n"))
    code, doc, err = check_json(str(tmp_path / "dispatch_push.cpp"), str(wait), "--together")
    (r,) = doc["results"]
    assert code == 0 and r["status"] == "pass", (r, err)
    notes = [a["message"] for a in r["assumptions"]]
    assert any("signal token_ready of" in n and "larger size of the two" in n for n in notes), notes


def test_sizes_from_the_config_are_never_widened():
    push = PUSH.replace("signal ready[N];", "signal ready[N + 1];")
    with pytest.raises(SpecErrors, match="another shape"):
        together([parse(push, "push.sig"), parse(WAIT, "wait.sig")], "pw.sig", widen=frozenset({"other"}))
    joined = together([parse(push, "push.sig"), parse(WAIT, "wait.sig")], "pw.sig", widen=frozenset({"ready"}))
    (ready,) = [d for d in joined.spec.decls if d.kind == "signal" and d.name == "ready"]
    assert len(ready.dims) == 1 and type(ready.dims[0]).__name__ == "MinMax" and ready.dims[0].fn == "max"


def test_a_bug_between_two_kernels_is_found_cited_in_both_and_replays(tmp_path):
    pair = (f"{HERE}/bug_dispatch_push_skips_lower.cpp", f"{HERE}/dispatch_wait.cpp")
    code, doc, _ = check_json(*pair, "--together")
    (r,) = doc["results"]
    assert code == 1 and r["violated"] == ["deadlock"]
    (v,) = r["violations"]
    files = {step["span"]["file"] for step in v["trace"]}
    assert files == set(pair)   # each step at its own kernel's C++ line
    lines = {(step["span"]["file"], step["span"]["line"]) for step in v["trace"] if "TNOTIFY" in step["statement"] or "TWAIT" in step["statement"]}
    for file, line in lines:
        assert "TNOTIFY" in (ROOT / file).read_text().splitlines()[line - 1] or \
            "TWAIT" in (ROOT / file).read_text().splitlines()[line - 1]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(doc))
    code, out, err = sigproof("replay", r["spec"], trace)
    assert code == 0, err
    assert "replayed all" in out


def test_a_file_of_cooperating_kernels_is_one_protocol_with_together_in_its_config(tmp_path):
    text = (ROOT / HERE / "dispatch_push.cpp").read_text()
    wait = (ROOT / HERE / "dispatch_wait.cpp").read_text()
    (tmp_path / "pair.cpp").write_text(text + wait[wait.index("__global__"):])
    toml = (ROOT / HERE / "sigproof.toml").read_text()
    (tmp_path / "sigproof.toml").write_text(toml)
    code, doc, _ = check_json(tmp_path / "pair.cpp")
    assert [r["violated"] for r in doc["results"]] == [[], ["deadlock"]]   # each kernel alone
    (tmp_path / "sigproof.toml").write_text(toml + "together = true\n")
    code, doc, _ = check_json(tmp_path / "pair.cpp")
    (r,) = doc["results"]
    assert code == 0 and r["violated"] == [] and r["spec"].endswith("pair.cpp:dispatch_push+" + r["spec"].split("+")[0].rsplit(":", 1)[0] + ":dispatch_wait")


def test_together_takes_kernels_only():
    code, out, err = sigproof("check", "specs/all_to_all_barrier.sig", f"{HERE}/dispatch_wait.cpp", "--together")
    assert code == 2 and "--together combines C++ or MLIR kernels" in err


# ---------------------------------------------------------------- the combination


@pytest.mark.parametrize("path", [p for p in SPECS if "block_barrier" not in p.read_text()], ids=lambda p: p.name)
def test_one_spec_together_with_nothing_else_is_the_same_protocol(path):
    """`block` and `nblocks` as the member means them, the declarations kept: a spec
    combined alone gives the same verdict and the same states as the spec."""
    spec = parse(path.read_text(), path.name)
    alone = judge(spec, max_states=20_000, por=False, symmetry=False)
    joined = judge(together([spec], "joined.sig").spec, max_states=20_000, por=False, symmetry=False)
    assert (joined.violated, joined.stats.states, joined.stop is None) == \
        (alone.violated, alone.stats.states, alone.stop is None)


SPLIT = """
param N = 3;
ranks N;
blocks 3;
signal ready[N];
signal done;
kernel {
    if (block < 2) {
        TNOTIFY(ready[rank] @ (rank + 1) % nranks, block + 1, AtomicAdd);
    } else {
        TWAIT(ready[(rank + nranks - 1) % nranks], 3, EQ);
        TNOTIFY(done, 1, Set);
    }
}
"""

PUSH = """
param N = 3;
param B = 2;
ranks N;
blocks B;
signal ready[N];
kernel {
    TNOTIFY(ready[rank] @ (rank + 1) % nranks, block + 1, AtomicAdd);
}
"""

WAIT = """
param N = 3;
param B = 1;
ranks N;
blocks B;
signal ready[N];
signal done;
kernel {
    if (block == 0) {
        TWAIT(ready[(rank + nranks - 1) % nranks], 3 * nblocks, EQ);
    }
    TNOTIFY(done, block + 1, Set);
}
"""


@pytest.mark.parametrize("options", [{}, {"por": False, "symmetry": False}])
def test_two_kernels_together_are_the_protocol_written_by_hand(options):
    """The wait kernel's `nblocks` is its own 1 (not 3) and its `block` is 0 (not 2); its
    param B = 1 is renamed apart from the push kernel's B = 2; `ready` is one signal."""
    joined = together([parse(PUSH, "push.sig"), parse(WAIT, "wait.sig")], "pw.sig")
    assert any("param B of" in n and "is B_2" in n for n in joined.notes)
    by_hand = judge(parse(SPLIT, "split.sig"), **options)
    got = judge(joined.spec, **options)
    assert list(got.violated) == list(by_hand.violated) == [] and got.stats.states == by_hand.stats.states


def test_what_cannot_be_combined_is_an_error_at_its_place():
    other_size = WAIT.replace("signal ready[N];", "signal ready[N + 1];")
    with pytest.raises(SpecErrors) as e:
        together([parse(PUSH, "push.sig"), parse(other_size, "wait.sig")], "pw.sig")
    assert "signal 'ready' of wait.sig is declared with another shape" in str(e.value)
    assert e.value.errors[0].span.line == PUSH.count("\n") + 6   # wait.sig's line 6, in the combined source
    with pytest.raises(SpecErrors, match="another rank count"):
        together([parse(PUSH, "push.sig"), parse(WAIT.replace("ranks N;", "ranks 2;"), "wait.sig")], "pw.sig")
    with pytest.raises(SpecErrors, match="host code"):
        together([parse(PUSH, "push.sig"), parse(WAIT + "host { launch; launch; }\n", "wait.sig")], "pw.sig")
    with pytest.raises(SpecErrors, match="block_barrier"):
        together([parse(PUSH, "push.sig"), parse(WAIT.replace("TNOTIFY(done", "block_barrier; TNOTIFY(done"),
                                                 "wait.sig")], "pw.sig")
    # the default host and an explicit `host { launch; }` are the same host code
    together([parse(PUSH + "host { launch; }\n", "push.sig"), parse(WAIT, "wait.sig")], "pw.sig")


def test_a_local_named_like_the_other_kernels_signal_is_renamed():
    wait = WAIT.replace("signal done;", "").replace("TNOTIFY(done, block + 1, Set);", "int done = 1;")
    push = PUSH.replace("signal ready[N];", "signal ready[N];\nsignal done;").replace(
        "AtomicAdd);", "AtomicAdd);\n    TNOTIFY(done, 1, Set);")
    joined = together([parse(push, "push.sig"), parse(wait, "wait.sig")], "pw.sig")
    assert list(judge(joined.spec).violated) == []


def test_a_certificate_of_kernels_checked_together_verifies_and_sees_a_member_change(tmp_path):
    for name in ("dispatch_push.cpp", "dispatch_wait.cpp", "sigproof.toml"):
        (tmp_path / name).write_text((ROOT / HERE / name).read_text())
    push, wait, cert = tmp_path / "dispatch_push.cpp", tmp_path / "dispatch_wait.cpp", tmp_path / "c.json"
    code, out, err = sigproof("check", push, wait, "--together", "--certificate", cert, "-q", "-j", "1")
    assert code == 0, err
    code, out, err = sigproof("verify-certificate", cert)
    assert code == 0 and "verified: 1 check(s)" in out
    wait.write_text(wait.read_text().replace("WaitCmp::EQ", "WaitCmp::GE"))   # a member changes
    code, out, err = sigproof("verify-certificate", cert)
    assert code == 1 and "the spec file changed" in out and "skeleton_sha256" in out

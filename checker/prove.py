"""`sigproof prove`: a protocol correct for every size, or the smallest size that fails.

`prove_file(path, symbolic, lower, defines)` gives a `Proof`:
- FAIL when the explicit engine (checker.check.check_program, the same engine as `check`)
  finds a violation at one of the small sizes it tries first (smallest first); its result,
  with its shortest trace, is the evidence: there is no refutation without it;
- PROVED when the spec is in the fragment (checker/gcs.py), the candidate clauses mined
  from small sizes (checker/invariants.py) leave an inductive subset (Houdini,
  checker/prove_smt.py) that settles every fault, overflow and lost-notification
  obligation, and the min-progress lemma rules out deadlock; termination of each process
  follows from the counted loops the fragment requires;
- UNPROVED otherwise, with the reason (for a spec outside the fragment, the first
  unsupported statement's location) and the sizes checked explicitly.
Known limits: one block, no TTEST / reset / host_barrier / assert; counters whose threshold
depends on N (all_to_all_counter) are not proved (no counting argument); `check clean_exit`
is not covered.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass, field

from checker.check import Options, check_program, read_spec
from checker.result import Result
from model import SpecErrors, compile_spec, parse
from model import ir
from model.params import Sizes, Unsupported
from model.vocabulary import PROPERTIES as VOCAB_PROPERTIES

PROVED, FAIL, UNPROVED = "PROVED", "FAIL", "UNPROVED"
# what a proof covers: every verdict but dirty_exit (`check clean_exit` is outside the fragment)
# and data_race (no data statements in the fragment), in the catalog's order
PROPERTIES = tuple(p for p in VOCAB_PROPERTIES if p not in ("dirty_exit", "data_race"))
EXPLICIT = Options(max_states=200_000, timeout=60.0)  # each small size checked explicitly
TIMEOUT = 300.0  # seconds of solver work before UNPROVED (--timeout)
SPREAD = 2  # small sizes: the lower bounds plus at most this much in total


@dataclass(frozen=True)
class Checked:
    params: tuple[tuple[str, int], ...]
    status: str  # "ok", the violated properties joined by "+", or "inconclusive"

    def text(self) -> str:
        if not self.params:
            return f"the declared size {self.status}"
        return " ".join(f"{k}={v}" for k, v in self.params) + f" {self.status}"


@dataclass
class Proof:
    spec: str
    verdict: str  # PROVED | FAIL | UNPROVED
    claim: str  # the first line after the verdict
    symbolic: tuple[str, ...] = ()
    lower: dict = field(default_factory=dict)
    properties: tuple[str, ...] = ()
    invariant: tuple[str, ...] = ()
    clauses: tuple[int, int] = (0, 0)  # one-rank and two-rank clauses of the invariant
    reasons: tuple[str, ...] = ()
    location: str | None = None
    checked: tuple[Checked, ...] = ()
    failure: Result | None = None
    seconds: float = 0.0
    queries: int = 0
    raw: tuple = ()  # (commands, one-rank clauses, two-rank clauses) of a proof, for tests and tools

    @property
    def exit_code(self) -> int:
        return {PROVED: 0, FAIL: 1}.get(self.verdict, 3)


def ranks_param(spec) -> str | None:
    """The param that `ranks NAME;` names, if it names one."""
    from model import syntax as S  # noqa: PLC0415

    d = next((d for d in spec.decls if d.kind == "ranks"), None)
    return d.value.id if d is not None and isinstance(d.value, S.Name) else None


def prove_file(path, symbolic: list[str] | None = None, lower: dict | None = None,
               defines: dict | None = None, timeout: float | None = TIMEOUT) -> Proof:
    """Raises SpecErrors for a spec that does not compile (as `check` reports them).
    `timeout` bounds the solver part (seconds): past it the answer is UNPROVED."""
    start = time.monotonic()
    name = str(path)
    from pathlib import Path  # noqa: PLC0415

    source = read_spec(Path(path))
    spec = parse(source, name)
    defines = dict(defines or {})
    base = compile_spec(spec, defines)
    if not symbolic:
        r = ranks_param(spec)
        symbolic = [r] if r else []
    symbolic = list(dict.fromkeys(symbolic))
    r = ranks_param(spec)
    for s in sorted(set(lower or {}) - set(symbolic)):
        raise SpecErrors([_usage(f"--from {s}=...: {s} is not left symbolic (--all {s})")])
    lower = {s: (lower or {}).get(s, 2 if s == r else 1) for s in symbolic}
    for s in symbolic:
        if s in defines:
            raise SpecErrors([_usage(f"-D {s}=...: {s} is left symbolic by --all")])
        if s not in dict(base.params):
            raise SpecErrors([_usage(f"--all {s}: the spec declares no param '{s}'")])
    proof = Proof(name, UNPROVED, "", tuple(symbolic), lower)
    _refute(spec, defines, symbolic, lower, proof)
    if proof.verdict != FAIL:
        _prove(spec, base, symbolic, lower, proof, None if timeout is None else time.monotonic() + timeout)
    proof.seconds = time.monotonic() - start
    return proof


def _usage(message: str):
    from model import SpecError  # noqa: PLC0415

    return SpecError(message)


def small_sizes(symbolic, lower) -> list[dict]:
    """Assignments of the symbolic params near their lower bounds, smallest first."""
    ranges = [range(lower[s], lower[s] + SPREAD + 1) for s in symbolic]
    out = [dict(zip(symbolic, vals)) for vals in itertools.product(*ranges)
           if sum(v - lower[s] for s, v in zip(symbolic, vals)) <= SPREAD]
    return sorted(out, key=lambda d: (sum(d[s] - lower[s] for s in symbolic), [d[s] for s in symbolic]))


def _refute(spec, defines, symbolic, lower, proof: Proof) -> None:
    checked = []
    for values in small_sizes(symbolic, lower) if symbolic else [{}]:
        try:
            program = compile_spec(spec, {**defines, **values})
        except SpecErrors as e:
            checked.append(Checked(tuple(values.items()), "error"))
            proof.reasons += (f"{' '.join(f'{k}={v}' for k, v in values.items())}: {e.render()}",)
            continue
        result = check_program(program, proof.spec, EXPLICIT)
        violated = [v.property for v in result.violations]
        status = "+".join(violated) if violated else ("inconclusive" if result.stop else "ok")
        checked.append(Checked(tuple(values.items()), status))
        if violated:  # judged against "ok for every size": the spec's own `expect` lines do not excuse it
            proof.verdict, proof.failure = FAIL, dataclasses.replace(result, expected=())
            where = ", ".join(f"{k} = {v}" for k, v in values.items())
            proof.claim = f"{' and '.join(violated)}" + (f" at {where}" if where else "")
            break
    proof.checked = tuple(checked)


def _prove(spec, base: ir.Program, symbolic, lower, proof: Proof, deadline: float | None) -> None:
    from checker import gcs, invariants  # noqa: PLC0415
    from checker import prove_smt as smt  # noqa: PLC0415

    try:
        if base.clean_exit:
            raise Unsupported("`check clean_exit`", None)
        sizes = Sizes.of(spec, base, set(symbolic))
        gc = gcs.translate(base, sizes, smt.feasibility(sizes, lower))
        if not symbolic:
            proof.claim = ("no param is left symbolic (`ranks` names no param; use --all NAME): "
                           "`sigproof check` decides the declared size")
            return
        samples = []
        for values in _mining_sizes(symbolic, lower, sizes.ranks):
            conc = gcs.Concrete(gc, {**values})
            samples.append((conc, conc.reachable()))
        c1, c2 = invariants.mine(gc, samples)
        prover = smt.Prover(gc, lower, deadline)
        try:
            a1, a2 = prover.houdini(*prover.drop_tautologies(c1, c2))
            readers: dict = {}
            for x in gc.kernel.instrs:
                if isinstance(x, ir.Wait):
                    readers.setdefault(x.view.signal.name, []).append(x.cmp)
            failed = prover.obligations(a1, a2, readers)
            if not failed and not prover.deadlock_free(a1, a2):
                failed.append("deadlock freedom is not proved (the min-progress lemma does not close with the "
                              "invariant found)")
        finally:
            proof.queries = prover.queries
    except Unsupported as e:
        proof.claim = f"outside the prover's fragment: {e.message}"
        proof.location = str(e.span) if e.span is not None else None
        return
    except smt.Unknown as e:
        proof.claim = ("the time limit (--timeout) was reached; nothing is proved" if "time limit" in str(e) else
                       f"the solver answered unknown ({e}); nothing is proved")
        return
    except gcs.Fault as e:
        proof.claim = f"the small sizes could not be enumerated for mining ({e})"
        return
    proof.invariant = tuple([invariants.render_clause(c, gc, False) for c in a1] +
                            [invariants.render_clause(c, gc, True) for c in a2])
    proof.clauses = (len(a1), len(a2))
    proof.raw = (gc, tuple(a1), tuple(a2))
    if failed:
        proof.claim = "not proved: " + failed[0]
        proof.reasons += tuple(dict.fromkeys(failed))
        return
    proof.verdict = PROVED
    proof.properties = tuple(p for p in PROPERTIES if p != "assertion")  # the fragment has no assert
    proof.claim = "ok for all " + " and all ".join(f"{s} >= {lower[s]}" for s in symbolic)


def _mining_sizes(symbolic, lower, ranks) -> list[dict]:
    """Where candidates are mined: three ranks with the other params one above their lower
    bound, and two ranks with them two above (two shapes, so that fewer coincidences
    survive as candidates)."""
    a = {s: (3 if s == ranks else lower[s] + 1) for s in symbolic}
    b = {s: (2 if s == ranks else lower[s] + 2) for s in symbolic}
    out = [a] if len(symbolic) == 1 else [a, b]
    return out


# ---------------------------------------------------------------- reports


def write_text(proof: Proof, out, *, show_invariant: bool = False, timing: bool = True) -> None:
    out.write(f"{proof.spec}: {proof.verdict}: {proof.claim}\n")
    if proof.location:
        out.write(f"  at {proof.location}\n")
    if proof.verdict == PROVED:
        out.write(f"  properties: {', '.join(proof.properties)} (the fragment has no assert)\n")
        out.write(f"  params up to 2^31 - 1; {' '.join(proof.symbolic)} symbolic\n")
        one, two = proof.clauses
        out.write(f"  invariant: {one + two} clauses ({one} over one rank, {two} over two ranks), inductive\n")
    for r in proof.reasons[1:]:
        out.write(f"  also: {r}\n")
    if proof.checked:
        out.write(f"  checked explicitly: {', '.join(c.text() for c in proof.checked)}\n")
    if show_invariant and proof.invariant:
        out.write("  invariant:\n")
        for c in proof.invariant:
            out.write(f"    {c}\n")
    if proof.failure is not None:
        from checker.report import text  # noqa: PLC0415

        text([proof.failure], out, timing=timing)
    if timing:
        out.write(f"  {proof.seconds:.2f} s, {proof.queries} solver queries\n")


def json_doc(proof: Proof, *, timing: bool = True) -> dict:
    from checker.report import json_doc as check_json  # noqa: PLC0415

    doc = {"spec": proof.spec, "verdict": proof.verdict.lower(), "claim": proof.claim,
           "symbolic": {s: {"from": proof.lower[s], "to": 2**31 - 1} for s in proof.symbolic},
           "properties": list(proof.properties), "invariant": list(proof.invariant),
           "reasons": list(proof.reasons), "location": proof.location,
           "checked": [{"params": dict(c.params), "status": c.status} for c in proof.checked],
           "failure": check_json([proof.failure], timing=timing)["results"][0] if proof.failure else None,
           "queries": proof.queries}
    if timing:
        doc["seconds"] = round(proof.seconds, 3)
    return doc

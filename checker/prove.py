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
depends on N are proved only through the counting lemma; `check clean_exit` is an obligation
on the final states (prove_smt.Prover._clean_exit).
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
# what a proof covers: every verdict but dirty_exit (covered too when the spec has `check
# clean_exit;`) and data_race (no data statements in the fragment), in the catalog's order
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
    lemmas: tuple = ()  # the counting lemmas (prove_smt.Counting) established and used
    defines: dict = field(default_factory=dict)  # the -D values it was proved with

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
    if not symbolic:  # the spec's `expect ok for all ...;` line, else the param of `ranks`
        r = ranks_param(spec)
        symbolic = list(spec.for_all() or ([r] if r else []))
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
    proof = Proof(name, UNPROVED, "", tuple(symbolic), lower, defines=defines)
    _refute(spec, defines, symbolic, lower, proof)
    if proof.verdict != FAIL:
        _prove(spec, base, symbolic, lower, proof, None if timeout is None else time.monotonic() + timeout)
    proof.seconds = time.monotonic() - start
    return proof


@dataclass
class Run:
    """`sigproof prove PATHS...`: the proofs, the specs skipped (no `expect ok for all` line)
    and the spec errors (rendered). `single`: one file was named, proved whatever its lines."""

    proofs: list[Proof] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    single: bool = False

    @property
    def exit_code(self) -> int:
        """The first of 2 (a spec error), 1 (a FAIL), 3 (an UNPROVED) that applies, else 0."""
        codes = {p.exit_code for p in self.proofs}
        return 2 if self.errors else 1 if 1 in codes else 3 if 3 in codes else 0


SKIPPED = "no `expect ok for all ...;` line"


def prove_paths(paths: list[str], symbolic: list[str] | None = None, lower: dict | None = None,
                defines: dict | None = None, timeout: float | None = TIMEOUT) -> Run:
    """One file: `prove_file` (its params from --all, its `expect ok for all` line or `ranks`).
    Several paths or a folder: every spec with an `expect ok for all` line, proved for its
    params; the others are skipped. Raises UsageError for --all / --from with several specs,
    and when no spec has the line."""
    from pathlib import Path  # noqa: PLC0415

    from checker.check import UsageError, spec_files  # noqa: PLC0415

    files = spec_files(paths)
    run = Run(single=len(paths) == 1 and Path(paths[0]).is_file())
    if not run.single and (symbolic or lower):
        raise UsageError("--all and --from name the params of one spec; with several specs each is proved "
                         "for the params of its `expect ok for all ...;` line")
    for path in files:
        try:
            if not run.single:
                name = path.as_posix()
                if parse(read_spec(path), name).for_all() is None:
                    run.skipped.append(name)
                    continue
            run.proofs.append(prove_file(path, symbolic, lower, defines, timeout))
        except SpecErrors as e:
            run.errors.append(e.render())
    if not run.single and not run.proofs and not run.errors:
        raise UsageError(f"no spec under {' '.join(paths)} has an `expect ok for all ...;` line: nothing to prove")
    return run


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
        gc = commands(spec, base, symbolic, lower)
        if not symbolic:
            proof.claim = ("no param is left symbolic (`ranks` names no param; use --all NAME): "
                           "`sigproof check` decides the declared size")
            return
        samples = []
        for values in _mining_sizes(symbolic, lower, gc.sizes.ranks):
            conc = gcs.Concrete(gc, {**values})
            samples.append((conc, conc.reachable()))
        c1, c2 = invariants.mine(gc, samples)
        c1, c2 = refine(gc, c1, c2, _states(gc, [v for v in small_sizes(symbolic, lower)
                                                     if v not in _mining_sizes(symbolic, lower, gc.sizes.ranks)]))
        prover = smt.Prover(gc, lower, deadline)
        try:
            a1, a2 = prover.houdini(*prover.drop_tautologies(c1, c2))
            lemmas = prover.counting(a1, a2)
            failed = prover.obligations(a1, a2, readers(gc), lemmas)
            if not failed and not prover.deadlock_free(a1, a2, lemmas):
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
    proof.lemmas = tuple(lemmas)
    if failed:
        proof.claim = "not proved: " + failed[0]
        proof.reasons += tuple(dict.fromkeys(failed))
        return
    proof.verdict = PROVED
    proof.properties = tuple(p for p in VOCAB_PROPERTIES  # the fragment has no assert
                             if p in PROPERTIES and p != "assertion" or p == "dirty_exit" and base.clean_exit)
    proof.claim = "ok for all " + " and all ".join(f"{s} >= {lower[s]}" for s in symbolic)


def commands(spec, base: ir.Program, symbolic, lower):
    """The guarded commands of a compiled spec with `symbolic` params (raises Unsupported)."""
    from checker import gcs  # noqa: PLC0415
    from checker import prove_smt as smt  # noqa: PLC0415

    sizes = Sizes.of(spec, base, set(symbolic))
    return gcs.translate(base, sizes, smt.feasibility(sizes, lower))


def readers(gc) -> dict:
    """Per signal, its readers: the kernel TWAITs and TTESTs of one element on it (the
    fragment has no other)."""
    out: dict = {}
    for x in gc.kernel.instrs:
        if isinstance(x, (ir.Wait, ir.Test)):
            out.setdefault(x.view.signal.name, []).append(x)
    return out


def _mining_sizes(symbolic, lower, ranks) -> list[dict]:
    """Where candidates are mined: three ranks with the other params one above their lower
    bound, and two ranks with them two above (two shapes, so that fewer coincidences
    survive as candidates)."""
    a = {s: (3 if s == ranks else lower[s] + 1) for s in symbolic}
    b = {s: (2 if s == ranks else lower[s] + 2) for s in symbolic}
    out = [a] if len(symbolic) == 1 else [a, b]
    return out


# ---------------------------------------------------------------- the candidate filter

WALKS = 2  # random runs per size when a size has more than FULL states
FULL = 300  # states: a size with at most this many is sampled whole (breadth first)
ENVS = 1200  # states x (ordered pairs of) ranks evaluated per size, at most


def _states(gc, sizes: list[dict]) -> list:
    """(Concrete, states) per size: reachable states of the commands at each size of `sizes`
    (all of them when there are at most FULL, else the states along WALKS runs of a seeded
    random scheduler, evenly thinned to about ENVS rank pairs). A size whose exploration
    faults is left out. Deterministic: the same spec gives the same states."""
    import random  # noqa: PLC0415

    from checker import gcs  # noqa: PLC0415

    out = []
    for values in sizes:
        conc = gcs.Concrete(gc, dict(values))
        rng = random.Random(0)
        try:
            init = conc.initial()
            seen = {init: None}
            frontier = [init]
            while frontier and len(seen) <= FULL:
                nxt = []
                for s in frontier:
                    for _, _, t in conc.successors(s):
                        if t not in seen:
                            seen[t] = None
                            nxt.append(t)
                frontier = nxt
            if frontier:  # more than FULL: runs instead
                seen = {}
                for _ in range(WALKS):
                    s = init
                    for _ in range(100_000):
                        seen[s] = None
                        succ = conc.successors(s)
                        if not succ:
                            break
                        s = rng.choice(succ)[2]
        except gcs.Fault:
            continue
        states = list(seen)
        pairs = max(1, conc.R * (conc.R - 1))
        stride = max(1, -(-len(states) * pairs // ENVS))
        out.append((conc, states[::stride]))
    return out


def refine(gc, c1: list, c2: list, samples: list) -> tuple[list, list]:
    """The candidates that no state of `samples` (reachable states at sizes in the proof's
    range) falsifies. A clause false in a reachable state is in no inductive invariant (what
    Houdini keeps holds in every reachable state), so Houdini's fixpoint, the invariant, is
    the same with and without this filter; it only saves Houdini the solver queries that
    would drop those clauses. An atom whose evaluation faults falsifies nothing."""
    from checker import invariants  # noqa: PLC0415
    from checker.gcs import Fault  # noqa: PLC0415

    def masks(clauses, pairs: bool):
        groups: dict = {}  # plain clauses, and the index clauses per (signal, dimension)
        for c in clauses:
            groups.setdefault(invariants.index_of(c), []).append(c)
        keep = set()
        for index, cs in groups.items():
            keep |= set(group(cs, pairs, index))
        return [c for c in clauses if c in keep]

    def group(clauses, pairs: bool, index):
        atoms = list(dict.fromkeys(a for c in clauses for a, _ in c))
        yes, no, bit = dict.fromkeys(atoms, 0), dict.fromkeys(atoms, 0), 0
        for conc, states in samples:
            envs = invariants.envs(conc, pairs, index)
            for st in states:
                view = invariants.ConcreteView(conc, st)
                for env in envs:
                    b = 1 << bit
                    bit += 1
                    for a in atoms:
                        try:
                            if invariants.holds(a, view, env):
                                yes[a] |= b
                            else:
                                no[a] |= b
                        except Fault:
                            pass
        full = (1 << bit) - 1
        # a literal may hold where its atom is not known to have the other value
        return [c for c in clauses if _or_masks(full & ~(no[a] if pol else yes[a]) for a, pol in c) == full]

    return masks(c1, False), masks(c2, True)


def _or_masks(ms) -> int:
    out = 0
    for m in ms:
        out |= m
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
        gc = proof.raw[0] if proof.raw else None
        for lem in proof.lemmas:
            out.write(f"  counting lemma, inductive: {counting_text(lem, gc)}\n")
    for r in proof.reasons:  # each one but the claim's own
        if proof.claim != f"not proved: {r}":
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


def counting_text(lem, gc) -> str:
    """A counting lemma in the spec's terms."""
    x = gc.kernel.instrs[lem.notify]
    who = "ranks i != h" if lem.self_excluded else "ranks i"
    init = f"{lem.init} + " if lem.init else ""
    return (f"{lem.signal}@h == {init}{lem.add} * #{{{who} past `{x.text}` at {x.span.line}:{x.span.col} "
            f"for h}} for every rank h")


def json_doc(proof: Proof, *, timing: bool = True) -> dict:
    from checker.report import json_doc as check_json  # noqa: PLC0415

    doc = {"spec": proof.spec, "verdict": proof.verdict.lower(), "claim": proof.claim,
           "symbolic": {s: {"from": proof.lower[s], "to": 2**31 - 1} for s in proof.symbolic},
           "properties": list(proof.properties), "invariant": list(proof.invariant),
           **({"counting": [counting_text(x, proof.raw[0]) for x in proof.lemmas]} if proof.lemmas else {}),
           "reasons": list(proof.reasons), "location": proof.location,
           "checked": [{"params": dict(c.params), "status": c.status} for c in proof.checked],
           "failure": check_json([proof.failure], timing=timing)["results"][0] if proof.failure else None,
           "queries": proof.queries}
    if timing:
        doc["seconds"] = round(proof.seconds, 3)
    return doc


def write_run(run: Run, out, *, show_invariant: bool = False, timing: bool = True) -> None:
    """The text of `prove PATHS...`: each proof, the specs skipped, and (several specs) a summary."""
    for proof in run.proofs:
        write_text(proof, out, show_invariant=show_invariant, timing=timing)
    for name in run.skipped:
        out.write(f"{name}: skipped: {SKIPPED}\n")
    if not run.single:
        count = {v: sum(p.verdict == v for p in run.proofs) for v in (PROVED, FAIL, UNPROVED)}
        out.write(f"prove: {len(run.proofs)} spec(s): {count[PROVED]} PROVED, {count[FAIL]} FAIL, "
                  f"{count[UNPROVED]} UNPROVED; {len(run.skipped)} skipped ({SKIPPED}); "
                  f"{len(run.errors)} with errors\n")


def run_doc(run: Run, *, timing: bool = True) -> dict:
    """The JSON of several specs: `proofs` (each as `json_doc`), `skipped`, `errors` (rendered)."""
    return {"proofs": [json_doc(p, timing=timing) for p in run.proofs],
            "skipped": [{"spec": s, "reason": SKIPPED} for s in run.skipped],
            "errors": list(run.errors)}


# ---------------------------------------------------------------- certificates

CERTIFICATE = "sigproof-prove-certificate"


def _sha256(data: bytes) -> str:
    import hashlib  # noqa: PLC0415

    return hashlib.sha256(data).hexdigest()


def _seal(doc: dict) -> str:
    import json  # noqa: PLC0415

    return _sha256(json.dumps({k: v for k, v in doc.items() if k != "seal"}, sort_keys=True).encode())


def certificate_entry(proof: Proof) -> dict:
    """What makes a PROVED proof: the spec's digest, the sizes, the invariant (in the spec's
    terms and as data) and the SMT-LIB 2 text of every query (checker.prove_smt.Prover.certificate)."""
    from pathlib import Path  # noqa: PLC0415

    from checker import invariants  # noqa: PLC0415
    from checker import prove_smt as smt  # noqa: PLC0415

    assert proof.verdict == PROVED, proof.verdict
    gc, a1, a2 = proof.raw
    queries = smt.Prover(gc, proof.lower).certificate(list(a1), list(a2), readers(gc), proof.lemmas)
    entry = {"spec": proof.spec, "sha256": _sha256(Path(proof.spec).read_bytes()), "defines": proof.defines,
             "symbolic": {s: proof.lower[s] for s in proof.symbolic}, "claim": proof.claim,
             "properties": list(proof.properties),
             "invariant": {"text": list(proof.invariant), "one_rank": invariants.encode(a1, gc),
                           "two_ranks": invariants.encode(a2, gc)}}
    if proof.lemmas:  # the lemma's parameters: its own queries (kind "lemma") establish it
        entry["counting"] = [dataclasses.asdict(x) for x in proof.lemmas]
    entry["queries"] = [{"kind": k, "shows": what, "smt2": text} for k, what, text in queries]
    return entry


def write_certificate(run: Run, path) -> int:
    """Writes the certificate of the specs `run` proved (none: no file); returns how many."""
    import json  # noqa: PLC0415
    import os  # noqa: PLC0415
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    entries = [certificate_entry(p) for p in run.proofs if p.verdict == PROVED]
    if not entries:
        return 0
    try:
        ours = version("sigproof")
    except PackageNotFoundError:
        ours = "unknown"
    doc = {"format": CERTIFICATE, "version": 1, "sigproof": ours, "root": os.getcwd(), "proofs": entries}
    doc["seal"] = _seal(doc)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return len(entries)


def verify_certificate(path, out, solvers: tuple[str, ...] = ("z3", "cvc5")) -> int:
    """Re-checks a certificate: its seal, each spec's digest, that its queries are those the
    spec and the recorded invariant give (regenerated), and each query's text with every
    solver of `solvers` that is installed (z3 always), which must answer unsat. 0 verified,
    1 not (each reason written to `out`), 2 not a certificate."""
    import json  # noqa: PLC0415

    from checker.check import UsageError  # noqa: PLC0415
    from checker import prove_smt as smt  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: not a prove certificate ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != CERTIFICATE or not isinstance(doc.get("proofs"), list):
        raise UsageError(f"{path}: not a prove certificate (no format '{CERTIFICATE}')")
    used = []
    for s in solvers:
        why = smt.available(s)
        if why is None:
            used.append(s)
        else:
            out.write(f"{path}: {s} not used: {why}\n")
    problems = [] if doc.get("seal") == _seal(doc) else ["the seal does not match: the certificate was edited"]
    if not doc["proofs"]:
        problems.append("the certificate holds no proof")
    for entry in doc["proofs"]:
        problems += [f"{entry.get('spec')}: {p}" for p in _verify_entry(entry, doc.get("root"), used, out)]
    for p in problems:
        out.write(f"{path}: {p}\n")
    verdict = "NOT VERIFIED" if problems else "VERIFIED"
    out.write(f"{path}: {verdict}: {len(doc['proofs'])} proof(s), "
              f"{sum(len(e.get('queries', [])) for e in doc['proofs'])} queries re-checked with {', '.join(used)}\n")
    return 1 if problems else 0


def _verify_entry(entry: dict, root, solvers: list[str], out) -> list[str]:
    from pathlib import Path  # noqa: PLC0415

    from checker import invariants  # noqa: PLC0415
    from checker import prove_smt as smt  # noqa: PLC0415

    try:
        file = Path(root or ".") / entry["spec"]
        data = file.read_bytes()
        if _sha256(data) != entry["sha256"]:
            return [f"the spec changed since the proof (sha256 {_sha256(data)[:12]}..., "
                    f"the certificate says {entry['sha256'][:12]}...)"]
        spec = parse(read_spec(file), entry["spec"])
        base = compile_spec(spec, dict(entry["defines"]))
        symbolic, lower = list(entry["symbolic"]), dict(entry["symbolic"])
        gc = commands(spec, base, symbolic, lower)
        a1 = invariants.decode(entry["invariant"]["one_rank"], gc)
        a2 = invariants.decode(entry["invariant"]["two_ranks"], gc)
        candidates = smt.counting_candidates(gc)
        lemmas = [smt.Counting(**x) for x in entry.get("counting", [])]
        if any(x not in candidates for x in lemmas):
            raise ValueError("a counting lemma that the spec does not give")
        given = [(q["kind"], q["shows"], q["smt2"]) for q in entry["queries"]]
    except (OSError, KeyError, TypeError, ValueError, SpecErrors, Unsupported) as e:
        return [f"cannot be re-read: {getattr(e, 'message', None) or e}"]
    problems = []
    expected = smt.Prover(gc, lower).certificate(a1, a2, readers(gc), lemmas)
    if len(given) != len(expected):
        problems.append(f"{len(given)} queries, but the spec and its invariant give {len(expected)}")
    for k, (q, e) in enumerate(zip(given, expected)):
        if q[:2] != e[:2] or not smt.same_problem(q[2], e[2]):
            problems.append(f"query {k + 1} ({q[0]}: {q[1]}) is not the one the spec and its invariant give")
    for k, (kind, shows, text) in enumerate(given):
        for solver in solvers:
            answer = smt.recheck(text, solver)
            if answer != "unsat":
                problems.append(f"query {k + 1} ({kind}: {shows}): {solver} answers {answer}, not unsat")
    out.write(f"{entry['spec']}: {len(given)} queries ({', '.join(solvers)}): "
              f"{'ok' if not problems else f'{len(problems)} problem(s)'}\n")
    return problems

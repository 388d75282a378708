"""Small helpers shared by the tests."""

import functools
import io
from pathlib import Path

from checker.check import Options, check_program
from model.semantics import Semantics
from model import System, compile_spec, parse


def compile_text(text: str, overrides=None, file: str = "t.sig"):  # noqa: D103
    return compile_spec(parse(text, file), overrides)


SEMANTIC_KEYS = ("tensor_wait", "memory_model", "set_granularity")


def check_text(text: str, overrides=None, **options):
    """Check a spec text; `tensor_wait`, `memory_model` and `set_granularity` choose its Semantics."""
    semantics = Semantics(**{k: options.pop(k) for k in SEMANTIC_KEYS if k in options})
    return check_program(compile_text(text, overrides), "t.sig", Options(semantics=semantics, **options))


def violated(text: str, overrides=None, **options) -> set[str]:
    return set(check_text(text, overrides, **options).violated)


def system_of(text: str, overrides=None, **kw) -> System:
    return System(compile_text(text, overrides), **kw)


def sigproof(*argv) -> tuple[int, str, str]:
    """The command line, in process: (exit code, stdout, stderr)."""
    from checker.cli import run

    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@functools.lru_cache(maxsize=None)
def prover_alone(path: str):
    """`sigproof prove`'s own verdict on a spec: the prover without the explicit refutation
    at small sizes that runs first (so a buggy spec must be left unproved by the prover
    itself, not only caught by the explicit engine)."""
    from checker import prove
    from checker.check import read_spec

    spec = parse(read_spec(Path(path)), path)
    base = compile_spec(spec, {})
    r = prove.ranks_param(spec)
    proof = prove.Proof(path, prove.UNPROVED, "", (r,), {r: 2})
    prove._prove(spec, base, [r], {r: 2}, proof, None)
    return proof


def refuted_and_never_proved_alone(path: str, claim: str, reason: str, at: str) -> None:
    """A buggy spec: `prove` FAILs with `claim` (the explicit engine's), and the prover alone
    leaves it UNPROVED with a reason that starts with `reason` and names `at` (file:line:col)."""
    from checker import prove

    proof = prove.prove_file(path)
    assert proof.verdict == prove.FAIL and proof.claim == claim, proof.claim
    alone = prover_alone(path)
    assert alone.verdict == prove.UNPROVED
    assert any(r.startswith(reason) and at in r for r in alone.reasons), alone.reasons


@functools.lru_cache(maxsize=None)
def proved_once(path: str):
    """`sigproof prove`'s proof of a spec file with its own claim, computed once per test run."""
    from checker import prove

    return prove.prove_file(path)

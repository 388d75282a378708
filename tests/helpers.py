"""Small helpers shared by the tests."""

import io

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

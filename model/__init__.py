"""The .sig protocol language and its meaning: parsing, semantic checks, lowering to the typed
IR, static analysis, the transition system."""

from model.check import check_spec
from model.errors import Span, SpecError, SpecErrors
from model.lower import lower
from model.parser import parse
from model.system import System


def compile_spec(spec, overrides: dict[str, int] | None = None):
    """Check a parsed spec and lower it to a Program (raises SpecErrors)."""
    return lower(check_spec(spec, overrides))


__all__ = ["Span", "SpecError", "SpecErrors", "parse", "check_spec", "lower", "compile_spec", "System"]

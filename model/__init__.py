"""The .sig protocol language and its meaning: parsing, semantic checks, lowering to the typed
IR, static analysis, the transition system.

The names below are loaded when first used (PEP 562), so that importing a light submodule
(`model.semantics`, `model.vocabulary`) does not load the parser and the IR: the command
line's `--version` and `--help` stay quick."""

from importlib import import_module

_LAZY = {"Span": "model.errors", "SpecError": "model.errors", "SpecErrors": "model.errors",
         "parse": "model.parser", "check_spec": "model.check", "lower": "model.lower", "System": "model.system"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'model' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    # `lower` is also the name of its submodule, which the import above has just bound here:
    # put the function back, as the eager import did.
    globals()[name] = value
    return value


def compile_spec(spec, overrides: dict[str, int] | None = None):
    """Check a parsed spec and lower it to a Program (raises SpecErrors)."""
    check_spec, lower = __getattr__("check_spec"), __getattr__("lower")
    return lower(check_spec(spec, overrides))


__all__ = ["Span", "SpecError", "SpecErrors", "parse", "check_spec", "lower", "compile_spec", "System"]

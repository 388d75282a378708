"""Search and judgement: explorer, properties, z3 queries, traces, results, reporters, CLI.

The public surface: check a program, a spec file or paths (`check_inputs`: with C++ kernels
among them), and the exit status of results. These names are loaded when first used
(PEP 562), so that the command line's `--version` and `--help` do not load the engine."""

from importlib import import_module

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

_LAZY = {"Options": "checker.check", "UsageError": "checker.usage", "check_file": "checker.check",
         "check_paths": "checker.check", "check_program": "checker.check", "exit_status": "checker.check",
         "check_inputs": "checker.kernels", "Result": "checker.result", "Stop": "checker.result",
         "Violation": "checker.result"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'checker' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = ["Options", "UsageError", "check_file", "check_inputs", "check_paths", "check_program", "exit_status",
           "Result", "Stop", "Violation"]

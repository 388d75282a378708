"""Search and judgement: explorer, properties, z3 queries, traces, results, reporters, CLI."""

from checker.check import Options, check_program
from checker.result import Result, Violation

__all__ = ["Options", "check_program", "Result", "Violation"]

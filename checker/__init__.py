"""Search and judgement: explorer, properties, z3 queries, traces, results, reporters, CLI.

The public surface: check a program, a spec file or paths, and the exit status of results."""

from checker.check import Options, UsageError, check_file, check_paths, check_program, exit_status
from checker.result import Result, Stop, Violation

__all__ = ["Options", "UsageError", "check_file", "check_paths", "check_program", "exit_status", "Result", "Stop",
           "Violation"]

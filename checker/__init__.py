"""Search and judgement: explorer, properties, z3 queries, traces, results, reporters, CLI.

The public surface: check a program, a spec file or paths (`check_inputs`: with C++ kernels
among them), and the exit status of results."""

from checker.check import Options, UsageError, check_file, check_paths, check_program, exit_status
from checker.kernels import check_inputs
from checker.result import Result, Stop, Violation

__all__ = ["Options", "UsageError", "check_file", "check_inputs", "check_paths", "check_program", "exit_status",
           "Result", "Stop", "Violation"]

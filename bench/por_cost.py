"""Issue 19, item 3: what a reduced state costs, and how much of it is the stubborn set.

    python bench/por_cost.py

Runs `sigproof check`'s engine (checker.check.check_program, default options: partial-order
reduction and symmetry where the program allows them) under cProfile on the loop-, value-
and try-counting specs of the issue and prints, per spec: the states,
the CPU seconds of the run (user + sys, profiler included), CPU microseconds per state, and
the share of the run spent in `Reduction.ample` (computing the stubborn set, cumulative),
and how many futures were computed afresh (`Reduction._reachable`: the cache of refined
futures missed) against the states. Profiling slows every Python call alike, so the share is the figure to
read; the per-state cost is an upper bound of the unprofiled one.

A second table runs each spec again without the profiler, with only `Reduction.ample` and
`System.successors` timed (CPU seconds of this process, `time.process_time`, around each
call): the issue's target is a stubborn set that costs no more than generating the
successors, so the last column, ample / successors, should be at most 1. The two 32-rank
field barriers are in that table too.
"""

from __future__ import annotations

import cProfile
import pstats
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from checker.check import Options, check_program, read_spec  # noqa: E402
from model import compile_spec, parse  # noqa: E402

CASES = [  # (label, spec, defines)
    ("loop-counting: vLLM all-reduce 8x4", "specs/field/vllm_allreduce.sig", {"N": 8, "B": 4}),
    ("value-counting: root EQ handshake N=16", "specs/root_eq_handshake.sig", {"N": 16}),
    ("value-counting: root EQ handshake N=64", "specs/root_eq_handshake.sig", {"N": 64}),
    ("try-counting: TTEST ring K=16 N=4", "specs/ttest_ring.sig", {"N": 4, "K": 16}),
    ("try-counting: TTEST ring K=2 N=8", "specs/ttest_ring.sig", {"N": 8, "K": 2}),
    ("try-counting: TTEST ring K=16 N=32", "specs/ttest_ring.sig", {"N": 32, "K": 16}),
]


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(path: str, defines: dict) -> tuple[int, float, float, int]:
    spec = parse(read_spec(ROOT / path), path)
    program = compile_spec(spec, defines)
    prof = cProfile.Profile()
    start = cpu()
    prof.enable()
    result = check_program(program, path, Options(timeout=120.0))
    prof.disable()
    spent = cpu() - start
    stats = pstats.Stats(prof)
    ample = [(v[3], v[1]) for k, v in stats.stats.items() if k[2] == "ample" and k[0].endswith("independence.py")]
    cum, calls = ample[0] if ample else (0.0, 0)
    fresh = sum(v[1] for k, v in stats.stats.items() if k[2] == "_reachable" and k[0].endswith("independence.py"))
    total = sum(v[2] for v in stats.stats.values())  # profiled time of every function (own time)
    return result.stats.states, spent, cum / total if total else 0.0, fresh


UNPROFILED = CASES + [
    ("loop-counting at 32 ranks: epoch barrier L=3", "specs/field/epoch_barrier.sig", {"N": 32, "L": 3}),
    ("loop-counting at 32 ranks: DeepEP barrier_block", "specs/field/deepep_barrier.sig", {"N": 32}),
]


def timed(path: str, defines: dict) -> tuple[int, float, float, float]:
    """(states, CPU s of the whole check, of ample, of successors), no profiler."""
    from model.independence import Reduction
    from model.system import System

    spent = {"ample": 0.0, "successors": 0.0}
    originals = {"ample": Reduction.ample, "successors": System.successors}

    def timer(name):
        call = originals[name]

        def run(*args):
            start = time.process_time()
            try:
                return call(*args)
            finally:
                spent[name] += time.process_time() - start
        return run

    spec = parse(read_spec(ROOT / path), path)
    program = compile_spec(spec, defines)
    Reduction.ample, System.successors = timer("ample"), timer("successors")
    try:
        start = time.process_time()
        result = check_program(program, path, Options(timeout=120.0))
        whole = time.process_time() - start
    finally:
        Reduction.ample, System.successors = originals["ample"], originals["successors"]
    return result.stats.states, whole, spent["ample"], spent["successors"]


def main() -> None:
    cases = CASES
    print("| case | states | CPU s (profiled) | µs/state | stubborn set share | futures computed |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, path, defines in cases:
        states, spent, share, fresh = measure(path, defines)
        print(f"| {label} | {states:,} | {spent:.2f} | {1e6 * spent / max(states, 1):,.1f} | {100 * share:.0f}% | {fresh:,} |")
    print()
    print("| case (no profiler) | states | CPU s | ample s | successors s | ample µs/state | ample / successors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, path, defines in UNPROFILED:
        states, whole, ample, succ = timed(path, defines)
        print(f"| {label} | {states:,} | {whole:.2f} | {ample:.2f} | {succ:.2f} | {1e6 * ample / max(states, 1):,.1f} | "
              f"{ample / succ if succ else float('nan'):.2f} |")


if __name__ == "__main__":
    main()

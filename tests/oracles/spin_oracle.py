"""Run SPIN on sigproof's Promela export and read its verdict (tests and the benchmark).

`spin_check(text, workdir)` writes the model, runs `spin -o2 -a` (no dead-variable
elimination: SPIN would drop a signal that nothing reads from the state), compiles pan with -DSAFETY
-DNOREDUCE (no partial-order reduction, so that the stored states are comparable with
sigproof's) and runs `./pan -c0` (go on after errors, so that every kind is seen). The
verdict is the set of properties whose error messages pan printed: an invalid end state
is a (terminal) `deadlock`; `assertion violated sigproof_<kind>` is that kind.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

KINDS = ("assertion", "overflow", "error")


def have_spin() -> bool:
    return shutil.which("spin") is not None and shutil.which("gcc") is not None


@dataclass(frozen=True)
class SpinResult:
    violated: frozenset
    states: int  # pan's "states, stored"
    complete: bool  # False when pan's search was cut short (depth or memory)
    output: str


def spin_check(text: str, workdir: Path, opt: str = "-O0", depth: int = 1_000_000, timeout: float = 120) -> SpinResult:
    """Safety search: terminal deadlocks (invalid end states) and the assertions."""
    _build(text, workdir, [], [opt, "-DSAFETY", "-DNOREDUCE"], timeout)
    run = subprocess.run(["./pan", "-c0", f"-m{depth}"], cwd=workdir, capture_output=True, text=True,
                         timeout=timeout)
    return parse_pan(run.stdout)


def spin_non_progress(text: str, workdir: Path, nprocs: int, depth: int = 1_000_000, timeout: float = 120) -> bool:
    """Whether pan -l -f (weak fairness) finds a non-progress cycle: with -DSIGPROOF_PROGRESS
    the finished state has no self-loop, so every cycle is one where the run never finishes."""
    _build(text, workdir, ["-DSIGPROOF_PROGRESS"], ["-O0", "-DNP", f"-DNFAIR={nprocs + 3}", "-DNOREDUCE"], timeout)
    run = subprocess.run(["./pan", "-l", "-f", "-A", f"-m{depth}"], cwd=workdir, capture_output=True, text=True,
                         timeout=timeout)
    return any(re.match(r"pan:\d+: non-progress cycle", line) for line in run.stdout.splitlines())


def _build(text: str, workdir: Path, spin_flags: list, gcc_flags: list, timeout: float) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "model.pml").write_text(text)
    subprocess.run(["spin", "-o2", *spin_flags, "-a", "model.pml"], cwd=workdir, check=True, capture_output=True,
                   timeout=timeout)
    subprocess.run(["gcc", *gcc_flags, "-o", "pan", "pan.c"], cwd=workdir, check=True, capture_output=True,
                   timeout=timeout)


def parse_pan(out: str) -> SpinResult:
    violated = set()
    for line in out.splitlines():
        if not re.match(r"pan:\d+: ", line):
            continue
        if "invalid end state" in line:
            violated.add("deadlock")
        for kind in KINDS:
            if f"assertion violated sigproof_{kind}" in line:
                violated.add(kind)
    m = re.search(r"(\d+) states, stored", out)
    complete = m is not None and "max search depth too small" not in out and "out of memory" not in out
    return SpinResult(frozenset(violated), int(m.group(1)) if m else -1, complete, out)

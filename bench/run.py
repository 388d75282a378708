"""sigproof beside SPIN: every case of the table, both tools end to end, one command.

    python bench/run.py                 # every case (long: see CASES), writes bench/RESULTS.md
    python bench/run.py --quick         # only the cases whose sigproof run takes < 10 s
    python bench/run.py --timeout 60 --memory 8192 --only a2a

sigproof: the installed CLI, `sigproof check SPEC -D ... --format json -j 1` (plus `--dfs
--fail-fast` for the fail-fast rows), timed from start to exit. SPIN: `sigproof export
--promela`, `spin -o2 -a`, `gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=...`, `./pan`, timed
together (the pan search alone is reported too). Every command runs as
`/usr/bin/time -v timeout --foreground -s KILL T CMD`: CPU seconds (user + sys, the killed ones included:
the machine is shared, and CPU time moves less with load than wall time), wall seconds and
peak resident memory. See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    name: str
    spec: str
    params: tuple[tuple[str, int], ...]
    search: str = "bfs"  # "bfs": both tools explore everything; "dfs-ff": both stop at the first error
    long: bool = False  # sigproof takes 10 s or more: left out by --quick
    spin_spec: str | None = None  # what SPIN gets instead (a data spec's signal skeleton: no data_race in Promela)
    strip_expect: bool = False  # both tools get the spec without its `expect` lines (--fail-fast stops only
    #                             at an unexpected violation)
    unreduced: bool = False  # sigproof with --no-por --no-symmetry (the engine against pan state for state)
    symmetry_only: bool = False  # sigproof with --no-por: what the symmetries alone (rotation, blocks) store


def _case(name, spec, search="bfs", long=False, spin_spec=None, strip_expect=False, unreduced=False,
          symmetry_only=False, **params):
    return Case(name, spec, tuple(params.items()), search, long, spin_spec, strip_expect, unreduced, symmetry_only)


CASES = (
    _case("a2a barrier N=4", "specs/all_to_all_barrier.sig", N=4),
    _case("a2a barrier N=5", "specs/all_to_all_barrier.sig", N=5),
    _case("a2a barrier N=6", "specs/all_to_all_barrier.sig", N=6, long=True),
    _case("a2a barrier N=7", "specs/all_to_all_barrier.sig", N=7, long=True),
    _case("a2a barrier N=8", "specs/all_to_all_barrier.sig", N=8, long=True),
    _case("two-level 4x4", "bench/specs/two_level_plain.sig", N=4, B=4, P=1),
    _case("two-level 5x4", "bench/specs/two_level_plain.sig", N=5, B=4, P=1, long=True),
    _case("two-level 6x2", "bench/specs/two_level_plain.sig", N=6, B=2, P=1, long=True),
    _case("two-level 8x4", "bench/specs/two_level_plain.sig", N=8, B=4, P=1, long=True),
    # the engine itself: no reduction, so both tools store the same states (the compiled search)
    _case("a2a barrier N=6 unreduced", "specs/all_to_all_barrier.sig", N=6, unreduced=True),
    _case("two-level 5x4 unreduced", "bench/specs/two_level_plain.sig", N=5, B=4, P=1, unreduced=True),
    _case("field: ring all-reduce N=8 unreduced", "specs/field/ring_allreduce.sig", N=8, unreduced=True, long=True),
    _case("TTEST ring tries K=16 N=6 unreduced", "specs/ttest_ring.sig", N=6, K=16, unreduced=True, long=True),
    _case("two-level+ghost check 3x3", "specs/two_level_barrier.sig", N=3, B=3, P=1, long=True),
    _case("ring flags N=5", "bench/specs/ring_pipeline_flags.sig", N=5),
    _case("ring flags N=7", "bench/specs/ring_pipeline_flags.sig", N=7, long=True),
    _case("epoch 3 launches N=3", "specs/epoch_counter.sig", N=3, L=3),
    _case("epoch 3 launches N=4", "specs/epoch_counter.sig", N=4, L=3),
    _case("epoch 3 launches N=5", "specs/epoch_counter.sig", N=5, L=3, long=True),
    _case("epoch 3 launches N=8", "specs/epoch_counter.sig", N=8, L=3, long=True),
    _case("counter Set N=5 BFS", "specs/bug_counter_set_instead_of_add.sig", N=5),
    _case("counter Set N=7 BFS", "specs/bug_counter_set_instead_of_add.sig", N=7, long=True),
    _case("counter Set N=5 DFS ff", "bench/specs/counter_set_no_expect.sig", "dfs-ff", N=5),
    _case("counter Set N=7 DFS ff", "bench/specs/counter_set_no_expect.sig", "dfs-ff", N=7),
    _case("two-level 8x24", "bench/specs/two_level_plain.sig", N=8, B=24, P=1, long=True),
    _case("field: ring all-reduce N=8", "specs/field/ring_allreduce.sig", N=8),
    _case("field: counted epilogue N=8", "specs/field/counted_epilogue.sig", N=8),
    _case("field: SYNCALL 8x4", "specs/field/syncall.sig", N=8, B=4, K=3),
    _case("field: epoch barrier N=4", "specs/field/epoch_barrier.sig", N=4, L=3),
    _case("field: epoch barrier N=5", "specs/field/epoch_barrier.sig", N=5, L=3, long=True),
    _case("field: epoch barrier N=8", "specs/field/epoch_barrier.sig", N=8, L=3, long=True),
    _case("field: DeepEP barrier_block N=8", "specs/field/deepep_barrier.sig", N=8),
    # 32 ranks: the memory of a reduced run (issue 19: at most 2 KB per state)
    _case("field: epoch barrier N=32", "specs/field/epoch_barrier.sig", N=32, L=3, long=True),
    _case("field: DeepEP barrier_block N=32", "specs/field/deepep_barrier.sig", N=32, long=True),
    _case("field: vLLM custom all-reduce 8x2", "specs/field/vllm_allreduce.sig", N=8, B=2),
    _case("field: vLLM custom all-reduce 8x4", "specs/field/vllm_allreduce.sig", N=8, B=4),
    # the symmetries alone (--no-por): the rank rotation and the block permutations (docs/trust.md 3b'')
    _case("field: SYNCALL 2x6 symmetry only", "specs/field/syncall.sig", N=2, B=6, K=2, symmetry_only=True),
    _case("field: vLLM 2x4 symmetry only", "specs/field/vllm_allreduce.sig", N=2, B=4, L=1, symmetry_only=True),
    # the families of the scale issue (19): data and ordering, polling, asymmetric roots, launches
    _case("data two-level 3x2", "specs/data_barrier_two_level.sig", N=3, B=2,
          spin_spec="bench/specs/data_two_level_skeleton.sig"),
    _case("data two-level 4x2", "specs/data_barrier_two_level.sig", N=4, B=2, long=True,
          spin_spec="bench/specs/data_two_level_skeleton.sig"),
    _case("data two-level 8x2", "specs/data_barrier_two_level.sig", N=8, B=2,
          spin_spec="bench/specs/data_two_level_skeleton.sig"),
    _case("data two-level 16x2", "specs/data_barrier_two_level.sig", N=16, B=2,
          spin_spec="bench/specs/data_two_level_skeleton.sig"),
    _case("data two-level 3x2 symmetry only", "specs/data_barrier_two_level.sig", N=3, B=2, symmetry_only=True,
          spin_spec="bench/specs/data_two_level_skeleton.sig"),
    _case("data all-pairs handoff N=8", "specs/data_all_pairs_handoff.sig", N=8,
          spin_spec="bench/specs/data_all_pairs_skeleton.sig"),
    _case("data all-pairs no fence N=8", "specs/bug_all_pairs_handoff_no_fence.sig", N=8,
          spin_spec="bench/specs/data_all_pairs_skeleton.sig"),
    _case("data device barrier 8x2", "specs/data_device_barrier.sig", N=8, B=2,
          spin_spec="bench/specs/data_device_barrier_skeleton.sig"),
    _case("data device barrier no arrival 8x2", "specs/bug_device_barrier_no_arrival.sig", N=8, B=2,
          spin_spec="bench/specs/data_device_barrier_skeleton.sig"),
    _case("data credit pipeline N=6", "specs/data_credit_pipeline.sig", N=6, I=2,
          spin_spec="bench/specs/data_credit_pipeline_skeleton.sig"),
    _case("data credit pipeline N=8", "specs/data_credit_pipeline.sig", N=8, I=2, long=True,
          spin_spec="bench/specs/data_credit_pipeline_skeleton.sig"),
    _case("data credit pipeline N=10", "specs/data_credit_pipeline.sig", N=10, I=2, long=True,
          spin_spec="bench/specs/data_credit_pipeline_skeleton.sig"),
    _case("data credit pipeline N=16", "specs/data_credit_pipeline.sig", N=16, I=2, long=True,
          spin_spec="bench/specs/data_credit_pipeline_skeleton.sig"),
    _case("TTEST ring N=6", "specs/ttest_ring.sig", N=6, K=2),
    _case("TTEST ring N=8", "specs/ttest_ring.sig", N=8, K=2),
    _case("TTEST ring N=10", "specs/ttest_ring.sig", N=10, K=2, long=True),
    _case("TTEST ring tries K=16 N=4", "specs/ttest_ring.sig", N=4, K=16),
    _case("TTEST ring tries K=16 N=6", "specs/ttest_ring.sig", N=6, K=16, long=True),
    _case("TTEST ring tries K=16 N=16", "specs/ttest_ring.sig", N=16, K=16, long=True),
    _case("root EQ handshake N=10", "specs/root_eq_handshake.sig", N=10),
    _case("root EQ handshake N=16", "specs/root_eq_handshake.sig", N=16, long=True),
    _case("root multi-launch N=8 L=3", "specs/root_multi_launch.sig", N=8, L=3),
    _case("root multi-launch N=16 L=3", "specs/root_multi_launch.sig", N=16, L=3, long=True),
    # their buggy variants, found by the default search and depth-first (both tools)
    _case("bug: root EQ last peer N=16", "specs/bug_root_eq_last_peer.sig", N=16),
    _case("bug: root EQ last peer N=16 DFS ff", "specs/bug_root_eq_last_peer.sig", "dfs-ff", N=16,
          strip_expect=True),
    _case("bug: multi-launch reset race N=8 L=3", "specs/bug_root_multi_launch_reset_race.sig", N=8, L=3,
          long=True),
    _case("bug: multi-launch reset race N=16 L=3 DFS ff", "specs/bug_root_multi_launch_reset_race.sig", "dfs-ff",
          N=16, L=3, long=True, strip_expect=True),
    _case("bug: TTEST fallback wrong value N=8", "specs/bug_ttest_fallback_wrong_value.sig", N=8, K=2),
    _case("bug: TTEST fallback wrong value N=8 DFS ff", "specs/bug_ttest_fallback_wrong_value.sig", "dfs-ff",
          N=8, K=2, strip_expect=True),
    _case("bug: credit before read N=16", "specs/bug_credit_before_read.sig", N=16, I=2,
          spin_spec="bench/specs/data_credit_pipeline_skeleton.sig"),
    # first counterexample, both tools depth-first and stopping at the first error
    _case("two-level cross-reuse N=24 DFS ff", "specs/bug_two_level_cross_reuse.sig", "dfs-ff", N=24, B=2, P=2,
          strip_expect=True),
    _case("a2a reset-after-wait N=32 DFS ff", "specs/bug_a2a_reset_after_wait.sig", "dfs-ff", N=32,
          strip_expect=True),
)


@dataclass
class Run:
    verdict: str
    states: int | None
    seconds: float  # wall clock, end to end
    peak_mib: float | None
    note: str = ""
    search_seconds: float | None = None  # pan alone (SPIN), wall
    store_bytes: float | None = None  # sigproof: bytes per state held by its visited-state store and links
    cpu: float | None = None  # CPU seconds (user + sys), end to end (SPIN: export, spin, gcc and pan)
    search_cpu: float | None = None  # pan alone (SPIN), CPU seconds


@dataclass
class Measured:
    proc: subprocess.CompletedProcess
    wall: float
    cpu: float | None  # user + sys of the command and everything it waited for
    peak_mib: float | None
    killed: bool  # the timeout killed it


def measured(cmd: list[str], cwd: Path, timeout: float, env: dict | None = None) -> Measured:
    """One command under `timeout -s KILL` (and /usr/bin/time -v where it exists, for CPU
    seconds and peak RSS: the killed command's are counted too, since `timeout` waits for
    it). The process has the output it had written."""
    # --foreground: the signal goes to the command alone, and timeout lives on to wait for it (so
    # its CPU is counted); without it, KILL hits timeout's whole process group, timeout included
    limit = ["timeout", "--foreground", "-s", "KILL", f"{max(1.0, timeout):.0f}"]
    timed = (["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []) + limit + cmd
    start = time.monotonic()
    p = subprocess.run(timed, cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", p.stderr)
    sys_ = re.search(r"System time \(seconds\): ([\d.]+)", p.stderr)
    cpu = float(user.group(1)) + float(sys_.group(1)) if user and sys_ else None
    killed = p.returncode == 128 + 9 or "status 137" in p.stderr
    return Measured(p, wall, cpu, int(peak.group(1)) / 1024 if peak else None, killed)


def prepared(spec: str, strip_expect: bool, work: Path) -> Path:
    """The spec a tool is given: the file itself, or a copy without its `expect` lines."""
    path = ROOT / spec
    if not strip_expect:
        return path
    work.mkdir(parents=True, exist_ok=True)
    out = work / path.name
    out.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                           if not line.lstrip().startswith("expect ")))
    return out


def run_sigproof(case: Case, timeout: float, memory_mib: int, work: Path, store: str = "exact") -> Run:
    cmd = ["sigproof", "check", str(prepared(case.spec, case.strip_expect, work)), "--format", "json", "-j", "1",
           "--timeout", str(timeout), "--max-memory", str(memory_mib), "--store", store]
    for k, v in case.params:
        cmd += ["-D", f"{k}={v}"]
    if case.search == "dfs-ff":
        cmd += ["--dfs", "--fail-fast"]
    if case.unreduced:
        cmd += ["--no-por", "--no-symmetry"]
    if case.symmetry_only:
        cmd += ["--no-por"]
    m = measured(cmd, ROOT, timeout + 30, INSTALLED)
    p, wall, peak = m.proc, m.wall, m.peak_mib
    if m.killed:
        return Run("timeout", None, wall, peak, f"killed after {timeout + 30:.0f} s", cpu=m.cpu)
    try:
        r = json.loads(p.stdout)["results"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return Run("failed", None, wall, peak, (p.stderr.strip().splitlines() or ["?"])[-1][:80], cpu=m.cpu)
    covered = [v for v in r["violated"] if v in ("deadlock", "assertion", "overflow", "error")]
    others = [v for v in r["violated"] if v not in covered]
    verdict = ",".join(covered + others) or "ok"
    note = ""
    if r["status"] == "inconclusive":
        verdict, note = "inconclusive", "time or memory limit hit (states: explored by then)"
    elif others:
        note = ",".join(others) + " not in the Promela export"
    return Run(verdict, r["stats"]["states"], wall, peak, note, store_bytes=r["stats"].get("store_bytes_per_state"),
               cpu=m.cpu)


def run_spin(case: Case, timeout: float, memory_mib: int, work: Path) -> Run:
    work.mkdir(parents=True, exist_ok=True)
    spec = prepared(case.spin_spec or case.spec, case.strip_expect, work / "spec")
    start = time.monotonic()
    cpu = 0.0
    export = ["sigproof", "export", "--promela", str(spec), "-o", str(work / "model.pml")]
    for k, v in case.params:
        export += ["-D", f"{k}={v}"]
    steps = [export, ["spin", "-o2", "-a", "model.pml"],
             ["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", f"-DMEMLIM={memory_mib}", "-DVECTORSZ=8192", "-o", "pan", "pan.c"]]
    skeleton = "skeleton (no data_race in Promela): " + case.spin_spec if case.spin_spec else ""
    for cmd in steps:
        m = measured(cmd, work, timeout - (time.monotonic() - start))
        cpu += m.cpu or 0.0
        if m.killed:
            return Run("timeout", None, time.monotonic() - start, None, f"{cmd[0]} killed at {timeout:.0f} s in all",
                       cpu=cpu)
        if m.proc.returncode != 0:
            return Run("failed", None, time.monotonic() - start, None, f"{cmd[0]} failed", cpu=cpu)
    pan = ["./pan", "-m1000000", "-w24"] + (["-c0"] if case.search == "bfs" else [])
    m = measured(pan, work, timeout - (time.monotonic() - start))
    p, peak = m.proc, m.peak_mib
    cpu += m.cpu or 0.0
    wall = time.monotonic() - start
    if m.killed:
        seen = re.findall(r"States=\s*([\d.e+]+)", p.stdout)
        reached = f", {float(seen[-1]):,.0f} states stored by then" if seen else ""
        return Run("timeout", None, wall, peak, "; ".join(x for x in (
            skeleton, f"pan killed at {timeout:.0f} s in all{reached}") if x), cpu=cpu, search_cpu=m.cpu)
    out = p.stdout
    verdict = set()
    for line in out.splitlines():
        if re.match(r"pan:\d+: ", line):
            if "invalid end state" in line:
                verdict.add("deadlock")
            for kind in ("assertion", "overflow", "error"):
                if f"assertion violated sigproof_{kind}" in line:
                    verdict.add(kind)
    states = re.search(r"(\d+) states, stored", out)
    e = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", out)
    n = int(states.group(1)) if states else None
    if "reached -DMEMLIM bound" in out or "out of memory" in out:
        return Run("inconclusive", n, wall, peak, "memory limit", None, cpu=cpu, search_cpu=m.cpu)
    if "VECTORSZ too small" in out or ("Search not completed" in out and not verdict):
        return Run("failed", n, wall, peak, "pan aborted: " + (
            "state vector too large" if "VECTORSZ" in out else "search not completed"), None, cpu=cpu)
    note = "; ".join(x for x in (skeleton, "depth limit hit" if "max search depth too small" in out else "") if x)
    order = [k for k in ("deadlock", "assertion", "overflow", "error") if k in verdict]
    return Run(",".join(order) or "ok", n, wall, peak, note, float(e.group(1)) if e else None,
               cpu=cpu, search_cpu=m.cpu)


def baseline_mib() -> float | None:
    """Peak RSS of `sigproof check` on a 7-state spec: the interpreter and the libraries,
    subtracted from each run's peak for its bytes per state (measured, not assumed)."""
    m = measured(["sigproof", "check", "specs/doc_single_signal.sig", "--format", "json"], ROOT, 60, INSTALLED)
    return m.peak_mib


STARTUP = (  # (argv, what): the command line end to end (issue 19 item 6: a small check in <= 0.3 s wall)
    (["sigproof", "--version"], ""),
    (["sigproof", "check", "specs/peer_array_barrier.sig"], "19 states"),
    (["sigproof", "check", "specs/all_to_all_barrier.sig"], "33 states"),
)
STARTUP_RUNS = 5


def startup() -> list[str]:
    """The start-up table: each command of STARTUP run STARTUP_RUNS times, its best CPU (user +
    sys) and best wall seconds, twice: with Python's bytecode cache (as after an ordinary
    install: a private PYTHONPYCACHEPREFIX, filled by one run first) and without it (as this
    machine's shells run Python, PYTHONDONTWRITEBYTECODE=1: every run compiles sigproof's own
    modules, unless a __pycache__ was left beside them). Editors and CI run sigproof on every file, so a small check is mostly start-up:
    the interpreter, the imports, the parser tables."""
    lines = [f"Start-up (best of {STARTUP_RUNS} runs each; \"pyc\": bytecode cached as after an ordinary install, "
             f"\"no pyc\": PYTHONDONTWRITEBYTECODE=1, sigproof's modules compiled on every run):", "",
             "| command | spec | pyc: CPU s | pyc: wall s | no pyc: CPU s | no pyc: wall s |",
             "|---|---|---:|---:|---:|---:|"]
    # the installed libraries keep the bytecode pip compiled; sigproof's own modules have none
    # beside them in a fresh clone, so each uncached run compiles them
    uncached = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for cmd, what in STARTUP:
        measured(cmd, ROOT, 60, INSTALLED)  # fills the cache
        cells = []
        for env in (INSTALLED, uncached):
            runs = [measured(cmd, ROOT, 60, env) for _ in range(STARTUP_RUNS)]
            cpu = min((m.cpu for m in runs if m.cpu is not None), default=None)
            cells += [_f(cpu, ".2f"), f"{min(m.wall for m in runs):.2f}"]
        lines.append(f"| `{' '.join(cmd)}` | {what or '-'} | " + " | ".join(cells) + " |")
    return lines


# Every sigproof run of the table (start-up "pyc" column, baseline, cases) runs as after an
# ordinary install: Python keeps sigproof's bytecode, here in a private folder
# (PYTHONPYCACHEPREFIX) filled by the first run, whatever PYTHONDONTWRITEBYTECODE this
# machine's shells set. Without it every case would also time compiling sigproof's modules
# (about 0.1 s of each row's CPU; see the "no pyc" column).
_PYC = tempfile.TemporaryDirectory(prefix="sigproof-bench-pyc-")
INSTALLED = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
             "PYTHONPYCACHEPREFIX": _PYC.name}


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines()
                   if x.startswith("MemTotal"))
        ram = f"{mem / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        ram = "?"
    spin = "-"
    if shutil.which("spin"):
        spin = subprocess.run(["spin", "-V"], capture_output=True, text=True).stdout.strip()
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0] \
        if shutil.which("gcc") else "-"
    return (f"{os.cpu_count()} cores (nproc), {ram} RAM, {cpu}; Python {platform.python_version()}; "
            f"{spin}; {gcc}")


def _f(x, fmt):
    return "-" if x is None else format(x, fmt)


def row(case: Case, s: Run, p: Run | None, baseline: float | None) -> str:
    both = p is not None and "timeout" not in (s.verdict, p.verdict)
    ratio = _f(s.cpu / p.cpu, ".1f") if both and s.cpu and p.cpu else "-"
    ratio_pan = _f(s.cpu / p.search_cpu, ".0f") if both and s.cpu and p.search_cpu else "-"
    per_state = None
    if s.states and s.peak_mib is not None and baseline is not None:
        per_state = max(0.0, s.peak_mib - baseline) * 2**20 / s.states
    us_s = 1e6 * s.cpu / s.states if s.states and s.cpu else None
    us_p = 1e6 * p.search_cpu / p.states if p and p.states and p.search_cpu else None
    per_state_ratio = _f(us_s / us_p, ".1f") if us_s and us_p and p.states >= 10_000 else "-"
    params = " ".join(f"{k}={v}" for k, v in case.params)
    notes = "; ".join(x for x in (s.note and f"sigproof: {s.note}", p and p.note and f"SPIN: {p.note}") if x)
    cells = [case.name, f"`{case.spec}` {params}", ("BFS (all states)" if case.search == "bfs" else "DFS, first error")
             + (", unreduced" if case.unreduced else "") + (", symmetry only (--no-por)" if case.symmetry_only else ""),
             s.verdict, p.verdict if p else "-", _f(s.states, ","), _f(p and p.states, ","),
             _f(s.cpu, ".2f"), _f(s.seconds, ".2f"), _f(p and p.cpu, ".2f"), _f(p and p.search_cpu, ".2f"),
             ratio, ratio_pan, _f(us_s, ",.1f"), _f(us_p, ",.2f"), per_state_ratio,
             _f(s.peak_mib, ".0f"), _f(p and p.peak_mib, ".0f"), _f(per_state, ".0f"), _f(s.store_bytes, ".0f"), notes]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| case | spec | search | sigproof verdict | SPIN verdict | sigproof states | SPIN states "
          "| sigproof CPU s | sigproof wall s | SPIN CPU s (all) | pan CPU s | CPU ratio | CPU ratio vs pan "
          "| sigproof µs/state | pan µs/state | per-state ratio | sigproof MiB | SPIN MiB | sigproof B/state "
          "| sigproof store B/state | notes |\n"
          "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the cases whose sigproof run takes < 10 s")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool and case (default 120)")
    ap.add_argument("--memory", type=int, default=8192, help="MiB per tool and case (default 8192)")
    ap.add_argument("--only", default=None, help="only the cases whose name contains this")
    ap.add_argument("--store", choices=("exact", "fingerprint"), default="exact",
                    help="sigproof's visited-state store (default exact)")
    ap.add_argument("--startup", action="store_true",
                    help="only the start-up table (printed; RESULTS.md is not written)")
    ap.add_argument("-o", "--output", default=str(ROOT / "bench" / "RESULTS.md"))
    args = ap.parse_args(argv)
    if not shutil.which("sigproof"):
        print("run.py: the sigproof command is not installed (pip install -e .)", file=sys.stderr)
        return 2
    if args.startup:
        print("\n".join(startup()))
        return 0
    have_spin = shutil.which("spin") is not None and shutil.which("gcc") is not None
    cases = [c for c in CASES if not (args.quick and c.long) and (args.only is None or args.only in c.name)]
    skipped = [c for c in CASES if c not in cases]
    rows = []
    started = startup()
    baseline = baseline_mib()
    with tempfile.TemporaryDirectory(prefix="sigproof-bench-") as tmp:
        for k, case in enumerate(cases):
            print(f"[{k + 1}/{len(cases)}] {case.name}: sigproof ...", end="", flush=True, file=sys.stderr)
            s = run_sigproof(case, args.timeout, args.memory, Path(tmp) / f"case{k}" / "sigproof", args.store)
            print(f" {s.verdict} {_f(s.cpu, '.1f')} CPU s; SPIN ...", end="", flush=True, file=sys.stderr)
            p = run_spin(case, args.timeout, args.memory, Path(tmp) / f"case{k}") if have_spin else None
            told = f"{p.verdict} {_f(p.cpu, '.1f')} CPU s" if p else "not installed"
            print(f" {told}", file=sys.stderr)
            rows.append(row(case, s, p, baseline))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# sigproof beside SPIN", "",
             f"Measured {when} with `python bench/run.py{' --quick' if args.quick else ''}"
             f"{f' --only {args.only}' if args.only else ''}{f' --store {args.store}' if args.store != 'exact' else ''}` (timeout {args.timeout:g} s and "
             f"{args.memory} MiB per tool and case).", "",
             f"Machine: {machine()}.", "",
             *started, "",
             "Every sigproof run below runs as installed, with its bytecode cached (the \"pyc\" column above).", "",
             f"Baseline peak RSS (sigproof on a 7-state spec, subtracted for B/state): {_f(baseline, '.0f')} MiB.",
             "", HEADER, *rows, ""]
    if skipped:
        lines += ["Not run this time: " + ", ".join(c.name for c in skipped) +
                  (" (long cases, left out by --quick)." if args.quick else "."), ""]
    if not have_spin:
        lines += ["SPIN is not installed here: only sigproof was run.", ""]
    lines += ["How to read this table: bench/README.md.", ""]
    Path(args.output).write_text("\n".join(lines))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

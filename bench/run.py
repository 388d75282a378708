"""sigproof beside SPIN: every case of the table, both tools end to end, one command.

    python bench/run.py                 # every case (long: see CASES), writes bench/RESULTS.md
    python bench/run.py --quick         # only the cases whose sigproof run takes < 10 s
    python bench/run.py --timeout 60 --memory 8192 --only a2a

sigproof: the installed CLI, `sigproof check SPEC -D ... --format json -j 1` (plus `--dfs
--fail-fast` for the fail-fast rows), timed from start to exit. SPIN: `sigproof export
--promela`, `spin -o2 -a`, `gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=...`, `./pan`, timed
together (the pan search alone is reported too). Each tool runs under /usr/bin/time -v for
its peak resident memory, with a per-tool timeout and memory cap. See bench/README.md.
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
BASELINE_MIB = 70  # the interpreter with lark, z3, numpy and scipy loaded (bench/README.md)


@dataclass(frozen=True)
class Case:
    name: str
    spec: str
    params: tuple[tuple[str, int], ...]
    search: str = "bfs"  # "bfs": both tools explore everything; "dfs-ff": both stop at the first error
    long: bool = False  # sigproof takes 10 s or more: left out by --quick


def _case(name, spec, search="bfs", long=False, **params):
    return Case(name, spec, tuple(params.items()), search, long)


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
    _case("field: vLLM custom all-reduce 8x2", "specs/field/vllm_allreduce.sig", N=8, B=2),
    _case("field: vLLM custom all-reduce 8x4", "specs/field/vllm_allreduce.sig", N=8, B=4),
)


@dataclass
class Run:
    verdict: str
    states: int | None
    seconds: float  # wall clock, end to end
    peak_mib: float | None
    note: str = ""
    search_seconds: float | None = None  # pan alone (SPIN)
    store_bytes: float | None = None  # sigproof: bytes per state held by its visited-state store and links


def measured(cmd: list[str], cwd: Path, timeout: float):
    """(completed process, wall seconds, peak RSS MiB) of one command; killed at the timeout,
    the process has returncode -9 and the output it had written."""
    timed = ["/usr/bin/time", "-v", *cmd] if Path("/usr/bin/time").exists() else cmd
    start = time.monotonic()
    try:
        p = subprocess.run(timed, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return subprocess.CompletedProcess(cmd, -9, out, ""), time.monotonic() - start, None
    wall = time.monotonic() - start
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return p, wall, int(m.group(1)) / 1024 if m else None


def run_sigproof(case: Case, timeout: float, memory_mib: int, store: str = "exact") -> Run:
    cmd = ["sigproof", "check", case.spec, "--format", "json", "-j", "1", "--timeout", str(timeout),
           "--max-memory", str(memory_mib), "--store", store]
    for k, v in case.params:
        cmd += ["-D", f"{k}={v}"]
    if case.search == "dfs-ff":
        cmd += ["--dfs", "--fail-fast"]
    p, wall, peak = measured(cmd, ROOT, timeout + 30)
    if p.returncode == -9:
        return Run("timeout", None, wall, peak, f"killed after {timeout + 30:.0f} s")
    try:
        r = json.loads(p.stdout)["results"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return Run("failed", None, wall, peak, (p.stderr.strip().splitlines() or ["?"])[-1][:80])
    covered = [v for v in r["violated"] if v in ("deadlock", "assertion", "overflow", "error")]
    verdict = ",".join(covered) or "ok"
    note = ""
    if r["status"] == "inconclusive":
        verdict, note = "inconclusive", "time or memory limit hit (states: explored by then)"
    elif len(covered) < len(r["violated"]):
        note = "also " + ",".join(v for v in r["violated"] if v not in covered) + " (not exported)"
    return Run(verdict, r["stats"]["states"], wall, peak, note, store_bytes=r["stats"].get("store_bytes_per_state"))


def run_spin(case: Case, timeout: float, memory_mib: int, work: Path) -> Run:
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    export = ["sigproof", "export", "--promela", str(ROOT / case.spec), "-o", str(work / "model.pml")]
    for k, v in case.params:
        export += ["-D", f"{k}={v}"]
    steps = [export, ["spin", "-o2", "-a", "model.pml"],
             ["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", f"-DMEMLIM={memory_mib}", "-DVECTORSZ=8192", "-o", "pan", "pan.c"]]
    for cmd in steps:
        try:
            p = subprocess.run(cmd, cwd=work, capture_output=True, text=True,
                               timeout=max(1.0, timeout - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            return Run("timeout", None, time.monotonic() - start, None, f"{cmd[0]} killed at {timeout:.0f} s in all")
        if p.returncode != 0:
            return Run("failed", None, time.monotonic() - start, None, f"{cmd[0]} failed")
    pan = ["./pan", "-m1000000", "-w24"] + (["-c0"] if case.search == "bfs" else [])
    left = max(1.0, timeout - (time.monotonic() - start))
    p, _, peak = measured(pan, work, left)
    wall = time.monotonic() - start
    if p.returncode == -9:
        seen = re.findall(r"States=\s*([\d.e+]+)", p.stdout)
        reached = f", {float(seen[-1]):,.0f} states stored by then" if seen else ""
        return Run("timeout", None, wall, peak, f"pan killed at {timeout:.0f} s in all{reached}")
    out = p.stdout
    verdict = set()
    for line in out.splitlines():
        if re.match(r"pan:\d+: ", line):
            if "invalid end state" in line:
                verdict.add("deadlock")
            for kind in ("assertion", "overflow", "error"):
                if f"assertion violated sigproof_{kind}" in line:
                    verdict.add(kind)
    m = re.search(r"(\d+) states, stored", out)
    e = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", out)
    note = ""
    if "reached -DMEMLIM bound" in out or "out of memory" in out:
        return Run("inconclusive", int(m.group(1)) if m else None, wall, peak, "memory limit", None)
    if "VECTORSZ too small" in out or ("Search not completed" in out and not verdict):
        return Run("failed", int(m.group(1)) if m else None, wall, peak, "pan aborted: " + (
            "state vector too large" if "VECTORSZ" in out else "search not completed"), None)
    if "max search depth too small" in out:
        note = "depth limit hit"
    order = [k for k in ("deadlock", "assertion", "overflow", "error") if k in verdict]
    return Run(",".join(order) or "ok", int(m.group(1)) if m else None, wall, peak, note,
               float(e.group(1)) if e else None)


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


def row(case: Case, s: Run, p: Run | None) -> str:
    both = p is not None and "timeout" not in (s.verdict, p.verdict)
    ratio = _f(s.seconds / p.seconds, ".1f") if both and p.seconds else "-"
    ratio_pan = _f(s.seconds / p.search_seconds, ".0f") if both and p.search_seconds else "-"
    per_state = None
    if s.states and s.peak_mib is not None:
        per_state = max(0.0, s.peak_mib - BASELINE_MIB) * 2**20 / s.states
    rate_s = s.states / s.seconds if s.states and s.seconds else None
    rate_p = p.states / p.seconds if p and p.states and p.seconds else None
    params = " ".join(f"{k}={v}" for k, v in case.params)
    notes = "; ".join(x for x in (s.note and f"sigproof: {s.note}", p and p.note and f"SPIN: {p.note}") if x)
    cells = [case.name, f"`{case.spec}` {params}", "BFS (all states)" if case.search == "bfs" else "DFS, first error",
             s.verdict, p.verdict if p else "-", _f(s.states, ","), _f(p and p.states, ","),
             _f(s.seconds, ".2f"), _f(p and p.seconds, ".2f"), _f(p and p.search_seconds, ".2f"), ratio, ratio_pan,
             _f(s.peak_mib, ".0f"), _f(p and p.peak_mib, ".0f"), _f(per_state, ".0f"), _f(s.store_bytes, ".0f"),
             _f(rate_s, ",.0f"), _f(rate_p, ",.0f"), notes]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| case | spec | search | sigproof verdict | SPIN verdict | sigproof states | SPIN states "
          "| sigproof s | SPIN s (all) | pan s | ratio | ratio vs pan | sigproof MiB | SPIN MiB | sigproof B/state "
          "| sigproof store B/state | sigproof states/s | SPIN states/s | notes |\n"
          "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the cases whose sigproof run takes < 10 s")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool and case (default 120)")
    ap.add_argument("--memory", type=int, default=8192, help="MiB per tool and case (default 8192)")
    ap.add_argument("--only", default=None, help="only the cases whose name contains this")
    ap.add_argument("--store", choices=("exact", "fingerprint"), default="exact",
                    help="sigproof's visited-state store (default exact)")
    ap.add_argument("-o", "--output", default=str(ROOT / "bench" / "RESULTS.md"))
    args = ap.parse_args(argv)
    if not shutil.which("sigproof"):
        print("run.py: the sigproof command is not installed (pip install -e .)", file=sys.stderr)
        return 2
    have_spin = shutil.which("spin") is not None and shutil.which("gcc") is not None
    cases = [c for c in CASES if not (args.quick and c.long) and (args.only is None or args.only in c.name)]
    skipped = [c for c in CASES if c not in cases]
    rows = []
    with tempfile.TemporaryDirectory(prefix="sigproof-bench-") as tmp:
        for k, case in enumerate(cases):
            print(f"[{k + 1}/{len(cases)}] {case.name}: sigproof ...", end="", flush=True, file=sys.stderr)
            s = run_sigproof(case, args.timeout, args.memory, args.store)
            print(f" {s.verdict} {s.seconds:.1f} s; SPIN ...", end="", flush=True, file=sys.stderr)
            p = run_spin(case, args.timeout, args.memory, Path(tmp) / f"case{k}") if have_spin else None
            print(f" {p.verdict + f' {p.seconds:.1f} s' if p else 'not installed'}", file=sys.stderr)
            rows.append(row(case, s, p))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# sigproof beside SPIN", "",
             f"Measured {when} with `python bench/run.py{' --quick' if args.quick else ''}"
             f"{f' --only {args.only}' if args.only else ''}{f' --store {args.store}' if args.store != 'exact' else ''}` (timeout {args.timeout:g} s and "
             f"{args.memory} MiB per tool and case).", "",
             f"Machine: {machine()}.", "", HEADER, *rows, ""]
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

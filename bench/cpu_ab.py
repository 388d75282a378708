"""CPU seconds (user + sys of the child) of `sigproof check` on a set of cases, for two
checkouts side by side: before/after figures of a change on a shared machine.

    python bench/cpu_ab.py BEFORE_CHECKOUT AFTER_CHECKOUT [--repeat K] [--only TEXT]

Each checkout is a folder with model/ and checker/ (a `git worktree add` of a commit); it is
run as `python -m checker check ...` with PYTHONPATH set to it, so both use this Python's
installed dependencies. The cases alternate between the two checkouts, K times each; the
table gives the smallest CPU time of each (CPU time, not wall time: the machine is shared)
and the smallest peak resident memory (MiB, of the child alone). States and verdicts must agree; a row where they differ says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = (  # (name, spec, params, extra flags)
    ("a2a N=5", "specs/all_to_all_barrier.sig", {"N": 5}, []),
    ("two-level 4x4", "bench/specs/two_level_plain.sig", {"N": 4, "B": 4, "P": 1}, []),
    ("ring flags N=5", "bench/specs/ring_pipeline_flags.sig", {"N": 5}, []),
    ("epoch L3 N=4", "specs/epoch_counter.sig", {"N": 4, "L": 3}, []),
    ("counter Set N=5", "specs/bug_counter_set_instead_of_add.sig", {"N": 5}, []),
    ("ring all-reduce N=8", "specs/field/ring_allreduce.sig", {"N": 8}, []),
    ("SYNCALL 8x4", "specs/field/syncall.sig", {"N": 8, "B": 4, "K": 3}, []),
    ("vLLM 8x4", "specs/field/vllm_allreduce.sig", {"N": 8, "B": 4}, []),
    ("a2a N=5 unreduced", "specs/all_to_all_barrier.sig", {"N": 5}, ["--no-por", "--no-symmetry"]),
    ("two-level 4x3 unreduced", "bench/specs/two_level_plain.sig", {"N": 4, "B": 3, "P": 1},
     ["--no-por", "--no-symmetry"]),
    ("ring allreduce N=5 unreduced", "specs/field/ring_allreduce.sig", {"N": 5}, ["--no-por", "--no-symmetry"]),
    ("epoch N=4 unreduced", "specs/epoch_counter.sig", {"N": 4, "L": 3}, ["--no-por", "--no-symmetry"]),
    ("data two-level N=3", "specs/data_barrier_two_level.sig", {"N": 3}, []),
    ("packed set line", "specs/packed_set_slots.sig", {}, ["--set-granularity", "line"]),
    ("TTEST ring N=8", "specs/ttest_ring.sig", {"N": 8, "K": 2}, []),
    ("TTEST ring tries K=16 N=4", "specs/ttest_ring.sig", {"N": 4, "K": 16}, []),
    ("root multi-launch N=8", "specs/root_multi_launch.sig", {"N": 8, "L": 3}, []),
    ("root multi-launch N=10", "specs/root_multi_launch.sig", {"N": 10, "L": 3}, []),
    ("root EQ N=10", "specs/root_eq_handshake.sig", {"N": 10}, []),
    ("epoch barrier N=32", "specs/field/epoch_barrier.sig", {"N": 32}, []),
    ("DeepEP barrier_block N=32", "specs/field/deepep_barrier.sig", {"N": 32}, []),
    ("tile ring N=3 (tiles of 1024)", "bench/specs/tile_ring.sig", {"N": 3}, []),
    ("tile ring N=3 W=64 unreduced", "bench/specs/tile_ring.sig", {"N": 3, "W": 64}, ["--no-por", "--no-symmetry"]),
    ("two-level ghost 3x2 unreduced", "specs/two_level_barrier.sig", {"N": 3, "B": 2, "P": 1},
     ["--no-por", "--no-symmetry"]),
    # first counterexample, depth-first: the spec's `expect` lines are left out (STRIP), so
    # that --fail-fast stops at the bug, as bench/run.py's dfs-ff rows do
    ("a2a reset N=24 DFS ff", "specs/bug_a2a_reset_after_wait.sig", {"N": 24}, ["STRIP", "--dfs", "--fail-fast"]),
    ("a2a reset N=32 DFS ff", "specs/bug_a2a_reset_after_wait.sig", {"N": 32}, ["STRIP", "--dfs", "--fail-fast"]),
    ("multi-launch reset race N=16 L=3 DFS ff", "specs/bug_root_multi_launch_reset_race.sig", {"N": 16, "L": 3},
     ["STRIP", "--dfs", "--fail-fast"]),
    ("cross-reuse N=16 DFS ff", "specs/bug_two_level_cross_reuse.sig", {"N": 16, "B": 2, "P": 2},
     ["STRIP", "--dfs", "--fail-fast"]),
)


def run(checkout: str, case) -> tuple[float, int | None, str]:
    """(CPU seconds, peak resident MiB, states, verdict) of one case on one checkout."""
    name, spec, params, extra = case
    if "STRIP" in extra:  # a copy of the spec without its `expect` lines
        text = open(os.path.join(checkout, spec), encoding="utf-8").read()
        spec = os.path.join(tempfile.mkdtemp(), os.path.basename(spec))
        with open(spec, "w", encoding="utf-8") as f:
            f.write("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("expect ")) + "\n")
        extra = [x for x in extra if x != "STRIP"]
    cmd = [sys.executable, "-m", "checker", "check", spec, "-j", "1", "--format", "json", "--no-timing", *extra]
    for k, v in params.items():
        cmd += ["-D", f"{k}={v}"]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, cwd=checkout, env=dict(os.environ, PYTHONPATH=checkout), stdout=out, stderr=err)
        _, _, usage = os.wait4(p.pid, 0)  # this child's own CPU time and peak resident memory
        p.returncode = 0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    cpu = usage.ru_utime + usage.ru_stime
    mib = usage.ru_maxrss / 1024
    try:
        r = json.loads(stdout)["results"][0]
        return cpu, mib, r["stats"]["states"], ",".join(r["violated"]) or "ok"
    except (ValueError, KeyError, IndexError):
        return cpu, mib, None, "error: " + stderr.strip()[-200:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="only the cases whose name contains this text")
    args = ap.parse_args()
    print(f"{'case':32s} {'states':>8} {'before s':>9} {'after s':>8}  ratio {'MiB before':>10} {'after':>6}  verdict")
    for case in CASES:
        if args.only and args.only not in case[0]:
            continue
        a, b = [], []
        for _ in range(args.repeat):
            a.append(run(args.before, case))
            b.append(run(args.after, case))
        ca, cb = min(x[0] for x in a), min(x[0] for x in b)
        ma, mb = min(x[1] for x in a), min(x[1] for x in b)
        same = "" if a[0][2:] == b[0][2:] else f"  DIFFERS: {a[0][2:]} vs {b[0][2:]}"
        print(f"{case[0]:32s} {b[0][2]!s:>8} {ca:9.2f} {cb:8.2f}  {cb / ca:5.2f} {ma:10.0f} {mb:6.0f}  {b[0][3]}{same}",
              flush=True)


if __name__ == "__main__":
    main()

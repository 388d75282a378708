"""Benchmark: the contract's all-to-all barrier for N = 2..6 ranks.

Prints states, transitions, seconds, states/s and peak resident memory per N. Run:
    python bench/bench_barrier.py [--max-n 6] [--spec specs/all_to_all_barrier.sig]
Each N runs in a fresh subprocess so that peak memory is per run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one(spec: str, n: int) -> dict:
    from checker.check import Options, check_program
    from model import compile_spec, parse

    program = compile_spec(parse(Path(spec).read_text(), spec), {"N": n})
    result = check_program(program, spec, Options())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    s = result.stats
    return {"N": n, "verdict": ",".join(result.violated) or "ok", "states": s.states,
            "transitions": s.transitions, "seconds": round(s.seconds, 3),
            "states_per_s": round(s.states / s.seconds) if s.seconds else 0, "peak_mib": round(peak, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-n", type=int, default=6)
    ap.add_argument("--spec", default=str(ROOT / "specs" / "all_to_all_barrier.sig"))
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.spec, args.one)))
        return
    print(f"{'N':>2} {'verdict':>8} {'states':>10} {'transitions':>12} {'seconds':>9} {'states/s':>9} {'peak MiB':>9}")
    for n in range(2, args.max_n + 1):
        out = subprocess.run([sys.executable, __file__, "--spec", args.spec, "--one", str(n)],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        r = json.loads(out.stdout)
        print(f"{r['N']:>2} {r['verdict']:>8} {r['states']:>10} {r['transitions']:>12} {r['seconds']:>9.2f} "
              f"{r['states_per_s']:>9} {r['peak_mib']:>9.1f}", flush=True)


if __name__ == "__main__":
    main()

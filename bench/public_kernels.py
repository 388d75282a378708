"""Issue 20, item 7: `sigproof check` on public PTO kernels as a new user would run it.

    python bench/public_kernels.py TREE [--timeout S]

TREE is an exported checkout of a public repository (for pto-isa: `git archive HEAD | tar -x`
of github.com/hw-native-sys/pto-isa). Every `.cpp` file under it whose text names TNOTIFY,
TWAIT or TTEST and that is not a host `main.cpp` is checked with no config, one run each
(`sigproof check FILE --format json --no-timing -j 1 --timeout S`), and the table gives per
result: the kernel, refused (with the first line of the error) or its verdict, whether it
is vacuous, its states and the CPU seconds of the run. The kernels themselves are not kept
in this repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

_OPS = re.compile(r"\b(TNOTIFY|TWAIT|TTEST)\b")


def kernels(tree: Path) -> list[Path]:
    out = []
    for p in sorted(tree.rglob("*.cpp")):
        if p.name == "main.cpp":
            continue
        try:
            text = re.sub(r"//[^\n]*|/\*.*?\*/", "", p.read_text(encoding="utf-8", errors="replace"), flags=re.S)
        except OSError:
            continue
        if _OPS.search(text):
            out.append(p)
    return out


def check(path: Path, timeout: float) -> tuple[float, list[dict], list[str], str]:
    """(CPU seconds, JSON results, JSON errors, stderr) of one `sigproof check`. The errors
    are the refused kernels of a file (one line each, without a result of their own)."""
    cmd = [sys.executable, "-m", "checker", "check", str(path), "--format", "json", "--no-timing", "-j", "1",
           "--timeout", str(timeout)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent,
                       env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        doc = json.loads(p.stdout)
        return cpu, doc["results"], doc.get("errors", []), p.stderr
    except (ValueError, KeyError):
        return cpu, [], [], p.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    print("| kernel | result | vacuous | states | CPU s |")
    print("|---|---|---|---:|---:|")
    counts = {"refused": 0, "checked": 0, "vacuous": 0}
    for path in kernels(tree):
        cpu, results, errors, err = check(path, args.timeout)
        rel = path.relative_to(tree).as_posix()
        if not results and not errors:
            errors = [(err.strip().splitlines() or ["no output"])[0]]
        for e in errors:  # a kernel of the file refused (the others, if any, are results)
            first = e.strip().splitlines()[0].replace(str(tree) + "/", "")
            print(f"| `{rel}` | refused: {first[:160]} | - | - | {cpu:.2f} |")
            counts["refused"] += 1
        for r in results:
            name = r["spec"].replace(str(tree) + "/", "")
            if r.get("error"):
                first = r["error"].strip().splitlines()[0].replace(str(tree) + "/", "")
                print(f"| `{name}` | refused: {first[:160]} | - | - | {cpu:.2f} |")
                counts["refused"] += 1
                continue
            vacuous = r["status"] == "vacuous"
            verdict = ", ".join(r["violated"]) or r["status"]
            print(f"| `{name}` | {verdict} | {'yes' if vacuous else 'no'} | {r['stats']['states']:,} | {cpu:.2f} |")
            counts["checked"] += 1
            counts["vacuous"] += vacuous
    print(f"\n{counts['checked']} results checked ({counts['vacuous']} vacuous), {counts['refused']} refused.")


if __name__ == "__main__":
    main()

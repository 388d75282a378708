"""python -m frontends.mlir KERNEL.pto [--config sigproof.toml]

Prints the extracted .sig skeleton on stdout and the assumptions on stderr (as does
`sigproof extract`, which can also write a file with -o; `sigproof check KERNEL.pto` checks it).
Exit status: 0 on success, 2 when the input cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO

from frontends.mlir import ExtractError, extract
from frontends.mlir.config import from_file


def run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m frontends.mlir", description="Extract the .sig skeleton of a PTO MLIR kernel.")
    ap.add_argument("files", nargs="+", metavar="FILE.pto")
    ap.add_argument("--config", metavar="sigproof.toml", help="config file (default: sigproof.toml beside the kernel)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        cfg = from_file(Path(args.config)) if args.config else None
        result = extract(args.files, cfg)
    except ExtractError as e:
        stderr.write(f"{e}\n")
        return 2
    stdout.write(result.sig_text)
    for a in result.assumptions:
        stderr.write(f"{a}\n")
    return 0


def main() -> None:
    sys.exit(run(sys.argv[1:], sys.stdout, sys.stderr))


if __name__ == "__main__":
    main()

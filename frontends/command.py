"""The command line every frontend shares: `python -m frontends.cpp|mlir FILE ... [--config]`.
Entry point: `run`. It prints the extracted .sig skeleton on stdout and the assumptions on
stderr (as `sigproof extract` does, which can also write a file with -o). Exit status: 0 on
success, 2 when the input cannot be read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO, Callable


def run(argv: list[str], stdout: IO[str], stderr: IO[str], *, prog: str, what: str, metavar: str,
        extract: Callable, from_file: Callable, error: type) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=f"Extract the .sig skeleton of a {what}.")
    ap.add_argument("files", nargs="+", metavar=metavar)
    ap.add_argument("--config", metavar="sigproof.toml", help="config file (default: sigproof.toml beside the kernel)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        cfg = from_file(Path(args.config)) if args.config else None
        result = extract(args.files, cfg)
    except error as e:
        stderr.write(f"{e}\n")
        return 2
    stdout.write(result.sig_text)
    for a in result.assumptions:
        stderr.write(f"{a}\n")
    return 0

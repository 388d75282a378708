"""python -m frontends.mlir KERNEL.pto [--config sigproof.toml]: the skeleton of a PTO MLIR kernel on
stdout, its assumptions on stderr (frontends/command.py)."""

from __future__ import annotations

import sys
from typing import IO

from frontends import command
from frontends.mlir import ExtractError, extract
from frontends.mlir.config import from_file


def run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    return command.run(argv, stdout, stderr, prog="python -m frontends.mlir", what="PTO MLIR kernel", metavar="FILE.pto",
                       extract=extract, from_file=from_file, error=ExtractError)


def main() -> None:
    sys.exit(run(sys.argv[1:], sys.stdout, sys.stderr))


if __name__ == "__main__":
    main()

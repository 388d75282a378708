"""python -m frontends.cpp KERNEL.cpp [HELPER.cpp ...] [--config sigproof.toml]: the skeleton of a C++
kernel on stdout, its assumptions on stderr (frontends/command.py)."""

from __future__ import annotations

import sys
from typing import IO

from frontends import command
from frontends.cpp import ExtractError, extract
from frontends.cpp.config import from_file


def run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    return command.run(argv, stdout, stderr, prog="python -m frontends.cpp", what="PTO C++ kernel", metavar="FILE.cpp",
                       extract=extract, from_file=from_file, error=ExtractError)


def main() -> None:
    sys.exit(run(sys.argv[1:], sys.stdout, sys.stderr))


if __name__ == "__main__":
    main()

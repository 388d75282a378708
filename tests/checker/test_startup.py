"""What the command line loads: `--version` and `--help` load no engine, and a small check
loads neither the solver, the graph library, the terminal renderer, the C++ / MLIR readers
nor the prover. Each case runs the CLI in a fresh interpreter and reads its sys.modules
(start-up time itself is measured by bench/run.py, never here)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

ENGINE = ("lark", "z3", "networkx", "rich", "tree_sitter", "model.parser", "model.syntax", "model.ir",
          "model.check", "model.system", "checker.check", "checker.explore", "checker.result", "checker.kernels")
ONLY_WHEN_USED = ("z3", "networkx", "rich", "tree_sitter", "pygls", "shtab", "frontends.cpp", "frontends.mlir",
                  "checker.prove", "multiprocessing", "concurrent.futures", "difflib")

PROBE = """
import io, json, sys
from checker.cli import run
code = run(sys.argv[1:], io.StringIO(), io.StringIO())
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded(*argv) -> tuple[int, set[str]]:
    """(exit code, modules loaded) of `sigproof ARGV` in a fresh interpreter on this tree."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, env=env, check=True)
    doc = json.loads(done.stdout.splitlines()[-1])
    return doc["code"], set(doc["modules"])


def under(modules: set[str], names) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("check", "--help"), ("check",)],
                         ids=["version", "help", "check-help", "usage-error"])
def test_version_and_help_load_no_engine(argv):
    code, modules = loaded(*argv)
    assert code in (0, 2)
    assert "checker.cli" in modules  # the probe did run the command line of this tree
    assert under(modules, ENGINE) == []


def test_small_check_loads_only_what_it_uses():
    code, modules = loaded("check", SPECS / "all_to_all_barrier.sig", "--no-timing")
    assert code == 0
    assert {"lark", "model.parser", "checker.explore"} <= modules  # it did check the spec
    assert under(modules, ONLY_WHEN_USED) == []

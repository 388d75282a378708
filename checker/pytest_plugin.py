"""pytest plugin: `pytest specs/` checks every `*.sig` file, one test item per param combination,
and every PTO kernel a spec could be (a `.cpp`, `.cc` or `.cxx` file that declares a
`__global__` or `__aicore__` function, a `.pto` or `.mlir` file), with its `sigproof.toml`.

An item passes when the spec gives its expected verdict and fails with the readable
counterexample otherwise (a vacuous check fails too, with the statements never reached;
with `--sigproof-require-coverage`, so does one that leaves any); an inconclusive run fails unless `--sigproof-allow-inconclusive`
(then it is skipped). Which `.sig` files are collected (`sigproof_collect` ini option):
`auto` (default) those under the paths named on the command line, except inside the ini
`testpaths` folders unless the file itself is named: a project's own `pytest` (or `pytest
tests/`) run does not start checking the specs its tests keep as data; `true` everywhere
pytest looks; `false` never. `--sigproof` collects everywhere, whatever the ini says.
Items run the checker through `checker.cli.run(["check", ..., "--format", "json"])`.
"""

from __future__ import annotations

import io
import itertools
import json

import pytest

_ARGS_SOURCE_ARGS = getattr(getattr(pytest.Config, "ArgsSource", None), "ARGS", None)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sigproof", "sigproof: check .sig signal-protocol specs")
    group.addoption("--sigproof", action="store_true", default=False,
                    help="collect *.sig files wherever pytest looks (also under testpaths)")
    group.addoption("--sigproof-max-states", type=int, default=None, metavar="N",
                    help="stop a check after N states (the item is then inconclusive)")
    group.addoption("--sigproof-timeout", type=float, default=None, metavar="S",
                    help="seconds per check (the item is then inconclusive)")
    group.addoption("--sigproof-sweep", action="append", default=[], metavar="NAME=LO..HI",
                    help="one item per value of a param (repeatable: every combination)")
    group.addoption("--sigproof-define", action="append", default=[], metavar="NAME=VALUE",
                    help="override a param in every spec (repeatable), like sigproof -D")
    group.addoption("--sigproof-jobs", default=None, metavar="N",
                    help="passed to sigproof check --jobs when the installed checker has it")
    group.addoption("--sigproof-require-coverage", action="store_true", default=False,
                    help="fail an item in which some signal or data statement is never reached "
                         "(sigproof check --require-coverage)")
    group.addoption("--sigproof-allow-inconclusive", action="store_true", default=False,
                    help="skip, instead of failing, a check that a limit stopped early")
    parser.addini("sigproof_collect", default="auto",
                  help="which *.sig files to collect: auto (under paths named on the command line), "
                       "true (everywhere), false (never, unless --sigproof)")


def pytest_configure(config: pytest.Config) -> None:
    try:
        _sweeps(config.getoption("sigproof_sweep"))
    except UsageError as e:
        raise pytest.UsageError(str(e)) from None
    if config.getoption("sigproof_jobs") is not None and not _has_jobs():
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            "--sigproof-jobs is ignored: this sigproof check has no --jobs option"), stacklevel=2)


def _collects(file_path, config: pytest.Config) -> bool:
    if config.getoption("sigproof"):
        return True
    mode = str(config.getini("sigproof_collect")).strip().lower()
    if mode in ("true", "1", "yes", "on"):
        return True
    if mode in ("false", "0", "no", "off"):
        return False
    if _ARGS_SOURCE_ARGS is not None and config.args_source != _ARGS_SOURCE_ARGS:
        return False  # pytest found its paths in `testpaths` (or took the current folder)
    here = config.invocation_params.dir
    named = [(here / arg.split("::")[0]).resolve() for arg in config.args]
    if file_path.resolve() in named:
        return True
    inside = [(config.rootpath / p).resolve() for p in config.getini("testpaths")]
    return not any(file_path.resolve().is_relative_to(folder) for folder in inside)


CPP_KERNELS = (".cpp", ".cc", ".cxx")
MLIR_KERNELS = (".pto", ".mlir")


def _is_kernel(file_path) -> bool:
    """A PTO kernel file: MLIR, or C++ that declares a device entry point (a helper source
    without one is not a check of its own)."""
    if file_path.suffix in MLIR_KERNELS:
        return True
    if file_path.suffix not in CPP_KERNELS:
        return False
    try:
        text = file_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "__global__" in text or "__aicore__" in text


def pytest_collect_file(file_path, parent):
    if (file_path.suffix == ".sig" or _is_kernel(file_path)) and _collects(file_path, parent.config):
        return SpecFile.from_parent(parent, path=file_path)
    return None


class UsageError(Exception):
    """A bad --sigproof-* option value (reported once, without a traceback)."""


def _sweeps(items: list[str]) -> list[tuple[str, list[str]]]:
    out = []
    for item in items:
        name, eq, rng = item.partition("=")
        lo, dots, hi = rng.partition("..")
        try:
            values = range(int(lo, 0), int(hi, 0) + 1)
        except ValueError:
            values = None
        if not eq or not dots or not name.strip() or values is None or not values:
            raise UsageError(f"--sigproof-sweep {item}: expected NAME=LO..HI with integers LO <= HI")
        out.append((name.strip(), [str(v) for v in values]))
    return out


class SpecFile(pytest.File):
    """A `.sig` file or a kernel: one item per combination of the swept values (one item
    without a sweep)."""

    def collect(self):
        sweeps = _sweeps(self.config.getoption("sigproof_sweep"))  # checked in pytest_configure
        names = [n for n, _ in sweeps]
        for values in itertools.product(*(v for _, v in sweeps)):
            combo = list(zip(names, values))
            suffix = f"[{' '.join(f'{n}={v}' for n, v in combo)}]" if combo else ""
            yield SpecItem.from_parent(self, name=self.path.stem + suffix, combo=combo)


class CheckFailed(Exception):
    """The spec did not give its expected verdict (or could not be checked)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class SpecItem(pytest.Item):
    def __init__(self, *, combo: list[tuple[str, str]], **kwargs):
        super().__init__(**kwargs)
        self.combo = combo

    def _argv(self) -> list[str]:
        opt = self.config.getoption
        argv = ["check", _shown(self.path, self.config), "--format", "json", "--no-timing"]
        for item in opt("sigproof_define"):
            argv += ["-D", item]
        for name, value in self.combo:  # after the defines: a swept value wins, as in sigproof
            argv += ["-D", f"{name}={value}"]
        if opt("sigproof_max_states") is not None:
            argv += ["--max-states", str(opt("sigproof_max_states"))]
        if opt("sigproof_timeout") is not None:
            argv += ["--timeout", str(opt("sigproof_timeout"))]
        if opt("sigproof_require_coverage"):
            argv += ["--require-coverage"]
        if opt("sigproof_jobs") is not None and _has_jobs():
            argv += ["--jobs", str(opt("sigproof_jobs"))]
        return argv

    def runtest(self) -> None:
        from checker import cli, ci_formats

        out, err = io.StringIO(), io.StringIO()
        code = cli.run(self._argv(), out, err)
        try:
            doc = json.loads(out.getvalue())
        except ValueError:
            doc = {}
        results = doc.get("results", [])
        if code == cli.EXIT_ERROR or not results:
            raise CheckFailed(err.getvalue().rstrip() or f"sigproof check exited with status {code}")
        # a C++ file of several kernels gives one result per kernel (`file.cpp:Kernel`): each counts
        failing = [r for r in results if r["status"] != "pass"]
        if not failing:
            return
        allow = self.config.getoption("sigproof_allow_inconclusive")
        hard = [r for r in failing if not (allow and r["status"] == "inconclusive")]
        if not hard:
            result = failing[0]
            pytest.skip(f"{ci_formats.title(result)}: stopped early: {result.get('stopped', '')}")
        raise CheckFailed("\n".join(ci_formats.report(r) for r in hard))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailed):
            return excinfo.value.text
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"sigproof check {self.name}"


def _shown(path, config: pytest.Config) -> str:
    """The spec's path as reports show it: relative to where pytest was started, when inside."""
    try:
        return path.relative_to(config.invocation_params.dir).as_posix()
    except ValueError:
        return str(path)


_JOBS: list[bool] = []


def _has_jobs() -> bool:
    """Whether the installed `sigproof check` accepts --jobs (asked once, through its --help)."""
    if not _JOBS:
        from contextlib import redirect_stdout

        from checker import cli

        out = io.StringIO()
        with redirect_stdout(out):  # argparse prints --help to sys.stdout
            cli.run(["check", "--help"], out, io.StringIO())
        _JOBS.append("--jobs" in out.getvalue())
    return _JOBS[0]

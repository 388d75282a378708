"""Command line: `sigproof check PATH...` (specs and C++ kernels), `sigproof extract KERNEL.cpp`,
`sigproof graph SPEC` and `sigproof export --promela SPEC`.
Entry: `run`; `main` exits.

Exit status: 0 every spec gave its expected verdict; 1 some spec did not; 2 a spec or usage
error; 3 inconclusive (a limit was hit before the whole state space was explored).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import IO, Mapping

# Only what the argument parser needs: `--version`, `--help` and a usage error load no engine
# (each command imports its own modules below; tests/checker/test_startup.py holds to that).
from checker.store import STORES
from checker.usage import UsageError
from model.semantics import MEMORY_MODELS, SET_GRANULARITIES, TENSOR_WAITS, Semantics
from model.vocabulary import PROPERTIES

EXIT_OK, EXIT_FAIL, EXIT_ERROR, EXIT_INCONCLUSIVE = 0, 1, 2, 3
MAX_SWEEP = 10_000
DEFAULT_MAX_MEMORY_MB = 16 * 1024

EPILOG = """exit status:
  0  every spec gave its expected verdict (its `expect` lines; `ok` when it has none)
  1  some spec did not (a violation, or an expected violation that was not found), or is
     vacuous (no signal operation is ever executed; with --require-coverage: some is not)
  2  spec or usage error (reported as file:line:col: error: message)
  3  inconclusive: a limit (--max-states, --timeout, --max-memory) stopped the run first
When several specs are checked, the first of 2, 1, 3 that applies is returned."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sigproof", description="Model checker for PTO-ISA signal protocols.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check .sig specs and C++ / MLIR kernels (files, or folders searched for "
                                     "*.sig, *.cpp and *.pto)", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("paths", nargs="+", metavar="PATH")
    _common(c)
    c.add_argument("--config", metavar="sigproof.toml",
                   help="extraction config of every C++ kernel (default: the sigproof.toml beside each kernel)")
    c.add_argument("--kernel", metavar="NAME", help="of a C++ or MLIR file of several kernels, check this one alone "
                                                    "(as the config's `kernel` key)")
    c.add_argument("--together", action="store_true",
                   help="check the kernels named as one protocol: on every rank they run at the same time, "
                        "launched together (signals of the same name are the same memory)")
    c.add_argument("--max-states", type=int, default=None, metavar="N", help="stop (inconclusive) after N states")
    c.add_argument("--sweep", action="append", default=[], metavar="NAME=LO..HI",
                   help="check every value of a param in the range (repeatable: all combinations)")
    c.add_argument("--format", choices=("text", "json", "sarif", "junit", "github", "itf"), default="text")
    c.add_argument("--timeout", type=float, default=None, metavar="S", help="seconds per check (inconclusive)")
    c.add_argument("--max-memory", type=int, default=DEFAULT_MAX_MEMORY_MB, metavar="MB",
                   help=f"stop (inconclusive) when the process uses more (default {DEFAULT_MAX_MEMORY_MB})")
    c.add_argument("--dfs", action="store_true", help="depth-first search (traces may not be shortest)")
    c.add_argument("--fail-fast", action="store_true",
                   help="stop a check at its first unexpected violation (the result is then 'fail')")
    c.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="check specs and param values in N worker processes (default: the number of cores)")
    c.add_argument("--check", action="append", default=[], choices=("clean_exit",),
                   help="add an optional property to every spec")
    _semantic_flags(c)
    c.add_argument("--no-por", action="store_true",
                   help="explore every interleaving (no partial-order reduction; same verdicts, more states)")
    c.add_argument("--no-symmetry", action="store_true",
                   help="store every state (no rank-rotation symmetry reduction; same verdicts, more states)")
    c.add_argument("--require-coverage", action="store_true",
                   help="fail a check (exit 1) in which some signal or data statement is never executed")
    c.add_argument("--explain-symmetry", action="store_true",
                   help="say, per spec, which symmetry the search uses or why the spec has none, then check")
    c.add_argument("--store", choices=STORES, default="exact",
                   help="visited states: exact (default; packed states, a proof) or fingerprint (64-bit hashes, "
                        "less memory; the verdict gives the probability that a hash collision hid a state)")
    c.add_argument("--engine", choices=("auto", "python"), default="auto",
                   help="auto (default): an unreduced search without data runs compiled (C, built once with "
                        "the machine's cc); python: every step in Python (the reference; same verdicts, slower)")
    c.add_argument("-q", "--quiet", action="store_true", help="only the verdict and summary lines")
    c.add_argument("--no-timing", action="store_true", help="leave elapsed times out (byte-stable output)")
    c.add_argument("--cache", metavar="DIR", help="reuse the results of unchanged checks stored in DIR, store new ones")
    c.add_argument("--certificate", metavar="FILE", help="write what was proved to FILE (see verify-certificate)")
    c.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report with sequence charts")
    c.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="coloured text output with source excerpts (auto: on a terminal, unless NO_COLOR is set)")
    _prove_parser(sub)
    r = sub.add_parser("replay", help="take the steps of a counterexample again on the model, showing the signals")
    r.add_argument("paths", nargs=1, metavar="SPEC")
    r.add_argument("trace", metavar="TRACE.json", help="the JSON output of a check, one result of it or one violation")
    _common(r)
    r.add_argument("--property", choices=PROPERTIES, help="which violation to replay (default: the first)")
    r.add_argument("--config", metavar="sigproof.toml", help="a kernel's extraction config, as given to the check")
    _semantic_flags(r, "default: as the JSON result records (a bare violation record: the defaults)")
    lp = sub.add_parser("lsp", help="a language server for .sig files (JSON-RPC over stdio)")
    lp.add_argument("--max-states", type=int, default=200_000, metavar="N",
                   help="state limit of the check run on each save (default 200000)")
    lp.add_argument("--timeout", type=float, default=30.0, metavar="S", help="time limit of that check (default 30)")
    v = sub.add_parser("verify-certificate", help="re-run the checks of a certificate and confirm they reproduce")
    v.add_argument("certificate", metavar="FILE")
    sh = sub.add_parser("completion", help="print a shell completion script (bash, zsh or tcsh)")
    sh.add_argument("shell", choices=("bash", "zsh", "tcsh"))
    g = sub.add_parser("graph", help="export the state graph of a small spec (DOT or GraphML)")
    g.add_argument("paths", nargs=1, metavar="SPEC")
    g.add_argument("--kernel", metavar="NAME", help="of a kernel file of several kernels, this one")
    _common(g)
    g.add_argument("--max-states", type=int, default=None, metavar="N",
                   help="refuse (exit 2) when the graph has more states (default 5000)")
    _semantic_flags(g)
    g.add_argument("--format", choices=("dot", "graphml"), default="dot")
    g.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    _export_parser(sub)
    x = sub.add_parser("extract", help="write the .sig skeleton of a PTO C++ or MLIR (.pto) kernel (its assumptions "
                                         "on stderr)")
    x.add_argument("files", nargs="+", metavar="KERNEL.cpp", help="the kernel's file first, then helper sources")
    x.add_argument("--config", metavar="sigproof.toml", help="config file (default: sigproof.toml beside the kernel)")
    x.add_argument("--kernel", metavar="NAME", help="of a file of several kernels, this one (as the config's `kernel` key)")
    x.add_argument("-o", "--output", metavar="OUT.sig", help="write here instead of stdout")
    return p


def _prove_parser(sub) -> None:
    pr = sub.add_parser("prove", help="prove a spec correct for every size (all N >= 2), or find the smallest "
                                      "size that fails", epilog="exit status: 0 proved, 1 a violation at a size "
                        "(with the trace), 2 spec or usage error, 3 not proved (never 0 unless proved)",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pr.add_argument("paths", nargs="*", metavar="PATH",
                    help="a spec; or several specs and folders: those with an `expect ok for all ...;` line")
    pr.add_argument("--all", action="append", default=[], metavar="NAME",
                    help="a param left symbolic (repeatable; one spec only; default: the params of its "
                         "`expect ok for all` line, else the param of `ranks`)")
    pr.add_argument("--from", action="append", default=[], dest="lower", metavar="NAME=VALUE",
                    help="the least value of a symbolic param (default: 2 for the ranks param, else 1)")
    _common(pr)
    pr.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text")
    pr.add_argument("--show-invariant", action="store_true", help="print the inductive invariant")
    pr.add_argument("--timeout", type=float, default=300.0, metavar="S",
                    help="seconds of solver work before giving up (UNPROVED; default 300)")
    pr.add_argument("--no-timing", action="store_true", help="leave elapsed times out (byte-stable output)")
    pr.add_argument("--certificate", metavar="FILE",
                    help="write the invariant and the SMT-LIB 2 text of every query of each proof to FILE")
    pr.add_argument("--verify-certificate", metavar="FILE",
                    help="re-check a certificate (spec digests, queries regenerated, each query unsat with z3 "
                         "and, when installed, cvc5); no PATH; exit 0 verified, 1 not")


def _prove(args, stdout: IO[str], stderr: IO[str]) -> int:
    import json

    from checker import prove

    if args.verify_certificate:
        if args.paths:
            raise UsageError("prove --verify-certificate FILE takes no PATH (the certificate names its specs)")
        return prove.verify_certificate(args.verify_certificate, stdout)
    if not args.paths:
        raise UsageError("prove: name a spec, or specs and folders")
    lower = _defines(args.lower)
    try:
        run = prove.prove_paths(args.paths, args.all, lower, _defines(args.defines), timeout=args.timeout)
    except OSError as e:
        raise UsageError(f"{args.paths[0]}: {e.strerror}") from None
    for rendered in run.errors:
        stderr.write(rendered + "\n")
    timing = not args.no_timing
    if args.format == "json":
        if run.single and run.proofs:  # one spec: its document, as before
            doc = prove.json_doc(run.proofs[0], timing=timing)
        elif run.single:
            return EXIT_ERROR
        else:
            doc = prove.run_doc(run, timing=timing)
        stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.format in ("sarif", "junit"):
        from checker import ci_formats

        doc = prove.run_doc(run, timing=timing)
        stdout.write(ci_formats.prove_sarif(doc) if args.format == "sarif" else ci_formats.prove_junit(doc))
    else:
        prove.write_run(run, stdout, show_invariant=args.show_invariant, timing=timing)
    if args.certificate:
        if not prove.write_certificate(run, args.certificate):
            stderr.write(f"sigproof: no certificate written to {args.certificate}: nothing was proved\n")
    return run.exit_code


def _export_parser(sub) -> None:
    e = sub.add_parser("export", help="export a spec as a model for another checker (Promela for SPIN)")
    e.add_argument("paths", nargs=1, metavar="SPEC")
    e.add_argument("--kernel", metavar="NAME", help="of a kernel file of several kernels, this one")
    _common(e)
    e.add_argument("--promela", action="store_true", required=True, help="write a Promela model (SPIN)")
    _semantic_flags(e)
    e.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


class _Version(argparse.Action):
    """`--version`: `checker.__version__`, which pyproject.toml reads (importlib.metadata would
    add about 30 ms to the start-up)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(message=f"sigproof {_version()}\n")


def _version() -> str:
    from checker import __version__

    return __version__


def _semantic_flags(p: argparse.ArgumentParser, note: str | None = None) -> None:
    """The flags that choose the Semantics (model/semantics.py): what the program means."""
    g = p.add_argument_group("semantics" + (f" ({note})" if note else ""))
    g.add_argument("--tensor-wait", choices=TENSOR_WAITS, default=None,
                   help="multi-element TWAIT/TTEST: element-by-element passes (pass: the hardware, default) or "
                        "one atomic comparison of all elements (faster, less faithful)")
    g.add_argument("--memory-model", choices=MEMORY_MODELS, default=None,
                   help="pto (default): a TNOTIFY orders earlier data writes only after a fence, an async "
                        "transfer only after WAIT_EVENT; sc: program order always orders")
    g.add_argument("--set-granularity", choices=SET_GRANULARITIES, default=None,
                   help="word (default): a Set is one store; line: a Set reads its 64-byte line and writes it "
                        "back, erasing other writes to the line in between (a lost_notification)")


def _semantics(args, recorded: Semantics | None = None) -> Semantics:
    """The semantics the flags choose; a flag not given takes its value from `recorded` (the
    semantics a JSON result was checked under), else the default."""
    base = recorded or Semantics()
    given = {k: getattr(args, k) for k in ("tensor_wait", "memory_model", "set_granularity")
             if getattr(args, k, None) is not None}
    return dataclasses.replace(base, **given)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-D", action="append", default=[], dest="defines", metavar="NAME=VALUE",
                   help="override a param (repeatable)")


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise UsageError(f"{what}: '{text}' is not an integer") from None


def _defines(items: list[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise UsageError(f"-D {item}: expected NAME=VALUE")
        out[name.strip()] = _int(value.strip(), f"-D {item}")
    return out


def _sweeps(items: list[str]) -> list[tuple[str, list[int]]]:
    out = []
    for item in items:
        name, eq, rng = item.partition("=")
        lo, dots, hi = rng.partition("..")
        if not eq or not dots:
            raise UsageError(f"--sweep {item}: expected NAME=LO..HI")
        lo_v, hi_v = _int(lo.strip(), f"--sweep {item}"), _int(hi.strip(), f"--sweep {item}")
        if hi_v < lo_v or hi_v - lo_v >= MAX_SWEEP:
            raise UsageError(f"--sweep {item}: the range must be non-empty and hold at most {MAX_SWEEP} values")
        if any(n == name.strip() for n, _ in out):
            raise UsageError(f"--sweep {item}: {name.strip()} is swept twice")
        out.append((name.strip(), list(range(lo_v, hi_v + 1))))
    return out


class _Progress:
    """States explored and states/s on stderr, for runs longer than two seconds, on a terminal
    (or wherever SIGPROOF_PROGRESS=1 asks for it, e.g. a CI log)."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.on = (hasattr(stream, "isatty") and stream.isatty()) or os.environ.get("SIGPROOF_PROGRESS") == "1"
        self.last = 0.0
        self.shown = False

    def __call__(self, states: int, transitions: int, seconds: float) -> None:
        if not self.on or seconds < 2 or seconds - self.last < 0.5:
            return
        self.last = seconds
        self.shown = True
        self.stream.write(f"\r  {states} states, {transitions} transitions, {states / seconds:,.0f} states/s ")
        self.stream.flush()

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
            self.shown = False


def run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage message
        return EXIT_OK if e.code == 0 else EXIT_ERROR
    try:
        if args.command == "graph":
            return _graph(args, stdout, stderr)
        if args.command == "completion":
            import shtab

            stdout.write(shtab.complete(_parser(), shell=args.shell))
            return EXIT_OK
        if args.command == "lsp":
            from checker import lsp

            if args.max_states < 1:
                raise UsageError("--max-states must be at least 1")
            lsp.serve(args.max_states, args.timeout)
            return EXIT_OK
        if args.command == "replay":
            return _replay(args, stdout, stderr)
        if args.command == "verify-certificate":
            return _verify_certificate(args, stdout, stderr)
        if args.command == "export":
            return _export(args, stdout, stderr)
        if args.command == "extract":
            return _extract(args, stdout, stderr)
        if args.command == "prove":
            return _prove(args, stdout, stderr)
        return _check(args, stdout, stderr)
    except UsageError as e:
        stderr.write(f"sigproof: error: {e}\n")
        return EXIT_ERROR


def _check(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker.check import Options, exit_status, spec_files
    from checker.kernels import check_inputs, is_kernel
    from checker.report import json_doc, text, write_json

    params: dict = dict(_defines(args.defines))
    params.update((name, values) for name, values in _sweeps(args.sweep))
    if args.max_states is not None and args.max_states < 1:
        raise UsageError("--max-states must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    options = Options(order="dfs" if args.dfs else "bfs", max_states=args.max_states, timeout=args.timeout,
                      max_memory=args.max_memory * 2**20 if args.max_memory else None,
                      semantics=_semantics(args), clean_exit="clean_exit" in args.check,
                      fail_fast=args.fail_fast, por=not args.no_por, symmetry=not args.no_symmetry,
                      store=args.store, require_coverage=args.require_coverage,
                      state_digest=args.certificate is not None, engine=args.engine)
    jobs = args.jobs or os.cpu_count() or 1
    cache = None
    if args.cache:
        from checker.cache import Cache

        cache = Cache(args.cache)
    progress = _Progress(stderr)
    if progress.on and _color(args, stderr):
        from checker.terminal import Progress

        progress = Progress(stderr)
    config = None
    if args.config:
        from frontends.core.errors import ExtractError
        from frontends.cpp.config import from_file

        try:
            config = from_file(Path(args.config))
        except ExtractError as e:
            stderr.write(f"{e}\n")
            return EXIT_ERROR
    if args.certificate and args.store != "exact":
        raise UsageError("--certificate needs the exact store: a certificate states a proof, and a run on "
                         "fingerprints (--store fingerprint) is one only up to its collision probability")
    if args.certificate and args.config and any(is_kernel(Path(p)) for p in args.paths):
        raise UsageError("--certificate with --config: verify-certificate extracts each kernel again with "
                         "the sigproof.toml beside it; put the config there instead")
    if args.explain_symmetry:
        from checker.check import explain_symmetry

        specs = [p for p in args.paths if not is_kernel(Path(p))]
        for line in explain_symmetry(specs, params, options) if specs else []:
            stdout.write(line + "\n")
    if args.together and not all(is_kernel(p) for p in spec_files(args.paths, lambda q: q.suffix == ".sig" or is_kernel(q),
                                                                  ".sig, .cpp or .pto")):
        raise UsageError("--together combines C++ or MLIR kernels (.cpp, .pto files); write one .sig spec for a "
                         "protocol of several kernels")
    results = check_inputs(args.paths, params, options, jobs=jobs, progress=progress, cache=cache, config=config,
                           together=args.together, kernel=args.kernel)
    seen = set()
    for r in results:
        if r.error is not None:
            stderr.write(r.error + "\n")
        for w in r.warnings:
            if w not in seen:  # once per spec, not once per swept value
                seen.add(w)
                stderr.write(w + "\n")
    timing = not args.no_timing
    try:
        if args.format == "json":
            write_json(results, stdout, timing=timing)
        elif args.format in ("sarif", "junit", "github"):  # CI views of the JSON document
            from checker import ci_formats

            stdout.write(getattr(ci_formats, args.format)(json_doc(results, timing=timing)))
        elif args.format == "itf":  # the counterexamples as Apalache ITF traces
            from checker.itf import itf

            stdout.write(itf(json_doc(results, timing=timing)))
        elif _color(args, stdout):
            from checker import terminal

            terminal.text(results, stdout, quiet=args.quiet, timing=timing)
        else:
            text(results, stdout, quiet=args.quiet, timing=timing)
    except BrokenPipeError:  # e.g. `sigproof check ... | head`: the exit status still tells
        pass
    _write_files(args, results, options, timing)
    return exit_status(results)


def _color(args, stream) -> bool:
    return use_color(args.color, stream, os.environ)


def use_color(choice: str, stream, environ: Mapping[str, str]) -> bool:
    """`always`, `never`, or (`auto`) when the stream is a terminal and NO_COLOR is unset or empty."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    return bool(getattr(stream, "isatty", lambda: False)()) and not environ.get("NO_COLOR")


def _open_output(path: str, what: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{what} {path}: cannot write: {e.strerror}") from None


def _write_files(args, results, options, timing: bool) -> None:
    if args.certificate:
        from checker import certificate

        with _open_output(args.certificate, "--certificate") as out:
            certificate.write(results, options, out)
    if args.html:
        from checker import html

        with _open_output(args.html, "--html") as out:
            html.write(results, out, timing=timing)


def _replay(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker.replay import ReplayError, load_violation, replay

    path, kernel = _named(args.paths[0])
    try:
        found = load_violation(args.trace, args.property, args.paths[0] if kernel else path.as_posix())
    except ReplayError as e:
        raise UsageError(str(e)) from None
    loaded = _program(path, {**found.params, **_defines(args.defines)}, getattr(args, "config", None), stderr,
                      kernel=found.kernel)
    if loaded is None:
        return EXIT_ERROR
    program, cite = loaded
    interactive = hasattr(sys.stdin, "isatty") and sys.stdin.isatty() and stdout is sys.stdout

    def pause(n: int) -> bool:
        stdout.write("  [Enter: next step, q: stop] ")
        stdout.flush()
        try:
            return input().strip().lower() != "q"
        except EOFError:
            return False

    try:
        mismatch = replay(program, found.violation, stdout, semantics=_semantics(args, found.semantics),
                          cite=cite, pause=pause if interactive else None)
    except ReplayError as e:
        raise UsageError(f"{args.trace}: {e}") from None
    if mismatch is not None:
        stderr.write(f"sigproof: the trace does not replay: step {mismatch.step}: {mismatch.message}\n")
        return EXIT_FAIL
    return EXIT_OK


def _verify_certificate(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker import certificate

    try:
        doc = certificate.load(args.certificate)
        problems = certificate.verify(doc)
    except certificate.CertificateError as e:
        raise UsageError(str(e)) from None
    if problems:
        stdout.write(f"{args.certificate}: does NOT reproduce:\n")
        for p in problems:
            stdout.write(f"  {p}\n")
        return EXIT_FAIL
    stdout.write(f"{args.certificate}: verified: {len(doc['checks'])} check(s) reproduce exactly\n")
    return EXIT_OK


def _program(path: Path, params: dict, config_path: str | None, stderr: IO[str], born: bool = True,
             kernel: str | None = None):
    """(Program, cite) of one spec or kernel with these params, or None after writing its
    errors. A C++ or MLIR kernel is extracted first: the Program is its skeleton's, born at
    the kernel's locations as `check` makes it (`born=False`: at the skeleton's, for graph and
    export); `kernel` picks one of a file's several kernels; `cite` maps the locations of the
    model's rendering to those of a printed trace."""
    from checker.check import read_spec
    from checker.kernels import is_kernel, kernel_tasks, together_members, together_tasks
    from model import SpecErrors, compile_spec, parse

    members = together_members(path.as_posix())
    if members or is_kernel(path):
        config = None
        if config_path:
            from frontends.core.errors import ExtractError
            from frontends.cpp.config import from_file

            try:
                config = from_file(Path(config_path))
            except ExtractError as e:
                stderr.write(f"{e}\n")
                return None
        tasks, origins, _ = (together_tasks(members, params, config, born=born) if members else
                             kernel_tasks(path, params, config, born=born, kernel=kernel))
        first = tasks[0]
        if isinstance(first, tuple):  # born at the kernel's locations: nothing to map
            return first[0], lambda text: text
        stderr.write(first.error + "\n")
        return None
    try:
        return compile_spec(parse(read_spec(path), path.as_posix()), params), lambda text: text
    except SpecErrors as e:
        stderr.write(e.render() + "\n")
        return None


def _named(name: str) -> tuple[Path, str | None]:
    """The spec a subcommand names, as a result names it: a file, `file.cpp:Kernel` (one of a
    file's several kernels: the file and that kernel), or `a.cpp+b.cpp` (kernels checked
    --together: that name, which checker.kernels.together_members reads)."""
    from checker.check import spec_files
    from checker.kernels import split_name, together_members

    if together_members(name):
        return Path(name), None
    file, kernel = split_name(name)
    if kernel is not None and file.is_file():
        return file, kernel
    return spec_files([name])[0], None


def _one_program(args, stderr: IO[str]):
    """The Program of the one spec a subcommand takes (with its -D values), or None after
    writing its errors. A C++ or MLIR kernel is extracted first: the Program is its skeleton's
    (locations are the skeleton's, `KERNEL.cpp.sig:LINE:COL`); kernels checked --together are
    named as their result names them, `a.cpp+b.cpp`."""
    path, kernel = _named(args.paths[0])
    loaded = _program(path, _defines(args.defines), None, stderr, born=False, kernel=args.kernel or kernel)
    return None if loaded is None else loaded[0]


def _graph(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker.graph import GraphTooLarge, state_graph, write_graph

    program = _one_program(args, stderr)
    if program is None:
        return EXIT_ERROR
    try:
        graph = state_graph(program, limit=args.max_states, semantics=_semantics(args))
    except GraphTooLarge as e:
        stderr.write(f"sigproof: error: {e}\n")
        return EXIT_ERROR
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            write_graph(graph, args.format, out)
    else:
        write_graph(graph, args.format, stdout)
    return EXIT_OK


def _export(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker.promela import promela

    from checker.promela import NotExportable

    program = _one_program(args, stderr)
    if program is None:
        return EXIT_ERROR

    try:
        model = promela(program, _semantics(args))
    except NotExportable as e:
        stderr.write(f"{e}\n")
        return EXIT_ERROR
    if not args.output:
        stdout.write(model)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(model)
    except OSError as e:
        raise UsageError(f"cannot write {args.output}: {e.strerror}") from None
    return EXIT_OK


def _extract(args, stdout: IO[str], stderr: IO[str]) -> int:
    from checker.kernels import frontend
    from frontends.core.errors import ExtractError
    from frontends.cpp.config import from_file

    try:
        config = from_file(Path(args.config)) if args.config else None
        extraction = (frontend(Path(args.files[0])).extract(args.files, config, kernel=args.kernel) if args.kernel else
                      frontend(Path(args.files[0])).extract(args.files, config))
    except ExtractError as e:
        stderr.write(f"{e}\n")
        return EXIT_ERROR
    if args.output:
        with _open_output(args.output, "-o") as out:
            out.write(extraction.sig_text)
    else:
        stdout.write(extraction.sig_text)
    for a in extraction.assumptions:
        stderr.write(f"{a}\n")
    return EXIT_OK


def main() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    try:
        code = run(sys.argv[1:], sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        code = EXIT_INCONCLUSIVE
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away; keep the exit status
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)

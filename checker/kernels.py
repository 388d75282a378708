"""Check PTO C++ kernels directly: extract each kernel's .sig skeleton (frontends.cpp), check
it like any spec, and cite the kernel's C++ locations in what comes back. Entry: `check_inputs`.

The skeleton is checked under the name `KERNEL.cpp.sig` (the file `sigproof extract KERNEL.cpp
-o KERNEL.cpp.sig` would write), its Program born at the kernel's locations: before the check,
every span of its IR is replaced by the C++ range the extractor's source map gives for its
skeleton line (`born_at`), so traces, messages, stuck processes, races and unreached
statements cite the kernel from the start and its traces replay as they are printed; only
the rendered warnings and errors of the skeleton's own checks are mapped as text. A skeleton line with no C++ origin (`ranks`, `param NRANKS`, a closing brace)
is cited at the kernel's declaration. The result names the kernel file and carries the
extraction's assumptions. Known limitation: a span is mapped per line, so a column inside a
skeleton line becomes the whole C++ call it comes from.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from checker.check import Options, run_tasks, spec_tasks, spec_files
from checker.result import Assumed, Result
from model import SpecErrors, compile_spec, parse
from model.errors import Span

CPP_SUFFIXES = (".cpp", ".cc", ".cxx")
MLIR_SUFFIXES = (".pto", ".mlir")
KERNEL_SUFFIXES = CPP_SUFFIXES + MLIR_SUFFIXES


def is_kernel(path: Path) -> bool:
    return path.suffix in KERNEL_SUFFIXES


def frontend(path: Path):
    """The extraction module for a kernel file, by its suffix: frontends.cpp or frontends.mlir."""
    if path.suffix in MLIR_SUFFIXES:
        import frontends.mlir as module
    else:
        import frontends.cpp as module
    return module


def inputs(paths: Iterable[str]) -> list[Path]:
    """The files named, and those under each folder named: *.sig specs, C++ and MLIR kernels, sorted."""
    return spec_files(paths, lambda q: q.suffix == ".sig" or is_kernel(q), ".sig, .cpp or .pto")


@dataclass(frozen=True)
class Origins:
    """Where the lines of a skeleton come from in C++: `lines` by skeleton line, else `fallback`."""

    skeleton: str                # the name the skeleton was checked under
    kernel: str                  # the kernel file
    lines: Mapping[int, Span]
    fallback: Span
    runtime: tuple = ()          # (param, Span) of each runtime value of no known value (modelled as 0)

    def span(self, s: Span) -> Span:
        if s.file != self.skeleton:
            return s
        return self.lines.get(s.line, self.fallback)

    def errors(self, e: SpecErrors) -> str:
        """The spec errors of a skeleton, each at the kernel's location (mapped by its span,
        not found in the rendered text) with the kernel's source line and a caret under it."""
        out: list[str] = []
        for err in e.errors:
            if err.span is None:
                file = self.kernel if err.file in (None, self.skeleton) else err.file
                out.append(f"{file}: error: {err.message}" if err.file is not None else f"error: {err.message}")
                continue
            at = self.span(err.span)
            out.append(f"{at}: error: {err.message}")
            source = _line_of(at.file, at.line)
            if source is not None:
                out += ["    " + source, "    " + " " * (at.col - 1) + "^"]
        return "\n".join(out)


def origins_of(extraction, skeleton: str, kernel: str) -> Origins:
    lines = {e.sig_line: Span(e.file, e.line, e.col, e.end_line, e.end_col) for e in extraction.source_map}
    at = extraction.kernel_at or Span(kernel, 1, 1, 1, 1)
    runtime = tuple((p, Span(loc.file, loc.line, loc.col, loc.line, loc.col) if loc is not None else at)
                    for p, loc in extraction.runtime_params)
    return Origins(skeleton, kernel, lines, at, runtime)


def _line_of(path: str, line: int) -> str | None:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    text = lines[line - 1].replace("\t", " ") if 1 <= line <= len(lines) else None
    return text if text is not None and len(text) <= 200 else None


def _source_tasks(source: str, name: str, params: Mapping, origins: Origins | None = None) -> list:
    """As checker.check.spec_tasks, for a spec given as text: a Result (an error) or a
    (Program, name, source) triple per combination of the swept params. With `origins` (a
    kernel's skeleton), each Program is born at the kernel's locations (`born_at`) and each
    error cites the kernel's (`Origins.errors`)."""
    try:
        spec = parse(source, name)
    except SpecErrors as e:
        return [Result(name, {}, error=e.render() if origins is None else origins.errors(e))]
    return _parsed_tasks(spec, name, source, params, origins)


def _parsed_tasks(spec, name: str, source: str, params: Mapping, origins: Origins | None = None) -> list:
    fixed = {k: v for k, v in params.items() if isinstance(v, int)}
    swept = [(k, list(v)) for k, v in params.items() if not isinstance(v, int)]
    out = []
    for values in itertools.product(*(v for _, v in swept)):
        chosen = dict(zip((k for k, _ in swept), values))
        try:
            program = compile_spec(spec, {**fixed, **chosen})
        except SpecErrors as e:
            out.append(Result(name, {**fixed, **chosen}, error=e.render() if origins is None else origins.errors(e)))
            continue
        out.append((program if origins is None else born_at(program, origins), name, source))
    return out


def born_at(program, origins: Origins):
    """The skeleton's Program with every span of its IR (and of its warnings) at the kernel's
    C++ (or MLIR) range, so that whatever a check renders from it (traces, messages, stuck
    processes, races, warnings) cites the kernel from the start. (A statement's text is the
    skeleton's, taken when it was compiled.)"""
    memo: dict = {}

    def walk(x):
        if isinstance(x, Span):
            return origins.span(x)
        if isinstance(x, tuple):
            return tuple(walk(y) for y in x)
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            hit = memo.get(id(x))
            if hit is None:
                changes = {f.name: walk(getattr(x, f.name)) for f in dataclasses.fields(x)}
                hit = memo[id(x)] = (x, dataclasses.replace(x, **changes))
            return hit[1]
        return x

    return walk(program)


def spec_name(path: Path, kernel: str | None) -> str:
    """A kernel result's spec name: the file, or `file.cpp:Kernel` for one of a file's several."""
    return path.as_posix() if kernel is None else f"{path.as_posix()}:{kernel}"


def split_name(name: str) -> tuple[Path, str | None]:
    """A result's spec name as (file, kernel): the inverse of `spec_name` (a name that is a
    file is that file, whatever its characters)."""
    path, _, kernel = name.rpartition(":")
    if path and re.fullmatch(r"[A-Za-z_]\w*", kernel) and is_kernel(Path(path)) and not Path(name).exists():
        return Path(path), kernel
    return Path(name), None


def _configured_together(path: Path, config: dict | None) -> bool:
    """`together = true` in the config given, or else in the sigproof.toml beside the kernel."""
    if config is not None:
        return bool(config.get("together"))
    toml = path.parent / "sigproof.toml"
    if not toml.is_file():
        return False
    import importlib

    from frontends.core.errors import ExtractError

    try:
        return bool(importlib.import_module(frontend(path).__name__ + ".config").from_file(toml).get("together"))
    except ExtractError:
        return False  # the extraction reports the config's error


def together_members(name: str) -> list[tuple[Path, str | None]] | None:
    """The members of a result named `a.cpp+b.cpp` (kernels checked --together), or None
    when the name is not one (a file of that name, or a part that is not a kernel file)."""
    if "+" not in name or Path(name).exists():
        return None
    parts = [split_name(p) for p in name.split("+")]
    if all(is_kernel(path) and path.is_file() for path, _ in parts):
        return parts
    return None


def kernel_names(path: Path, config: dict | None = None) -> list[str | None]:
    """The kernels of a file that `check` checks, one result each: [None] for a file whose one
    kernel is checked under the file's name (one kernel entry, or the config's `kernel`), else
    the names of its kernels with signal operations (frontends.cpp.kernels). An extraction
    error is raised as ExtractError."""
    choose = getattr(frontend(path), "kernels", None)
    if choose is None:
        return [None]
    names = choose([path.as_posix()], config)
    return [None] if len(names) == 1 else names


def kernel_tasks(path: Path, params: Mapping, config: dict | None = None,
                 born: bool = True, kernel: str | None = None) -> tuple[list, Origins | None, tuple]:
    """Extract a kernel: its check tasks (each Program born at the kernel's locations, see
    `born_at`, unless `born` is False: then at its skeleton's), the origins of its skeleton
    lines and its assumptions. An extraction error is one error Result. `kernel` picks one
    of a file's several kernels, whose result is named `file.cpp:Kernel`; without it, such a
    file gives its first kernel with signal operations."""
    from frontends.core.errors import ExtractError

    try:
        if kernel is None:
            names = kernel_names(path, config)
            kernel = names[0]
        extraction = (frontend(path).extract([path.as_posix()], config) if kernel is None else
                      frontend(path).extract([path.as_posix()], config, kernel=kernel))
    except ExtractError as e:
        name = spec_name(path, kernel)
        return [Result(name, {}, error=str(e), assumptions=())], None, ()
    name = spec_name(path, kernel)
    skeleton = name + ".sig"
    assumptions = tuple(Assumed(Span(a.file, a.line, a.col, a.line, a.col), a.text, a.param) for a in extraction.assumptions)
    origins = origins_of(extraction, skeleton, name)
    return _source_tasks(extraction.sig_text, skeleton, params, origins if born else None), origins, assumptions


def together_tasks(members: list[tuple[Path, str | None]], params: Mapping, config: dict | None = None,
                   born: bool = True) -> tuple[list, Origins | None, tuple]:
    """Kernels checked together as one protocol (model/together.py): each member (a file and
    one of its kernels, None for its only one) extracted, the skeletons combined, the result
    named `a.cpp+b.cpp` (`file.cpp:Kernel` for one of a file's several). As `kernel_tasks`."""
    from frontends.core.errors import ExtractError
    from model.together import together

    names = [spec_name(path, kernel) for path, kernel in members]
    name = "+".join(names)
    skeleton = name + ".sig"
    specs, origins, assumptions, chosen = [], [], [], []
    for (path, kernel), member in zip(members, names):
        try:
            extraction = (frontend(path).extract([path.as_posix()], config) if kernel is None else
                          frontend(path).extract([path.as_posix()], config, kernel=kernel))
            specs.append(parse(extraction.sig_text, member + ".sig"))
            chosen.append(set(extraction.chosen_sizes))
        except ExtractError as e:
            return [Result(name, {}, error=str(e), assumptions=())], None, ()
        except SpecErrors as e:
            return [Result(name, {}, error=e.render(), assumptions=())], None, ()
        origins.append(origins_of(extraction, member + ".sig", member))
        assumptions += [Assumed(Span(a.file, a.line, a.col, a.line, a.col), a.text, a.param) for a in extraction.assumptions]
    combined = Origins(skeleton, name, _joined_lines(origins, [s.source for s in specs]), origins[0].fallback)
    try:
        joined = together(specs, skeleton, names, frozenset(set.intersection(*chosen)))
    except SpecErrors as e:
        return [Result(name, {}, error=combined.errors(e), assumptions=())], None, ()
    at = origins[0].fallback
    assumptions += [Assumed(Span(at.file, at.line, at.col, at.line, at.col), note) for note in joined.notes]
    return (_parsed_tasks(joined.spec, skeleton, joined.spec.source, params, combined if born else None),
            combined, tuple(assumptions))


def _joined_lines(origins: list[Origins], sources: list[str]) -> dict[int, Span]:
    """The lines of the combined skeleton (the members' texts one after the other, as
    model.together lays them out): each from where its member's line comes, or from that
    member's kernel when it comes from nowhere in particular."""
    lines: dict[int, Span] = {}
    off = 0
    for o, text in zip(origins, sources):
        n = len(text.splitlines())
        for line in range(1, n + 1):
            lines[off + line] = o.lines.get(line, o.fallback)
        off += n
    return lines


def cited(result: Result, origins: Origins, assumptions: tuple) -> Result:
    """A skeleton's result as the kernel's: its name, its assumptions. Its errors, warnings
    and traces were born at the kernel's locations (`born_at`, `Origins.errors`)."""
    out = dataclasses.replace(result)
    out.spec = origins.kernel
    out.assumptions = assumptions
    return out


def check_inputs(paths: Iterable[str], params: Mapping | None = None, options: Options = Options(), jobs: int = 1,
                 progress=None, cache=None, config: dict | None = None, together: bool = False,
                 kernel: str | None = None) -> list[Result]:
    """Check .sig specs and C++ kernels (and folders holding them), as checker.check.check_paths
    does for specs, with one Result per spec or kernel and param combination, in order.
    `config` replaces each kernel's sigproof.toml (see frontends.cpp.extract). A C++ file with
    several kernels gives one result per kernel with signal operations, named `file.cpp:Kernel`
    (`kernel_names`); `kernel` checks that one of each kernel file (`file.cpp:Kernel`). With
    `together`, every kernel named is checked with the others as one protocol, one result
    (`together_tasks`)."""
    from frontends.core.errors import ExtractError

    params = params or {}
    tasks: list = []
    owners: list = []  # per task: (origins, assumptions) of its kernel, or None for a .sig spec
    members: list = []  # per task: (file, kernel) of a kernel's, else None
    if together:
        members = []
        for path in inputs(paths):
            if not is_kernel(path):
                return [Result(path.as_posix(), {}, error=f"{path.as_posix()}: error: --together combines C++ or MLIR "
                                                          f"kernels; write one .sig spec for a protocol of several "
                                                          f"kernels", assumptions=())]
            try:
                members += [(path, k) for k in ([kernel] if kernel else kernel_names(path, config))]
            except ExtractError as e:
                return [Result(path.as_posix(), {}, error=str(e), assumptions=())]
        ts, origins, assumptions = together_tasks(members, params, config)
        results = run_tasks(ts, options, jobs, progress, cache)
        return [r if origins is None else cited(r, origins, assumptions) for r in results]
    for path in inputs(paths):
        if not is_kernel(path):
            ts = spec_tasks(path, params)
            tasks += ts
            owners += [None] * len(ts)
            members += [None] * len(ts)
            continue
        try:
            names = [kernel] if kernel else kernel_names(path, config)
        except ExtractError as e:
            tasks.append(Result(path.as_posix(), {}, error=str(e), assumptions=()))
            owners.append(None)
            members.append(None)
            continue
        if len(names) > 1 and _configured_together(path, config):  # `together = true`: one protocol
            ts, origins, assumptions = together_tasks([(path, k) for k in names], params, config)
            tasks += ts
            owners += [(origins, assumptions) if origins is not None else None] * len(ts)
            members += [None] * len(ts)
            continue
        for name in names:   # a file of several kernels: one result (or sweep) per kernel
            ts, origins, assumptions = kernel_tasks(path, params, config, kernel=name)
            owner = (origins, assumptions) if origins is not None else None
            tasks += ts
            owners += [owner] * len(ts)
            members += [(path, name)] * len(ts)
    results = run_tasks(tasks, options, jobs, progress, cache)
    out = [r if owner is None else cited(r, *owner) for r, owner in zip(results, owners)]
    for k, (r, owner) in enumerate(zip(out, owners)):
        if owner is not None and r.status == "vacuous" and owner[0].runtime:
            out[k] = _runtime_values(r, owner[0], members[k], params, options, cache, config)
    return out


RUNTIME_VALUES = (1, 2, 4, 16, 256)
"""What a runtime value of no known value (a shape argument: `numel`, `tokens`) is tried at when
the kernel does nothing at 0: the first that executes a signal operation is checked."""
_POSITION = re.compile(r"IDX|INDEX|OFFSET|START|BEGIN")
"""Runtime values named as positions (`get_block_idx()`, `tensor->start_offset`): a guard such
as `block_idx >= block_num` returns whenever they equal the counts, so each value v is also
tried with them at 0 and the rest at v."""


def _runtime_values(vacuous: Result, origins: Origins, member, params: Mapping, options: Options, cache,
                    config: dict | None) -> Result:
    """A kernel that executes no signal operation with its runtime values at 0 (a guard such
    as `if (numel <= 0) return;`) is checked with them at the first of RUNTIME_VALUES at
    which it executes one, and says so in its assumptions; the user's -D and --sweep values
    stay. None works: the vacuous result stands."""
    free = [(p, at) for p, at in origins.runtime if p not in params]
    path, kernel = member
    positions = {p for p, _ in free if _POSITION.search(p)}
    tries = []
    for value in RUNTIME_VALUES if free else ():
        tries.append({p: value for p, _ in free})
        if positions and len(positions) < len(free):
            tries.append({p: 0 if p in positions else value for p, _ in free})
    tried = ", ".join(str(v) for v in RUNTIME_VALUES)
    for values in tries:
        chosen = {**{k: v for k, v in params.items() if isinstance(v, int)}, **vacuous.params, **values}
        ts, origins2, assumptions = kernel_tasks(path, chosen, config, kernel=kernel)
        (r,) = run_tasks(ts[:1], options, 1, None, cache)
        if origins2 is None or r.status in ("vacuous", "error"):
            continue
        notes = tuple(Assumed(at, (f"{p} = {values[p]}: a runtime value, the first of {tried} at which the kernel "
                                   f"executes a signal operation (at {p} = 0 it executes none)" if values[p] else
                                   f"{p} = 0: a runtime position (an index or offset), kept at 0 while the other "
                                   f"runtime values were tried at {tried}") + f"; give -D {p}=... for another value")
                      for p, at in free)
        return cited(r, origins2, assumptions + notes)
    return vacuous

"""The library entry points: check a program, a spec file or paths; the exit status of results.

`check_file(path, params=..., options=...)` expands sweeps (a param given a range or list)
and returns one Result per parameter combination, in order; several specs and values run in
worker processes with `jobs > 1`, giving the same results in the same order.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from checker.coverage import returns_before, statements, unreached
from checker.explore import explore, exploring, run
from checker.race import race as race_searches
from model.independence import Reduction
from model.symmetry import Blocks, Symmetry
from checker.properties import Monitor
from checker.result import PROPERTIES, Result, Stats, Stop
from checker.usage import UsageError
from model import SpecError, SpecErrors, System, compile_spec, parse
from model.errors import Span
from model.ir import Program
from model.semantics import DEFAULT, Semantics

EXIT_OK, EXIT_FAIL, EXIT_ERROR, EXIT_INCONCLUSIVE = 0, 1, 2, 3
MAX_FILE_BYTES = 2**20


@dataclass(frozen=True)
class Options:
    """How to search (order, limits, store, reductions) and, apart, what the program means
    (`semantics`: the only options that can change a verdict)."""

    order: str = "bfs"
    max_states: int | None = None
    timeout: float | None = None  # seconds for the whole check of one spec and param combination
    max_memory: int | None = None  # bytes
    semantics: Semantics = DEFAULT
    clean_exit: bool = False  # --check clean_exit
    fail_fast: bool = False  # stop at the first violation that is not expected
    state_digest: bool = False  # record Stats.state_digest (for certificates; does not affect the verdict)
    por: bool = True  # partial-order reduction (model/independence.py) where the program allows it
    symmetry: bool = True  # rank-rotation symmetry (model/symmetry.py) where the program has it
    store: str = "exact"  # "exact" | "fingerprint": the visited-state store (checker/store.py)
    require_coverage: bool = False  # an unreached signal or data statement fails the check
    engine: str = "auto"  # "auto": the compiled search where it applies (checker/native.py); "python"


def check_program(program: Program, spec: str, options: Options = Options(), progress=None) -> Result:
    """Explore and judge one program; `stats.seconds` and `--timeout` cover both."""
    start = time.monotonic()
    deadline = start + options.timeout if options.timeout is not None else None
    system = System(program, options.semantics)
    symmetry = Symmetry.of(system)[0] if options.symmetry else None
    reduction = Reduction(system, symmetry=symmetry) if options.por else None
    reduce = reduction.ample if reduction is not None and reduction.enabled else None
    cycles = reduction.cycles if reduce is not None else None
    monitor, ex, raced = _search(system, program, options, deadline, progress, reduce, symmetry, cycles, race=True)
    if raced is not None:  # the compiled unreduced search finished first (checker/race.py)
        reduce = symmetry = None
    if reduce is not None and "overflow" in monitor.found:
        # Two AtomicAdds of one sign to an element were taken as commuting, which holds as
        # long as no such add overflows. One did: search again
        # with them dependent, so that the other verdicts cannot hide behind that overflow
        # (docs/trust.md, section 3a).
        reduce = Reduction(system, commute_adds=False, symmetry=symmetry).ample
        monitor, ex, _ = _search(system, program, options, deadline, progress, reduce, symmetry, cycles)
    violations, stop = monitor.finish(ex, deadline)
    if "data_race" in monitor.found and reduce is not None and options.order == "bfs":
        violations = _shortest_race(system, options, deadline, violations)
    operations, missed = _coverage(system, program, options, ex, reduce is not None, symmetry, deadline)
    violations.sort(key=lambda v: PROPERTIES.index(v.property))
    if stop is not None and stop.reason == "timeout":
        stop = Stop("timeout", f"time limit of {options.timeout:g} s reached")
    # a digest of fingerprinted states would need every state rebuilt: certificates need the exact store
    digest = states_digest(ex.states) if options.state_digest and options.store == "exact" else None
    n = len(ex.store)
    stats = Stats(n, ex.transitions, time.monotonic() - start, ex.peak_bytes / 2**20, digest,
                  "partial-order" if reduce is not None else None, symmetry.describe() if symmetry else None,
                  store=options.store, store_bytes=ex.store_bytes(),
                  collision_probability=ex.store.collision_probability() if options.store != "exact" else None,
                  race_reduced_states=raced)
    return Result(spec=spec, params=dict(program.params), violations=violations, expected=program.expects,
                  stats=stats, stop=stop, warnings=tuple(w.render() for w in program.warnings), semantics=options.semantics,
                  operations=operations, unreached=missed, require_coverage=options.require_coverage,
                  returns_before=returns_before(program))


RACE_START = 50_000  # reduced states before the compiled unreduced search joins
RACE_LEAD = 500  # with --fail-fast it goes first, with this many reduced states' worth of work
RACE_WEIGHT = 40  # unreduced states per reduced state: about what each costs (checker/race.py)
RACE_CAP = 10_000_000  # unreduced states at most; past them it is dropped


def _search(system, program: Program, options: Options, deadline, progress, reduce, symmetry, cycles,
            race=False):
    """(monitor, exploration, raced): raced is None, or the states the reduced search had stored
    when the compiled unreduced search, run in turns with it, finished first (checker/race.py)."""
    def monitor():
        return Monitor(system, expected=program.expects, clean_exit=program.clean_exit or options.clean_exit,
                       fail_fast=options.fail_fast)

    judge = monitor()
    common = dict(order=options.order, deadline=deadline, store=options.store, watch=_operations(program),
                  engine=options.engine)
    search = exploring(system, judge, max_states=options.max_states, max_memory=options.max_memory,
                       progress=progress, reduce=reduce, symmetry=symmetry, cycles=cycles, **common)
    if not race or (reduce is None and symmetry is None) or options.max_states is not None \
            or options.engine != "auto" or options.store != "exact":
        return judge, run(search), None
    rival = monitor()

    def unreduced():
        from checker.native import exploring_native, why_not

        if why_not(system, store=options.store, judge=rival) is not None:
            return None
        return exploring_native(system, rival, order=options.order, deadline=deadline, max_states=RACE_CAP,
                                max_memory=None if options.max_memory is None else options.max_memory // 2,
                                watch=common["watch"])

    outcome = race_searches(search, unreduced, start=-RACE_LEAD if options.fail_fast else RACE_START, weight=RACE_WEIGHT)
    if outcome.unreduced:
        return rival, outcome.exploration, outcome.reduced_states
    return judge, outcome.exploration, None


RACE_BUDGET = 20_000  # states of the unreduced search for a shortest race counterexample


class _FirstRace(Monitor):
    """A judge that keeps only the first data race and stops there."""

    def _first(self, finding) -> bool:
        if finding.property != "data_race":
            return False
        self.found.setdefault("data_race", finding)  # a step may race on several elements: its first
        return True

    def expanded(self, index: int, state, nsteps: int) -> bool:
        return False


def _shortest_race(system, options: Options, deadline, violations: list) -> list:
    """The reduced search found a data race: its counterexample follows the reduced graph, so it
    may be longer than needed and name another racing pair than the plain BFS would. Search
    again without the reduction, at most RACE_BUDGET states, stopping at the first race: that
    is the shortest counterexample `--no-por` gives. Past the budget the reduced one stays
    (the verdict is the same either way: a race exists)."""
    judge = _FirstRace(system)
    ex = explore(system, judge, order="bfs", max_states=RACE_BUDGET, deadline=deadline,
                 max_memory=options.max_memory, store=options.store, engine=options.engine)
    if "data_race" not in judge.found:
        return violations
    shortest = judge.counterexample(ex, "data_race")
    return [shortest if v.property == "data_race" else v for v in violations]


class _Blind:
    """A judge that judges nothing: the search that only confirms coverage."""

    dead_ends_only = True
    judges_overwrites = False

    def initial(self, state, events) -> bool:
        return False

    def step(self, src, state, step, dst) -> bool:
        return False

    def expanded(self, index, state, nsteps) -> bool:
        return False


def _operations(program: Program) -> list:
    """The instructions of the program's signal and data statements (what coverage watches)."""
    return [ins for instrs in statements(program).values() for ins in instrs]


def _dead(system, program: Program, spans: set) -> bool:
    """Whether no process can reach the statements at `spans`, whatever the signals hold: the
    static analysis (model/analysis.py) over-approximates every process's runs (a wait or a
    test may give anything), and its environment there is empty in every context."""
    analysis = system.analysis
    for kind, rank, block in analysis.contexts():
        code = program.host if kind == "host" else program.kernel
        envs = analysis.envs(kind, rank, block)[0]
        if any(env is not None and ins.span in spans for ins, env in zip(code.instrs, envs)):
            return False
    return True


def _coverage(system, program: Program, options: Options, ex, reduced: bool, symmetry, deadline):
    """(how many signal and data statements the program has, those never reached), the
    latter None when not known. Partial-order reduction need not take every statement the
    full graph takes, so a statement it leaves unreached is confirmed by a search without it
    (same limits and deadline; a limit hit leaves coverage unknown). Symmetry keeps coverage
    (a step of rank r and its image at rank r + k run the same instruction), so it stays."""
    total = len(statements(program))
    if total == 0:
        return 0, ()
    if not ex.complete:
        return total, None
    missed = unreached(program, [ex])
    if not missed or not reduced:
        return total, missed
    if _dead(system, program, {u.span for u in missed}):
        return total, missed  # no process can reach them whatever the signals hold: no search needed
    full = explore(system, _Blind(), order=options.order, max_states=options.max_states, deadline=deadline,
                   max_memory=options.max_memory, store=options.store, symmetry=symmetry,
                   watch=_operations(program), engine=options.engine)
    if not full.complete:
        return total, None
    return total, unreached(program, [ex, full])


def explain_symmetry(paths: Iterable[str], params: Params | None = None, options: Options = Options()) -> list[str]:
    """Per spec and param combination: the symmetry the search would use, or why it has none
    (each reason with its file:line:col), as lines of text (`--explain-symmetry`)."""
    lines = []
    for path in spec_files(paths):
        for task in spec_tasks(path, params or {}):
            if isinstance(task, Result):
                continue
            program, name, _ = task
            values = "".join(f" {k}={v}" for k, v in program.params)
            head = f"symmetry of {name}{values}:"
            if not options.symmetry:
                lines.append(f"{head} not used (--no-symmetry)")
                continue
            system = System(program, options.semantics)
            sym, _ = Symmetry.of(system)
            rotation, reasons = Symmetry.rotation_of(system)
            blocks, block_reasons = Blocks.of(system, rotation)
            if sym is None:
                lines.append(f"{head} none")
                lines += [f"  {r.render()}" for r in reasons]
                if program.nblocks > 1:
                    lines.append("  no block permutations:")
                    lines += [f"    {r.render()}" for r in block_reasons]
                continue
            why = []
            if sym.rotation is not None:
                why.append(f"rank r and rank r + k (mod {program.nranks}) run the same code on equal terms")
            if sym.group == "blocks":
                why.append("the blocks of each interval run the same code on equal terms")
            lines.append(f"{head} {sym.describe()}: {'; '.join(why)}, so one state per orbit is stored")
            if sym.rotation is None:
                lines.append("  no rank rotation:")
                lines += [f"    {r.render()}" for r in reasons]
            elif blocks is None and program.nblocks > 1:
                lines.append("  no block permutations:")
                lines += [f"    {r.render()}" for r in block_reasons]
    return lines


def states_digest(states: Iterable) -> str:
    """An order-independent digest of a set of states: the sum, modulo 2**128, of the first 16
    bytes of the sha256 of each state's repr (states are tuples of ints, so their repr is the
    same in every process; Python's hash() is not), with the count."""
    import hashlib  # only for certificates (start-up time)

    total = 0
    n = 0
    for state in states:
        total += int.from_bytes(hashlib.sha256(repr(state).encode()).digest()[:16], "big")
        n += 1
    return f"{n}:{total % 2**128:032x}"


def exit_status(results: Iterable[Result]) -> int:
    """2 if some spec had an error, else 1 if some did not give its expected verdict or was
    vacuous, else 3 if some run was inconclusive, else 0."""
    statuses = {r.status for r in results}
    for status, code in (("error", EXIT_ERROR), ("fail", EXIT_FAIL), ("vacuous", EXIT_FAIL),
                         ("inconclusive", EXIT_INCONCLUSIVE)):
        if status in statuses:
            return code
    return EXIT_OK


Params = Mapping[str, "int | Iterable[int]"]


def check_file(path, params: Params | None = None, options: Options = Options(), jobs: int = 1,
               progress=None, cache=None) -> list[Result]:
    """Check one spec file: one Result per combination of the swept params (a param given an
    int is fixed, one given a range or list is swept). Spec errors are Results with `error`.
    `cache` (a checker.cache.Cache) gives results it holds and keeps the new ones."""
    return run_tasks(spec_tasks(Path(path), params or {}), options, jobs, progress, cache)


def check_paths(paths: Iterable[str], params: Params | None = None, options: Options = Options(), jobs: int = 1,
                progress=None, cache=None) -> list[Result]:
    """Check files, and folders searched for *.sig (in sorted order), as `check_file` does."""
    tasks = []
    for path in spec_files(paths):
        tasks += spec_tasks(path, params or {})
    return run_tasks(tasks, options, jobs, progress, cache)


def spec_files(paths: Iterable[str], wanted=lambda q: q.suffix == ".sig", what: str = ".sig") -> list[Path]:
    """The files named, and those under each folder named for which `wanted` holds, sorted."""
    files = []
    paths = list(paths)
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files += sorted(q for q in p.rglob("*") if q.is_file() and wanted(q))
        elif p.exists():
            files.append(p)
        else:
            raise UsageError(f"{raw}: no such file or folder")
    if not files:
        raise UsageError(f"no {what} files under {' '.join(paths)}")
    return files


def read_spec(path: Path) -> str:
    """The text of a spec, or SpecErrors for a file that is not a readable, sane text file."""
    name = path.as_posix()
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SpecErrors([SpecError(f"cannot read: {e.strerror}", file=name)]) from None
    if len(data) > MAX_FILE_BYTES:
        raise SpecErrors([SpecError(f"file is {len(data) / 2**20:.1f} MiB; specs are at most "
                                    f"{MAX_FILE_BYTES / 2**20:g} MiB", file=name)])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise SpecErrors([SpecError("the file is not UTF-8 text", Span(name, line, col, line, col + 1))]) from None


def spec_tasks(path: Path, params: Params) -> list:
    """A Result (for an error) or a (Program, spec name, spec text) triple per param combination."""
    name = path.as_posix()
    try:
        source = read_spec(path)
        spec = parse(source, name)
    except SpecErrors as e:
        return [Result(name, {}, error=e.render())]
    fixed = {k: v for k, v in params.items() if isinstance(v, int)}
    swept = [(k, list(v)) for k, v in params.items() if not isinstance(v, int)]
    names = [k for k, _ in swept]
    out = []
    for values in itertools.product(*(v for _, v in swept)):
        chosen = dict(zip(names, values))
        try:  # one bad param value does not stop the rest of a sweep
            out.append((compile_spec(spec, {**fixed, **chosen}), name, source))
        except SpecErrors as e:
            out.append(Result(name, {**fixed, **chosen}, error=e.render()))
    return out


def _check_task(task) -> Result:
    program, name, options = task
    return check_program(program, name, options)


def run_tasks(tasks: list, options: Options, jobs: int, progress, cache=None) -> list[Result]:
    results = list(tasks)
    todo = []
    for k, t in enumerate(tasks):
        if isinstance(t, Result):
            continue
        hit = cache.load(t[0], t[1], t[2], options) if cache is not None else None
        if hit is not None:
            results[k] = hit
        else:
            todo.append((k, t))
    if jobs > 1 and len(todo) > 1:
        from concurrent.futures import ProcessPoolExecutor  # loaded only for -j (start-up time)
        from multiprocessing import get_context

        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=get_context("spawn")) as pool:
            done = pool.map(_check_task, [(t[0], t[1], options) for _, t in todo])
            for (k, _), result in zip(todo, done):
                results[k] = result
    else:
        for k, t in todo:
            results[k] = check_program(t[0], t[1], options, progress)
            if progress is not None and hasattr(progress, "done"):
                progress.done()
    if cache is not None:
        for k, t in todo:
            cache.store(t[0], t[1], t[2], options, results[k])
    return results



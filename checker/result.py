"""What a check found, as plain data shared by the properties, the reporters and the CLI.

A counterexample is a tuple of TraceSteps (who did what where, and its effects as records);
the final situation of a violation is records too (stuck processes, dirty elements). Text
and JSON are renderings of these records (checker/report.py), never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from model.errors import Span
from model.semantics import DEFAULT as DEFAULT_SEMANTICS, Semantics
from model.vocabulary import COMPARISONS, PROPERTIES

STOP_REASONS = ("max_states", "timeout", "memory", "interrupted", "local_steps", "solver", "fail_fast")


@dataclass(frozen=True)
class ProcessRef:
    kind: str  # "host" | "kernel" | "hosts" (the joint host_barrier step) | "blocks" (a block_barrier step)
    rank: int | None
    block: int | None
    name: str  # "host 1", "rank 1 block 0", "all hosts"


@dataclass(frozen=True)
class ElementRef:
    signal: str
    index: tuple[int, ...]
    rank: int

    @property
    def name(self) -> str:
        return self.signal + "".join(f"[{i}]" for i in self.index) + f"@{self.rank}"


# ---------------------------------------------------------------- effects of a step


@dataclass(frozen=True)
class Write:
    element: ElementRef
    old: int
    new: int
    kind = "write"

    @property
    def text(self) -> str:
        same = " (same value)" if self.old == self.new else ""
        return f"{self.element.name}: {self.old} -> {self.new}{same}"


@dataclass(frozen=True)
class Read:
    element: ElementRef
    value: int
    cmp: str
    operand: int
    holds: bool
    kind = "read"

    @property
    def text(self) -> str:
        verdict = "holds" if self.holds else "fails"
        return f"reads {self.element.name} = {self.value} ({self.cmp} {self.operand} {verdict})"


@dataclass(frozen=True)
class Started:
    rank: int
    blocks: int
    kind = "start"

    @property
    def text(self) -> str:
        return f"starts {self.blocks} kernel block(s) of rank {self.rank}"


@dataclass(frozen=True)
class Joined:
    rank: int
    kind = "join"

    @property
    def text(self) -> str:
        return "all kernel blocks returned"


@dataclass(frozen=True)
class Chose:
    """An `any(lo, hi)` step gave its local this value."""

    name: str
    value: int
    kind = "choose"

    @property
    def text(self) -> str:
        return f"chose {self.name} = {self.value}"


@dataclass(frozen=True)
class BlocksPassed:
    rank: int
    kind = "block_barrier"

    @property
    def text(self) -> str:
        return f"every block of rank {self.rank} passes the block_barrier"


@dataclass(frozen=True)
class BarrierPassed:
    kind = "barrier"

    @property
    def text(self) -> str:
        return "every host passes the barrier"


@dataclass(frozen=True)
class Overwrote:
    """A Set or reset replaced a notification that these readers had not read."""

    element: ElementRef
    old: int
    new: int
    readers: tuple[str, ...]
    clobber: bool = False  # by the stale write-back of a cache line
    kind = "overwrite"

    @property
    def text(self) -> str:
        how = "cache-line clobber; " if self.clobber else ""
        return (f"overwrites the unread value {self.old} of {self.element.name} ({how}not read by "
                f"{', '.join(self.readers)})")


@dataclass(frozen=True)
class LineCached:
    """The first half of a Set at line granularity: the writer reads the line into its cache."""

    first: ElementRef
    last: ElementRef
    kind = "line"

    @property
    def text(self) -> str:
        return f"reads the cache line {self.first.name} .. {self.last.name} into its cache"


@dataclass(frozen=True)
class Returned:
    """The step ended its process (it returned or reached the end of its code)."""

    process: str
    kind = "return"

    @property
    def text(self) -> str:
        return f"{self.process} returns"


@dataclass(frozen=True)
class Faulted:
    property: str  # "assertion" | "error" | "overflow"
    process: str
    message: str
    span: Span
    kind = "fault"

    @property
    def text(self) -> str:
        return f"{self.property} in {self.process}: {self.message} (at {self.span})"


@dataclass(frozen=True)
class DataAccess:
    """A read or write of buffer data (`atomic`: an AtomicAdd put)."""

    element: ElementRef
    access: str  # "read" | "write" | "atomic"
    kind = "data"

    @property
    def text(self) -> str:
        verb = {"read": "reads", "write": "writes", "atomic": "adds to"}[self.access]
        return f"{verb} data {self.element.name}"


@dataclass(frozen=True)
class Raced:
    """This step's access conflicts with an earlier one that nothing orders before it."""

    element: ElementRef
    other: str  # the process of the earlier access
    other_access: str
    kind = "race"

    @property
    def text(self) -> str:
        return f"data race on {self.element.name} with the earlier {self.other_access} by {self.other}"


Effect = (Write | Read | Started | Joined | BarrierPassed | Overwrote | LineCached | Faulted | DataAccess | Raced
          | Returned)


@dataclass(frozen=True)
class TraceStep:
    step: int
    actor: ProcessRef
    span: Span
    statement: str
    effects: tuple[Effect, ...]
    locals: tuple[tuple[str, int], ...] = ()  # (name, value after) of the locals of its process it changed

    @property
    def locals_text(self) -> str:
        """`(round = 1, tries = 3)`: the changed locals as the reports show them ('' when none)."""
        return "(" + ", ".join(f"{k} = {v}" for k, v in self.locals) + ")" if self.locals else ""

    @property
    def process(self) -> str:
        return self.actor.name

    @property
    def location(self) -> str:
        return str(self.span)

    @property
    def shown(self) -> tuple[tuple[str, str], ...]:
        """(kind, text) of each effect as the terminal and CI reports show it (`shown`)."""
        return shown([(e.kind, e.text, e.element if isinstance(e, (DataAccess, Raced)) else None)
                      for e in self.effects])


def shown(items) -> tuple[tuple[str, str], ...]:
    """(kind, text) of each (kind, text, element) of a step, `element` the ElementRef of a data
    access or race (else None): a run of effects of one kind and text to neighbouring
    elements of one buffer row on one rank is one line, `reads data x[0..4095]@1 (4096
    elements)` (JSON keeps every element)."""
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(items):
        kind, text, element = items[k]
        n = 1
        while element is not None and k + n < len(items) and _next_in_row(items[k + n - 1], items[k + n]):
            n += 1
        if n == 1:
            out.append((kind, text))
        else:
            last = items[k + n - 1][2]
            head = element.signal + "".join(f"[{i}]" for i in element.index[:-1])
            run = f"{head}[{element.index[-1]}..{last.index[-1]}]@{element.rank} ({n} elements)"
            out.append((kind, text.replace(element.name, run, 1)))
        k += n
    return tuple(out)


def _next_in_row(a, b) -> bool:
    """b is the same kind of effect as a, on the element after a's in its row."""
    (ka, ta, x), (kb, tb, y) = a, b
    if y is None or ka != kb or ta.replace(x.name, "") != tb.replace(y.name, ""):
        return False
    return (x.signal == y.signal and x.rank == y.rank and len(x.index) == len(y.index) > 0
            and x.index[:-1] == y.index[:-1] and y.index[-1] == x.index[-1] + 1)


# ---------------------------------------------------------------- final situations


@dataclass(frozen=True)
class StuckProcess:
    actor: ProcessRef
    span: Span
    statement: str
    waits: str  # "wait" | "test" | "join" | "barrier" | "spin" | "fault" | "other"
    cmp: str | None = None
    operand: int | None = None
    elements: tuple[tuple[ElementRef, int], ...] = ()
    missing: tuple[str, ...] = ()  # the processes a host_barrier or block_barrier waits for
    message: str | None = None
    kind = "stuck"

    @property
    def text(self) -> str:
        where = f"{self.actor.name} at {self.span}"
        if self.waits == "spin":
            return f"{where}: spins forever in a local loop with no signal operation"
        if self.waits == "fault":
            return f"{where}: {self.statement}: {self.message}"
        if self.waits in ("wait", "test"):
            shown = ", ".join(f"{e.name} = {v}" for e, v in self.elements[:16])
            more = f", ... ({len(self.elements)} elements)" if len(self.elements) > 16 else ""
            verb = "waits" if self.waits == "wait" else "polls"
            return f"{where}: {self.statement} {verb} for {CMP_TEXT[self.cmp]} {self.operand}; now {shown}{more}"
        if self.waits == "join":
            return f"{where}: {self.statement} waits for rank {self.actor.rank}'s kernel blocks to return"
        if self.waits == "barrier":
            return f"{where}: {self.statement} waits for {', '.join(self.missing)}"
        return f"{where}: {self.statement}"


@dataclass(frozen=True)
class DirtyElement:
    element: ElementRef
    value: int
    initial: int
    kind = "dirty"

    @property
    def text(self) -> str:
        return f"{self.element.name} = {self.value} (initially {self.initial})"


CMP_TEXT = {c.name: c.symbol for c in COMPARISONS}
Situation = StuckProcess | DirtyElement


@dataclass(frozen=True)
class AccessRef:
    """One side of a data race: who touched which data element where."""

    process: str
    span: Span
    statement: str
    access: str  # "read" | "write" | "atomic"
    element: ElementRef


@dataclass(frozen=True)
class RaceFacts:
    first: AccessRef
    second: AccessRef
    sync: TraceStep | None  # the synchronization that was meant to order them
    missing: str
    fix: str


@dataclass(frozen=True)
class Violation:
    property: str
    message: str
    trace: tuple[TraceStep, ...]
    situation: tuple[Situation, ...] = ()  # the final situation (stuck processes, dirty signals)
    span: Span | None = None  # the statement that blocks, erases or fails
    race: RaceFacts | None = None  # data_race: both accesses, the meant synchronization, the diagnosis


@dataclass(frozen=True)
class Assumed:
    """What the extraction of a C++ kernel assumed where the code did not say, at its C++ location."""

    span: Span
    message: str
    param: str | None = None   # the param of the extraction this assumption introduces
    kind = "assumption"

    @property
    def text(self) -> str:
        return f"{self.span}: assumed: {self.message}"


@dataclass(frozen=True)
class Unreached:
    """A signal or data statement that a complete exploration never reached (checker/coverage.py)."""

    span: Span
    statement: str
    kind = "unreached"

    @property
    def text(self) -> str:
        return f"{self.span} {self.statement}"


LABEL = {"pass": "PASS", "fail": "FAIL", "vacuous": "FAIL", "inconclusive": "INCONCLUSIVE"}
VACUOUS = "vacuous: no signal operation is ever executed"


def operations(n: int) -> str:
    """`1 signal operation`, `3 signal operations`: how reports count statements."""
    return f"{n} signal operation{'' if n == 1 else 's'}"


def fingerprint_caveat(store: str, collision_probability: float | None) -> str:
    """What a verdict found on 64-bit fingerprints rests on ('' for the exact store)."""
    if store != "fingerprint" or collision_probability is None:
        return ""
    return (f"64-bit fingerprint store: a hash collision may have hidden a state, "
            f"probability <= {collision_probability:.2g}")


def verdict_phrase(status: str, violated, expected, caveat: str = "", reason: str = "") -> str:
    """The verdict as every report says it (text, HTML, SARIF, JUnit, GitHub): `deadlock`,
    `deadlock (expected ok)`, `ok so far (expected ok)` for an inconclusive run, `vacuous: no
    signal operation is ever executed (REASON)`, `ok, but REASON` for a run that found what it
    expected and fails on coverage (`Result.reason`), then the fingerprint caveat in
    parentheses where it applies."""
    got = ", ".join(violated) or "ok"
    want = ", ".join(expected) or "ok"
    if status == "vacuous":
        phrase = f"{VACUOUS} ({reason})" if reason else VACUOUS
    elif status == "fail" and reason:
        phrase = f"{got}, but {reason}"
    else:
        phrase = {"pass": got, "fail": f"{got} (expected {want})",
                  "inconclusive": f"{got} so far (expected {want})"}[status]
    return f"{phrase} ({caveat})" if caveat else phrase


@dataclass(frozen=True)
class Stop:
    """Why a run stopped before its verdict was settled over the whole state space."""

    reason: str  # one of STOP_REASONS
    detail: str


@dataclass(frozen=True)
class Stats:
    states: int
    transitions: int
    seconds: float
    peak_mib: float = 0.0
    state_digest: str | None = None  # order-independent digest of the explored states (Options.state_digest)
    reduction: str | None = None  # "partial-order" when the search was reduced, else None
    symmetry: str | None = None  # the symmetry whose orbits were stored ("rotation of the 5 ranks"), else None
    store: str = "exact"  # the visited-state store: "exact", or "fingerprint" (64-bit, checker/store.py)
    store_bytes: int = 0  # bytes held for the stored states (packed states or fingerprints, links)
    collision_probability: float | None = None  # fingerprint store: bound on P(a collision hid a state)
    race_reduced_states: int | None = None  # the compiled unreduced search finished first (checker/race.py); the
    # reduced search's stored states by then


    @property
    def bytes_per_state(self) -> float:
        return self.store_bytes / self.states if self.states else 0.0

    def reductions(self) -> str:
        """The reductions the search used, as the summary line says them."""
        used = (["partial-order reduced"] if self.reduction else []) + \
            ([f"symmetry: {self.symmetry}"] if self.symmetry else []) + \
            ([f"unreduced: finished before the reduced search, at {self.race_reduced_states} of its states"]
             if self.race_reduced_states is not None else [])
        return f" ({', '.join(used)})" if used else ""


@dataclass
class Result:
    spec: str
    params: dict[str, int]
    violations: list[Violation] = field(default_factory=list)
    expected: tuple[str, ...] = ()
    stats: Stats = field(default_factory=lambda: Stats(0, 0, 0.0))
    stop: Stop | None = None  # the verdict is then inconclusive (or fail, for fail_fast)
    error: str | None = None  # a spec or usage error (rendered): nothing was checked
    warnings: tuple[str, ...] = ()  # rendered spec warnings (the CLI writes them to standard error)
    cached: bool = False  # loaded from a result cache (checker/cache.py), not explored in this run
    assumptions: tuple[Assumed, ...] | None = None  # a C++ kernel's extraction (None: a .sig spec)
    semantics: Semantics = DEFAULT_SEMANTICS  # what the program was taken to mean (replay needs the same)
    # coverage (checker/coverage.py): how many signal and data statements the program has, and those
    # never reached; None when not known (the run, or the search that confirms them, stopped early)
    operations: int | None = None
    unreached: tuple[Unreached, ...] | None = None
    require_coverage: bool = False  # --require-coverage: an unreached statement fails the check
    returns_before: tuple[Span, ...] = ()  # explicit returns before the first signal operation (coverage.returns_before)

    @property
    def violated(self) -> list[str]:
        return [p for p in PROPERTIES if any(v.property == p for v in self.violations)]

    @property
    def caveat(self) -> str:
        return fingerprint_caveat(self.stats.store, self.stats.collision_probability)

    @property
    def verdict(self) -> str:
        """The verdict phrase (`verdict_phrase`) of this result."""
        return verdict_phrase(self.status, self.violated, self.expected, self.caveat, self.reason)

    @property
    def vacuous(self) -> bool:
        """No signal or data statement is ever executed (or the program has none)."""
        return self.unreached is not None and self.operations is not None and len(self.unreached) == self.operations

    @property
    def reason(self) -> str:
        """Why a check that found its expected verdict fails all the same: what makes it
        vacuous, or (with --require-coverage) its unreached statements; '' otherwise."""
        status = self.status
        if status == "vacuous":
            if not self.unreached:
                why = f"the {'skeleton' if self.assumptions is not None else 'spec'} has no signal operation"
            elif len(self.unreached) == 1:
                why = f"{self.unreached[0].statement} at {self.unreached[0].span} is never reached"
            else:
                first = self.unreached[0]
                why = f"{operations(len(self.unreached))}, none reached; the first is {first.statement} at {first.span}"
            return "; ".join([why, *self._causes()])
        if status == "fail" and self._as_expected:
            return f"{operations(len(self.unreached))} never executed (--require-coverage)"
        return ""

    def _causes(self) -> list[str]:
        """What may make a check vacuous, as far as the result knows: a `return` before the
        first signal operation, and params of a kernel's extraction that are 0 (a runtime
        size or count the code guards on, modelled as a param that defaults to 0)."""
        out = []
        if self.returns_before:
            out.append(f"the code returns at {', '.join(map(str, self.returns_before))} before its first signal operation")
        for a in self.assumptions or ():
            if a.param is not None and self.params.get(a.param) == 0:
                out.append(f"{a.param} = 0 (a param of the extraction at {a.span}, set with -D {a.param}=...)")
        return out

    @property
    def _as_expected(self) -> bool:
        return set(self.violated) == set(self.expected) and self.stop is None

    @property
    def status(self) -> str:
        """pass: exactly the expected properties are violated, over the whole state space;
        fail: they differ (with fail_fast: an unexpected violation was found), or they do not
        and some statement is never executed with `require_coverage`; vacuous: they do not
        differ (whatever the `expect` lines say) but no signal or data statement is ever
        executed; inconclusive: a limit stopped the run first (whatever was found so far,
        which is still reported), unless the program has no signal operation at all (vacuous);
        error: the spec could not be checked. Both fail and vacuous fail the check."""
        if self.error is not None:
            return "error"
        if self.stop is not None and self.stop.reason != "fail_fast":
            return "vacuous" if self.vacuous else "inconclusive"
        if not self._as_expected:
            return "fail"
        if self.vacuous:
            return "vacuous"
        return "fail" if self.require_coverage and self.unreached else "pass"

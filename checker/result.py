"""What a check found: plain data shared by the properties, the reporters and the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field

PROPERTIES = ("deadlock", "lost_notification", "assertion", "overflow", "error", "dirty_exit")


@dataclass(frozen=True)
class TraceStep:
    step: int
    process: str
    location: str
    statement: str
    effects: tuple[str, ...]


@dataclass(frozen=True)
class Violation:
    property: str
    message: str
    trace: tuple[TraceStep, ...]
    situation: tuple[str, ...] = ()  # the final situation (stuck processes, dirty signals, ...)


@dataclass(frozen=True)
class Stats:
    states: int
    transitions: int
    seconds: float
    peak_mib: float = 0.0


@dataclass
class Result:
    spec: str
    params: dict[str, int]
    violations: list[Violation]
    expected: tuple[str, ...]
    stats: Stats
    stop: str | None = None  # why the run stopped early: the verdict is then inconclusive
    notes: list[str] = field(default_factory=list)

    @property
    def violated(self) -> list[str]:
        return [p for p in PROPERTIES if any(v.property == p for v in self.violations)]

    @property
    def status(self) -> str:
        """pass: exactly the expected properties are violated, over the whole state space;
        fail: they differ; inconclusive: a limit stopped the run first (whatever was found
        so far, which is still reported)."""
        if self.stop is not None:
            return "inconclusive"
        return "pass" if set(self.violated) == set(self.expected) else "fail"

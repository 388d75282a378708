"""What every reader (C++, MLIR) hands back: the skeleton text, its source map, the
assumptions made and how far each call site was resolved."""

from __future__ import annotations

from dataclasses import dataclass

from frontends.core.errors import Loc


@dataclass(frozen=True)
class Assumption:
    file: str
    line: int
    col: int
    text: str
    param: str | None = None   # the param this assumption introduces (its value is the assumption)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: assumed: {self.text}"


@dataclass(frozen=True)
class SourceMapEntry:
    """Line `sig_line` (1-based) of the skeleton comes from this C++ range."""

    sig_line: int
    file: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class CallSite:
    """One TNOTIFY / TWAIT / TTEST call site and how far each operand was resolved."""

    kind: str
    file: str
    line: int
    col: int
    signal: str       # full | partial | none
    index: str
    peer: str
    value: str
    opcmp: str

    def levels(self) -> tuple[str, ...]:
        return (self.signal, self.index, self.peer, self.value, self.opcmp)

    @property
    def resolution(self) -> str:
        """The whole site: the weakest of its operands."""
        order = ("none", "partial", "full")
        return min(self.levels(), key=order.index)


@dataclass(frozen=True)
class DataSite:
    """One TPUT / TGET call site and how far its operands were resolved (full | partial | none)."""

    kind: str
    file: str
    line: int
    col: int
    dst: str
    src: str
    peer: str


@dataclass(frozen=True)
class Extraction:
    sig_text: str
    source_map: tuple[SourceMapEntry, ...]
    assumptions: tuple[Assumption, ...]
    call_sites: tuple[CallSite, ...]
    kernel: str
    kernel_at: Loc | None = None  # the kernel function's name in its declaration
    data_sites: tuple[DataSite, ...] = ()   # TPUT / TGET (not counted in call_sites)
    # params that stand for runtime values (kernel arguments, fields, data) of no known
    # value, each with where it comes from: modelled as 0 unless the config gives one
    runtime_params: tuple[tuple[str, Loc | None], ...] = ()
    # the signals and buffers whose size the extraction chose (to cover the indices used, or
    # a default param), not the config: kernels checked together may widen them (model/together.py)
    chosen_sizes: tuple[str, ...] = ()

    def origin(self, sig_line: int) -> SourceMapEntry | None:
        return next((e for e in self.source_map if e.sig_line == sig_line), None)

"""What both readers' interpreters keep while they build a skeleton: the statements under
construction, fresh .sig names, the params with the assumptions that name them, and the
assumptions. Entry point: `Builder` (frontends.cpp.interp.Interp and
frontends.mlir.interp.Interp extend it)."""

from __future__ import annotations

import re

from frontends.core.errors import Loc
from frontends.core.extraction import Assumption
from model.vocabulary import BUILTIN_NAMES, KEYWORDS

SIG_KEYWORDS = KEYWORDS | BUILTIN_NAMES  # what a .sig name may not be (model/vocabulary.py)


class Builder:
    """The bookkeeping of one extraction: `out` is the stack of statement lists being filled
    (the innermost last), `params` maps a param's name to (value, comment, Loc), `param_notes`
    the assumptions about each param (dropped with it when it ends up unused),
    `runtime_params` the params that stand for runtime values of no known value."""

    reserved_upper: tuple[str, ...] = ()   # names a fresh name may not be in any letter case

    def __init__(self) -> None:
        self.out: list[list] = [[]]
        self.params: dict[str, tuple[int, str, Loc | None]] = {}
        self.param_notes: dict[str, list] = {}
        self.runtime_params: dict[str, Loc | None] = {}
        self.assumptions: list[tuple[Loc, str]] = []
        self.used_names: set[str] = set()

    def emit(self, stmt) -> None:
        self.out[-1].append(stmt)

    def assume(self, loc: Loc, text: str, param: str | None = None) -> None:
        """Record an assumption; one about a param is dropped if the param ends up unused."""
        if (loc, text) not in self.assumptions:
            self.assumptions.append((loc, text))
            if param is not None:
                self.param_notes.setdefault(param, []).append((loc, text))

    def assumed(self) -> tuple[Assumption, ...]:
        """The assumptions made, in source order, each with the param it introduces if any."""
        param_of = {note: p for p, notes in self.param_notes.items() for note in notes}
        return tuple(sorted((Assumption(loc.file, loc.line, loc.col, t, param_of.get((loc, t))) for loc, t in self.assumptions),
                            key=lambda a: (a.file, a.line, a.col, a.text)))

    def fresh(self, base: str) -> str:
        """A .sig name from `base` that no keyword, built-in or earlier fresh name has."""
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 1
        while name in SIG_KEYWORDS or name in self.used_names or name.upper() in self.reserved_upper:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        return name

"""Locations in C++ sources and the one error the extraction raises."""

from __future__ import annotations

from model.errors import Span


Loc = Span  # a C++ source range: 1-based lines and columns, like every span of the checker


class ExtractError(Exception):
    """A kernel the extraction cannot read; prints as `file:line:col: error: message`."""

    def __init__(self, loc: Loc | None, message: str, file: str = "<input>"):
        self.loc, self.message = loc, message
        where = str(loc) if loc else f"{file}:1:1"
        super().__init__(f"{where}: error: {message}")

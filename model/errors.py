"""Source spans and spec errors, printed as `file:line:col: error: message` with a caret."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class SpecWarning:
    """A likely mistake that does not stop the check, at its span."""

    span: Span
    message: str

    def render(self) -> str:
        return f"{self.span}: warning: {self.message}"


class SpecError(Exception):
    """One user mistake in a spec (or on the command line), tied to a span when there is one."""

    def __init__(self, message: str, span: Span | None = None, file: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.file = file

    def render(self, source: str | None = None) -> str:
        if self.span is None:
            return f"{self.file}: error: {self.message}" if self.file else f"error: {self.message}"
        head = f"{self.span}: error: {self.message}"
        if source is None:
            return head
        lines = source.splitlines()
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1].replace("\t", " ")
        if len(text) > 200:
            return head
        width = 1
        if self.span.end_line == self.span.line:
            width = max(1, self.span.end_col - self.span.col)
        caret = " " * (self.span.col - 1) + "^" * min(width, max(1, len(text) - self.span.col + 1))
        return f"{head}\n    {text}\n    {caret}"


class SpecErrors(Exception):
    """Every error found in one spec, in source order."""

    def __init__(self, errors: list[SpecError], source: str | None = None):
        key = lambda e: (e.span.line, e.span.col) if e.span else (0, 0)  # noqa: E731
        self.errors = sorted(errors, key=key)
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(e.render(self.source) for e in self.errors)


class ModelError(Exception):
    """A run-time error of the modelled program (index out of bounds, division by zero, ...).

    It is not a user mistake in the spec text but a behaviour: the checker reports it as the
    `error` verdict with a trace."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span

"""The terminal view of results: colour, aligned counterexamples with a source excerpt per
violation (`text`), and a progress line on long runs (`Progress`). Whether to colour is `checker.cli.use_color` (deciding it loads no rich).

Only for terminals: when colour is off the CLI uses the plain reporter (checker/report.py),
whose bytes tests/golden pins. Built on rich; NO_COLOR (https://no-color.org) turns `auto` off.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from checker.report import coverage_lines, verdict
from checker.result import LABEL as _LABEL, Result, StuckProcess, Violation

_STYLE = {"pass": "bold green", "fail": "bold red", "vacuous": "bold red", "inconclusive": "bold yellow"}
EXCERPT = 2  # lines of context either side of the statement a violation points at


def console(out: IO[str]) -> Console:
    width = shutil.get_terminal_size((100, 24)).columns
    return Console(file=out, force_terminal=True, color_system="standard", width=max(width, 60), highlight=False,
                   no_color=False,
                   emoji=False, soft_wrap=True)


def text(results: list[Result], out: IO[str], *, quiet: bool = False, timing: bool = True) -> None:
    c = console(out)
    sources: dict[str, list[str] | None] = {}
    for r in results:
        if r.error is not None:
            continue
        params = f" [{' '.join(f'{k}={v}' for k, v in r.params.items())}]" if r.params else ""
        line = Text.assemble((f"{r.spec}{params}", "bold"), ": ", (_LABEL[r.status], _STYLE[r.status]),
                             ": ", verdict(r))
        c.print(line)
        if r.cached:
            c.print("  (from the cache)", style="dim")
        if r.stop:
            c.print(f"  stopped early: {escape(r.stop.detail)}", style="yellow")
        for line in [] if quiet else coverage_lines(r):
            c.print(f"  {escape(line)}", style="yellow")
        if r.assumptions and not quiet:
            c.print(f"  assumptions of the extraction ({len(r.assumptions)}):", style="bold")
            for a in r.assumptions:
                c.print(f"    {escape(a.text)}", style="yellow")
        if not quiet:
            if r.spec not in sources:
                sources[r.spec] = _lines(r.spec)
            for v in r.violations:
                _violation(c, r, v, sources[r.spec])
        seconds = f", {r.stats.seconds:.2f} s" if timing else ""
        reduced = r.stats.reductions()
        c.print(f"  {r.stats.states} states, {r.stats.transitions} transitions{reduced}{seconds}", style="dim")


def _lines(path: str) -> list[str] | None:
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _violation(c: Console, r: Result, v: Violation, source: list[str] | None) -> None:
    expected = v.property in r.expected
    head = Text.assemble("  ", (v.property, "bold yellow" if expected else "bold red"),
                         (" (expected)" if expected else "", "yellow"), ": ", v.message)
    c.print(head)
    if not v.trace:
        c.print("    (in the initial state, before any step)", style="dim")
    else:
        t = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1, 0, 0))
        t.add_column(justify="right", style="dim")
        t.add_column(style="cyan", no_wrap=True)
        t.add_column(style="dim", no_wrap=True)
        t.add_column()
        for s in v.trace:
            body = Text(s.statement, style="bold")
            if s.locals:
                body.append("  " + s.locals_text, style="yellow")
            for kind, text in s.shown:
                style = "red" if kind in ("overwrite", "fault") else "green" if kind == "write" else "magenta"
                body.append("\n  " + text, style=style)
            t.add_row(f"    {s.step}.", s.process, s.location, body)
        c.print(t)
    if v.situation:
        c.print("    stuck:" if v.property == "deadlock" else "    at the end:", style="bold")
        for item in v.situation:
            c.print(f"      {escape(item.text)}", style="red" if isinstance(item, StuckProcess) else "yellow")
    span = v.span or (v.trace[-1].span if v.trace else None)
    if source is not None and span is not None and span.file == r.spec:
        _excerpt(c, source, span)


def _excerpt(c: Console, source: list[str], span) -> None:
    lo, hi = max(1, span.line - EXCERPT), min(len(source), span.line + EXCERPT)
    width = len(str(hi))
    c.print(f"    {span}:", style="dim")
    for n in range(lo, hi + 1):
        mark = ">" if n == span.line else " "
        line = Text(f"    {mark}{n:>{width}} | ", style="bold red" if n == span.line else "dim")
        line.append(source[n - 1], style="bold" if n == span.line else "")
        c.print(line)
        if n == span.line and span.end_line == span.line:
            caret = " " * (span.col - 1) + "^" * max(1, span.end_col - span.col)
            c.print(Text(f"     {'':>{width}} | " + caret, style="bold red"))


class Progress:
    """A live line on stderr for runs past two seconds: states, transitions, states/s, elapsed.
    (The explorer's queue size is not part of its progress callback.)"""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.live = None

    def __call__(self, states: int, transitions: int, seconds: float) -> None:
        if seconds < 2:
            return
        from rich.live import Live

        rate = states / seconds if seconds else 0.0
        line = Text.assemble(("  exploring: ", "bold"), f"{states:,} states, {transitions:,} transitions, ",
                             (f"{rate:,.0f} states/s", "cyan"), f", {seconds:.0f} s elapsed")
        if self.live is None:
            err = Console(file=self.stream, force_terminal=True, color_system="standard", no_color=False)
            self.live = Live(line, console=err, transient=True, auto_refresh=False)
            self.live.start()
        self.live.update(line, refresh=True)

    def done(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

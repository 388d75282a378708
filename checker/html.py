"""One self-contained HTML report of results (`sigproof check --html FILE`). Entry: `write`, `page`.

Per spec: the verdicts and statistics, what the verdict rests on (semantics, reductions, a
kernel's extraction assumptions); per violation a message-sequence chart as inline SVG
(a lane per process, a mark per step, arrows from a TNOTIFY to the later reads that saw the
value it wrote, erased notifications, stuck processes and a data race's two accesses marked,
a legend of what it shows), the spec's or kernel's source beside it (below it when the
lanes and the source do not fit side by side), opened at the first line the trace cites,
with a line anchor for every step to link to, and the signal values and the changed locals
after each step. No scripts, no external resources: hovering a mark shows its step through
SVG <title>. Known limitations: the values table shows only the elements the trace writes or
reads, with their value as first seen (the model's initial values are not part of a
result); the lines above the first cited one are folded (a <details>), not scrolled past.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import IO

from checker.result import (LABEL, AccessRef, DataAccess, Overwrote, Read, Result, StuckProcess, TraceStep,
                            Violation, Write, operations)

LANE_W, ROW_H, LEFT = 116, 26, 40
LEGEND_H = 24  # the legend's row, above the lane heads
TOP = LEGEND_H + 64  # the first step's row
TEXT_MIN = 240  # the statements' column a chart asks room for beside its lanes
_LABEL = {**LABEL, "error": "ERROR"}

CSS = """
body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#1f2328;background:#fff}
h1{font-size:1.5em;margin:0 0 .6em} h2{font-size:1.2em;margin:1.6em 0 .3em;border-bottom:1px solid #d0d7de}
h3{font-size:1em;margin:1.2em 0 .4em;font-weight:600}
table{border-collapse:collapse} td,th{border:1px solid #d0d7de;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa} .num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37;font-weight:600} .fail,.vacuous,.error{color:#cf222e;font-weight:600} .inconclusive{color:#9a6700;font-weight:600}
.violation{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}
.chart{flex-grow:1;flex-shrink:1;min-width:0;max-width:100%;overflow-x:auto}
.source{flex:1 1 28em;min-width:min(24em,100%);max-height:44em;overflow:auto;position:sticky;top:0}
.source{border:1px solid #d0d7de;background:#f6f8fa}
.source summary{font:12px ui-monospace,Menlo,Consolas,monospace;color:#6e7781;padding:2px 8px;cursor:pointer}
.table-scroll{max-width:100%;overflow-x:auto}
.source pre{margin:0;padding:4px 0;font:12px/1.5 ui-monospace,Menlo,Consolas,monospace}
.source a.ln{display:inline-block;width:3.5em;color:#6e7781;text-align:right;padding-right:.8em;text-decoration:none}
.source span.line{display:block;padding-right:1em} .source span.line:target{background:#fff8c5}
.source span.hot{background:#ddf4ff}
.values{font:12px ui-monospace,Menlo,Consolas,monospace;margin-top:.6em} .values td{white-space:nowrap} .values td.changed{background:#ddf4ff;font-weight:700}
.values td.erased{background:#ffebe9;font-weight:700}
.situation{font:12px ui-monospace,Menlo,Consolas,monospace} .errors pre{color:#cf222e}
svg text{font:12px system-ui,sans-serif} svg .stmt{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#1f2328}
svg .lane-line{stroke:#8c959f;stroke-dasharray:3 3} svg .lane-head{fill:#f6f8fa;stroke:#8c959f}
svg .mark{stroke:#1f2328;stroke-width:1} svg .notify{fill:#0969da} svg .read-holds{fill:#1a7f37}
svg .read-fails{fill:#bf8700} svg .other{fill:#8c959f} svg .fault{fill:#cf222e}
svg .arrow{stroke:#0969da;stroke-width:1.4;fill:none} svg .arrow.fails{stroke:#bf8700;stroke-dasharray:4 3}
svg .erased{stroke:#cf222e;stroke-width:2.5} svg .erasure{stroke:#cf222e;stroke-width:1.2;stroke-dasharray:2 3;fill:none} svg .stuck{fill:#ffebe9;stroke:#cf222e;stroke-width:1.5}
svg .stuck-text{fill:#cf222e;font-weight:600;font-size:11px} svg .stepno{fill:#6e7781;font-size:11px} svg .note{fill:#cf222e;font-weight:600}
svg .race-mark{fill:none;stroke:#cf222e;stroke-width:2.5} svg .race-link{stroke:#cf222e;stroke-width:2;stroke-dasharray:6 4;fill:none}
svg .legend text{font-size:11px;fill:#57606a}
svg a:hover .mark{stroke-width:3}
"""


def write(results: list[Result], out: IO[str], *, timing: bool = True) -> None:
    out.write(page(results, timing=timing))


def page(results: list[Result], *, timing: bool = True) -> str:
    parts = ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
             "<title>sigproof report</title>\n<style>", CSS, "</style>\n</head>\n<body>\n<h1>sigproof report</h1>\n",
             _summary(results, timing)]
    for k, r in enumerate(results):
        parts.append(_section(k, r, timing))
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def _params(r: Result) -> str:
    return " ".join(f"{k}={v}" for k, v in r.params.items())


def _verdict(r: Result) -> str:
    return r.verdict


def _summary(results: list[Result], timing: bool) -> str:
    head = "<tr><th>spec</th><th>params</th><th>status</th><th>verdict</th><th>states</th><th>transitions</th>"
    head += "<th>seconds</th></tr>\n" if timing else "</tr>\n"
    rows = []
    for k, r in enumerate(results):
        verdict = "spec error" if r.error is not None else _verdict(r)
        cells = (f"<td><a href=\"#r{k}\">{escape(r.spec)}</a></td><td>{escape(_params(r))}</td>"
                 f"<td class=\"{r.status}\">{_LABEL[r.status]}</td><td>{escape(verdict)}</td>"
                 f"<td class=\"num\">{r.stats.states}</td><td class=\"num\">{r.stats.transitions}</td>")
        if timing:
            cells += f"<td class=\"num\">{r.stats.seconds:.2f}</td>"
        rows.append(f"<tr>{cells}</tr>\n")
    return f"<table class=\"summary\">\n{head}{''.join(rows)}</table>\n"


def _section(k: int, r: Result, timing: bool) -> str:
    params = f" [{escape(_params(r))}]" if r.params else ""
    out = [f"<section id=\"r{k}\">\n<h2>{escape(r.spec)}{params}: <span class=\"{r.status}\">{_LABEL[r.status]}</span>"]
    if r.error is not None:
        out.append(f"</h2>\n<div class=\"errors\"><pre>{escape(r.error)}</pre></div>\n</section>\n")
        return "".join(out)
    out.append(f": {escape(_verdict(r))}</h2>\n")
    seconds = f", {r.stats.seconds:.2f} s" if timing else ""
    cached = " (from the cache)" if r.cached else ""
    out.append(f"<p>{r.stats.states} states, {r.stats.transitions} transitions{seconds}{cached}</p>\n")
    if r.stop:
        out.append(f"<p class=\"inconclusive\">stopped early: {escape(r.stop.detail)}</p>\n")
    out.append(_basis(r))
    if r.unreached:
        items = "".join(f"<li>{escape(u.text)}</li>" for u in r.unreached)
        out.append(f"<p>{operations(len(r.unreached))} never executed:</p>\n<ul class=\"situation\">{items}</ul>\n")
    source = _source_lines(r.spec)
    for j, v in enumerate(r.violations):
        out.append(_violation(f"r{k}v{j}", r, v, source))
    out.append("</section>\n")
    return "".join(out)


def _basis(r: Result) -> str:
    """What the verdict rests on: the semantics, the reductions, a kernel's assumptions (the
    fingerprint caveat is in the verdict)."""
    used = ", ".join(x for x in (f"{r.stats.reduction} reduction" if r.stats.reduction else "",
                                 f"symmetry: {r.stats.symmetry}" if r.stats.symmetry else "") if x)
    if r.stats.race_reduced_states is not None:
        used = f"none (the compiled unreduced search finished before the reduced one, at " \
               f"{r.stats.race_reduced_states} of its states)"
    out = [f"<p class=\"basis\">semantics: {escape(r.semantics.describe())}; "
           f"reductions: {escape(used or 'none')}</p>\n"]
    if r.assumptions is not None:
        items = "".join(f"<li>{escape(a.text)}</li>" for a in r.assumptions)
        out.append(f"<p>assumptions of the extraction ({len(r.assumptions)}):</p>\n"
                   f"<ul class=\"situation assumptions\">{items}</ul>\n")
    return "".join(out)


def _source_lines(path: str) -> list[str] | None:
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _violation(vid: str, r: Result, v: Violation, source: list[str] | None) -> str:
    expected = " (expected)" if v.property in r.expected else ""
    out = [f"<div class=\"violation-block\" id=\"{vid}\">\n<h3>{escape(v.property)}{expected}: {escape(v.message)}</h3>\n"]
    linkable = source is not None
    anchor = (lambda s: f"#{vid}-L{s.line}" if linkable and s.file == r.spec else None)  # noqa: E731
    out.append(f"<div class=\"violation\">\n<div class=\"chart\" style=\"flex-basis:{chart_basis(v)}px\">")
    out.append(chart(v, anchor, vid))
    out.append("</div>\n")
    if source is not None:
        out.append(_source(vid, source, cited_lines(v, r.spec), r.spec))
    out.append("</div>\n")
    out.append(f"<div class=\"table-scroll\">{_values(v, anchor)}</div>\n")
    if v.situation:
        title = "stuck" if v.property == "deadlock" else "at the end"
        items = "".join(f"<li>{escape(x.text)}</li>" for x in v.situation)
        out.append(f"<p>{title}:</p><ul class=\"situation\">{items}</ul>\n")
    out.append("</div>\n")
    return "".join(out)


def cited_lines(v: Violation, path: str) -> set[int]:
    """The lines of `path` that the trace's steps and the stuck processes cite."""
    hot = {s.span.line for s in v.trace if s.span.file == path}
    return hot | {x.span.line for x in v.situation if isinstance(x, StuckProcess) and x.span.file == path}


def _source(vid: str, lines: list[str], hot: set[int], path: str) -> str:
    """The source pane, opened at the first cited line: the lines above it are folded into a
    <details> (the page has no script to scroll the pane)."""
    rows = []
    for n, text in enumerate(lines, 1):
        cls = "line hot" if n in hot else "line"
        rows.append(f"<span class=\"{cls}\" id=\"{vid}-L{n}\"><a class=\"ln\" href=\"#{vid}-L{n}\">{n}</a>"
                    f"{escape(text)}</span>")
    first = min(min(hot, default=1), len(lines))
    if first <= 1:
        return f"<div class=\"source\"><pre>{''.join(rows)}</pre></div>\n"
    fold = (f"<details class=\"before\"><summary>lines 1-{first - 1} of {escape(Path(path).name)}</summary>"
            f"<pre>{''.join(rows[:first - 1])}</pre></details>")
    return f"<div class=\"source\" data-first=\"{first}\">{fold}<pre>{''.join(rows[first - 1:])}</pre></div>\n"


# ---------------------------------------------------------------- the sequence chart


def lanes(v: Violation) -> list[str]:
    """The processes of a chart, in order: hosts, then kernel blocks by rank and block, then others."""
    refs = {s.actor.name: s.actor for s in v.trace}
    for x in v.situation:
        if isinstance(x, StuckProcess):
            refs.setdefault(x.actor.name, x.actor)
    order = {"host": 0, "kernel": 1, "hosts": 2}
    key = lambda a: (order.get(a.kind, 3), a.rank if a.rank is not None else -1,  # noqa: E731
                     a.block if a.block is not None else -1, a.name)
    return [a.name for a in sorted(refs.values(), key=key)]


def arrows(trace: tuple[TraceStep, ...]) -> list[tuple[int, int, bool]]:
    """(notify step, read step, whether the read's comparison held): each read paired with the
    latest earlier step that wrote the element it read, when that step was a TNOTIFY."""
    last: dict[str, TraceStep] = {}
    out = []
    for s in trace:
        for e in s.effects:
            if isinstance(e, Read):
                w = last.get(e.element.name)
                if w is not None and "TNOTIFY" in w.statement and (w.step, s.step, e.holds) not in out:
                    out.append((w.step, s.step, e.holds))
        for e in s.effects:
            if isinstance(e, Write):
                last[e.element.name] = s
    return out


def erasures(trace: tuple[TraceStep, ...]) -> list[tuple[int, int, str]]:
    """(notify step, erasing step, element): each notification that a later Set or reset erased."""
    last: dict[str, TraceStep] = {}
    out = []
    for s in trace:
        for e in s.effects:
            if isinstance(e, Overwrote):
                w = last.get(e.element.name)
                if w is not None and w.step != s.step:
                    out.append((w.step, s.step, e.element.name))
        for e in s.effects:
            if isinstance(e, Write):
                last[e.element.name] = s
    return out


def race_steps(v: Violation) -> tuple[int, int] | None:
    """(first, second): the steps of a data race's two accesses, read off the trace by process,
    statement and element. The second is the latest such step (the trace ends with it); the
    first, the latest earlier one, since happens-before keeps an element's last write (and each
    process's last read), the access the second one raced with."""
    if v.race is None:
        return None
    second = _latest(v.trace, v.race.second, len(v.trace) + 1)
    first = _latest(v.trace, v.race.first, second) if second is not None else None
    return (first, second) if first is not None else None


def _latest(trace: tuple[TraceStep, ...], access: AccessRef, before: int) -> int | None:
    """The last step before `before` that made `access` (at its statement, if none records it)."""
    at = [s for s in trace if s.step < before and s.process == access.process and s.span == access.span]
    made = [s for s in at if any(isinstance(e, DataAccess) and e.element == access.element
                                 and e.access == access.access for e in s.effects)]
    return (made or at)[-1].step if made or at else None


def _mark_class(s: TraceStep) -> str:
    kinds = {e.kind for e in s.effects}
    if "fault" in kinds:
        return "fault"
    if "read" in kinds:
        return "read-holds" if all(e.holds for e in s.effects if isinstance(e, Read)) else "read-fails"
    if "TNOTIFY" in s.statement:
        return "notify"
    return "other"


def _note(s: TraceStep) -> str:
    """What to flag beside a step's statement: an erased notification or a fault."""
    for e in s.effects:
        if isinstance(e, Overwrote):
            return f"erases the unread {e.old} of {e.element.name}"
        if e.kind == "fault":
            return f"{e.property}: {e.message}"
    return ""


def _tip(s: TraceStep, values: dict[str, int] | None = None) -> str:
    lines = [f"{s.step}. {s.process}  {s.location}", s.statement] + [e.text for e in s.effects]
    if s.locals:
        lines.append("locals after: " + s.locals_text[1:-1])
    if values:
        lines.append("after: " + ", ".join(f"{k} = {v}" for k, v in values.items()))
    return escape("\n".join(lines))


def chart_basis(v: Violation) -> int:
    """The width a chart asks for beside the source pane: its lanes and some statement text.
    The pane goes below the chart when both do not fit (the chart scrolls when even its lanes
    do not)."""
    return LEFT + len(lanes(v)) * LANE_W + 12 + TEXT_MIN


def chart(v: Violation, anchor=lambda span: None, cid: str = "c") -> str:
    names = lanes(v)
    x = {name: LEFT + LANE_W // 2 + i * LANE_W for i, name in enumerate(names)}
    stuck = [item for item in v.situation if isinstance(item, StuckProcess)]
    rows = len(v.trace) + (1 if stuck else 0)
    y = lambda n: TOP + n * ROW_H  # noqa: E731
    text_x = LEFT + len(names) * LANE_W + 12
    width_text = max((len(_clip(s.statement, 70)) + (len(_clip(_note(s), 80)) + 2 if _note(s) else 0)
                      for s in v.trace), default=10) * 7 + 40
    race = race_steps(v)
    legend, legend_w = _legend(v, cid, race)
    width, height = max(text_x + width_text, LEFT + legend_w), y(rows) + ROW_H
    out = [f"<svg class=\"msc\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" "
           f"role=\"img\" aria-label=\"sequence chart of the {escape(v.property)} counterexample\">",
           f"<defs><marker id=\"{cid}-ah\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
           "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#0969da\"/></marker></defs>", legend]
    head = TOP - 56
    for name in names:
        cx = x[name]
        out.append(f"<g class=\"lane\" data-process=\"{escape(name)}\">"
                   f"<line class=\"lane-line\" x1=\"{cx}\" y1=\"{TOP - 18}\" x2=\"{cx}\" y2=\"{height - 8}\"/>"
                   f"<rect class=\"lane-head\" x=\"{cx - LANE_W // 2 + 4}\" y=\"{head}\" width=\"{LANE_W - 8}\" "
                   f"height=\"26\" rx=\"4\"/><text x=\"{cx}\" y=\"{head + 17}\" text-anchor=\"middle\">"
                   f"{escape(name)}</text></g>")
    by_step = {s.step: s for s in v.trace}
    at = lambda n: (x[by_step[n].process], y(n))  # noqa: E731
    out += _links(v, at, cid, race)
    after = _values_after(v.trace)
    for s in v.trace:
        out.append(_step(s, (x[s.process], y(s.step)), anchor(s.span), after[s.step - 1], s.step in (race or ()),
                         text_x))
    for item in stuck:
        cx, cy = x[item.actor.name], y(rows)
        href = anchor(item.span)
        body = (f"<g class=\"stuck-mark\" data-process=\"{escape(item.actor.name)}\"><title>{escape(item.text)}</title>"
                f"<rect class=\"stuck\" x=\"{cx - 40}\" y=\"{cy - 10}\" width=\"80\" height=\"20\" rx=\"3\"/>"
                f"<text class=\"stuck-text\" x=\"{cx}\" y=\"{cy + 4}\" text-anchor=\"middle\">stuck: "
                f"{escape(item.waits)}</text></g>")
        out.append(f"<a href=\"{href}\">{body}</a>" if href else body)
    out.append("</svg>")
    return "".join(out)


def _links(v: Violation, at, cid: str, race: tuple[int, int] | None) -> list[str]:
    """The lines between steps: notify-to-read arrows, erasure curves, the race's dashed line.
    `at(step)` is the centre of a step's mark."""
    out = []
    for src, dst, holds in arrows(v.trace):
        (x1, y1), (x2, y2) = at(src), at(dst)
        cls = "arrow" if holds else "arrow fails"
        out.append(f"<line class=\"{cls}\" data-from=\"{src}\" data-to=\"{dst}\" x1=\"{x1}\" y1=\"{y1}\" "
                   f"x2=\"{x2 - (8 if x2 > x1 else -8 if x2 < x1 else 0)}\" y2=\"{y2 - (0 if x2 != x1 else 8)}\" "
                   f"marker-end=\"url(#{cid}-ah)\"/>")
    for n, (src, dst, element) in enumerate(erasures(v.trace)):  # dotted curves, bulging right
        (x1, y1), (x2, y2) = at(src), at(dst)
        bulge = 18 + 8 * (n % 4)
        out.append(f"<path class=\"erasure\" data-from=\"{src}\" data-to=\"{dst}\" data-element=\"{escape(element)}\" "
                   f"d=\"M{x1},{y1} C{x1 + bulge},{y1} {x2 + bulge},{y2} {x2},{y2}\"><title>the notification of step "
                   f"{src} to {escape(element)} is erased at step {dst}</title></path>")
    if race is not None:
        (src, dst), facts = race, v.race
        (x1, y1), (x2, y2) = at(src), at(dst)
        way = f"L{x2},{y2}" if x1 != x2 else f"C{x1 - 30},{y1} {x2 - 30},{y2} {x2},{y2}"  # one lane: bulge left
        out.append(f"<path class=\"race-link\" data-from=\"{src}\" data-to=\"{dst}\" d=\"M{x1},{y1} {way}\"><title>"
                   f"racing accesses to {escape(facts.second.element.name)}: the {facts.first.access} of step {src} "
                   f"and the {facts.second.access} of step {dst}, not ordered by happens-before</title></path>")
    return out


def _step(s: TraceStep, centre: tuple[int, int], href: str | None, values: dict[str, int], racing: bool,
          text_x: int) -> str:
    """A step's mark (with a cross when it erased a notification, a ring when it is one of a
    data race's accesses), its number and its statement."""
    cx, cy = centre
    mark = (f"<title>{_tip(s, values)}</title><circle class=\"mark {_mark_class(s)}\" cx=\"{cx}\" "
            f"cy=\"{cy}\" r=\"6\"/>")
    for e in s.effects:
        if isinstance(e, Overwrote):
            mark += (f"<g class=\"erased\" data-element=\"{escape(e.element.name)}\"><line x1=\"{cx - 9}\" "
                     f"y1=\"{cy - 9}\" x2=\"{cx + 9}\" y2=\"{cy + 9}\"/><line x1=\"{cx - 9}\" y1=\"{cy + 9}\" "
                     f"x2=\"{cx + 9}\" y2=\"{cy - 9}\"/></g>")
            break
    if racing:
        mark += f"<circle class=\"race-mark\" data-step=\"{s.step}\" cx=\"{cx}\" cy=\"{cy}\" r=\"10\"/>"
    label = escape(_clip(s.statement, 70))
    note = _note(s)
    if note:
        label += f"<tspan class=\"note\" dx=\"8\">{escape(_clip(note, 80))}</tspan>"
    body = (f"<g class=\"step\" data-step=\"{s.step}\" data-process=\"{escape(s.process)}\">{mark}"
            f"<text class=\"stepno\" x=\"{LEFT - 6}\" y=\"{cy + 4}\" text-anchor=\"end\">{s.step}</text>"
            f"<text class=\"stmt\" x=\"{text_x}\" y=\"{cy + 4}\">{label}</text></g>")
    return f"<a href=\"{href}\">{body}</a>" if href else body


_KEYS = (("notify", "TNOTIFY"), ("read-holds", "read that holds"), ("read-fails", "read that fails"),
         ("other", "other step"), ("fault", "fault"), ("arrow", "notification read"),
         ("erased", "erased notification"), ("stuck", "stuck"), ("race", "racing accesses"))


def _legend(v: Violation, cid: str, race: tuple[int, int] | None) -> tuple[str, int]:
    """The chart's legend (what it shows, in a fixed order) and its width."""
    shown = {_mark_class(s) for s in v.trace}
    shown |= {k for k, there in (("arrow", arrows(v.trace)), ("erased", erasures(v.trace)),
                                 ("stuck", any(isinstance(x, StuckProcess) for x in v.situation)),
                                 ("race", race)) if there}
    cy, left, out = LEGEND_H // 2 + 2, LEFT, []
    for kind, text in _KEYS:
        if kind not in shown:
            continue
        out.append(f"<g class=\"key\" data-kind=\"{kind}\">{_swatch(kind, left, cy, cid)}"
                   f"<text x=\"{left + 26}\" y=\"{cy + 4}\">{escape(text)}</text></g>")
        left += 26 + len(text) * 6 + 18
    return f"<g class=\"legend\">{''.join(out)}</g>", left - LEFT


def _swatch(kind: str, x: int, cy: int, cid: str) -> str:
    """A legend entry's picture, 20 px wide, drawn like the chart draws the thing."""
    if kind == "arrow":
        return f"<path class=\"arrow\" d=\"M{x},{cy} L{x + 18},{cy}\" marker-end=\"url(#{cid}-ah)\"/>"
    if kind == "erased":
        return (f"<path class=\"erased\" d=\"M{x + 4},{cy - 6} L{x + 16},{cy + 6} M{x + 4},{cy + 6} "
                f"L{x + 16},{cy - 6}\"/>")
    if kind == "stuck":
        return f"<rect class=\"stuck\" x=\"{x}\" y=\"{cy - 7}\" width=\"20\" height=\"14\" rx=\"3\"/>"
    if kind == "race":
        return (f"<path class=\"race-link\" d=\"M{x},{cy} L{x + 20},{cy}\"/>"
                f"<circle class=\"race-mark\" cx=\"{x + 10}\" cy=\"{cy}\" r=\"7\"/>")
    return f"<circle class=\"mark {kind}\" cx=\"{x + 10}\" cy=\"{cy}\" r=\"5\"/>"


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------- signal values


def _elements(trace) -> dict[str, int]:
    """Every element the trace reads or writes, with the value it had before the trace touched it."""
    first: dict[str, int] = {}
    for s in trace:
        for e in s.effects:
            if isinstance(e, Write):
                first.setdefault(e.element.name, e.old)
            elif isinstance(e, Read):
                first.setdefault(e.element.name, e.value)
    return first


def _values_after(trace) -> list[dict[str, int]]:
    now = dict(_elements(trace))
    out = []
    for s in trace:
        for e in s.effects:
            if isinstance(e, Write):
                now[e.element.name] = e.new
        out.append(dict(now))
    return out


def _values(v: Violation, anchor) -> str:
    initial = _elements(v.trace)
    if not v.trace:
        return "<p>(in the initial state, before any step)</p>\n"
    names = list(initial)
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    first = "".join(f"<td class=\"num\">{initial[n]}</td>" for n in names)
    rows = [f"<tr><td></td><td>initial</td><td></td>{first}<td></td></tr>"]
    for s, values in zip(v.trace, _values_after(v.trace)):
        written = {e.element.name for e in s.effects if isinstance(e, Write)}
        erased = {e.element.name for e in s.effects if isinstance(e, Overwrote)}
        cells = []
        for n in names:
            cls = "num erased" if n in erased else "num changed" if n in written else "num"
            cells.append(f"<td class=\"{cls}\">{values[n]}</td>")
        href = anchor(s.span)
        where = f"<a href=\"{href}\">{escape(s.location)}</a>" if href else escape(s.location)
        rows.append(f"<tr data-step=\"{s.step}\"><td class=\"num\">{s.step}</td><td>{escape(s.process)}</td>"
                    f"<td>{where}</td>{''.join(cells)}<td class=\"locals\">{escape(s.locals_text[1:-1])}</td></tr>")
    return (f"<table class=\"values\"><caption>signal values after each step</caption><tr><th>step</th>"
            f"<th>process</th><th>at</th>{head}<th>locals changed</th></tr>\n" + "\n".join(rows) + "\n</table>\n")

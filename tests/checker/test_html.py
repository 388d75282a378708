"""The HTML report (--html): its structure, and the page as a real headless browser renders it."""

from __future__ import annotations

import io
import json
import re
import shutil
import struct
import subprocess
from html import escape, unescape
from html.parser import HTMLParser

import pytest

from checker import html
from checker.check import check_file
from checker.cli import run
from conftest import ROOT, SPECS

BUG = "bug_a2a_reset_after_wait.sig"
RACE = "bug_ping_pong_no_credit.sig"
KERNEL = ROOT / "tests" / "frontends" / "corpus" / "bug_put_notify_no_fence" / "bug_put_notify_no_fence.cpp"
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)")


class Page(HTMLParser):
    """Lanes, step marks, arrows and anchors of a report, per chart."""

    def __init__(self):
        super().__init__()
        self.charts: list[dict] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.external: list[str] = []
        self._key: str | None = None  # the legend entry being read

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            assert a["id"] not in self.ids, f"duplicate id {a['id']}"
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        for key in ("src", "href"):
            if key in a and not a[key].startswith("#"):
                self.external.append(a[key])
        if tag == "svg":
            self.charts.append({"lanes": [], "steps": [], "arrows": [], "erased": 0, "stuck": [], "erasures": 0,
                                "mark_at": [], "race_marks": [], "race_links": [], "keys": {}})
        chart = self.charts[-1] if self.charts else None
        cls = a.get("class", "")
        if tag == "g" and cls == "lane":
            chart["lanes"].append(a["data-process"])
        elif tag == "g" and cls == "step":
            chart["steps"].append((int(a["data-step"]), a["data-process"]))
        elif tag == "line" and cls.startswith("arrow"):
            chart["arrows"].append((int(a["data-from"]), int(a["data-to"])))
        elif tag == "g" and cls == "erased":
            chart["erased"] += 1
        elif tag == "g" and cls == "stuck-mark":
            chart["stuck"].append(a["data-process"])
        elif tag == "path" and cls == "erasure":
            chart["erasures"] += 1
        elif tag == "circle" and cls.startswith("mark ") and self._key is None:
            chart["mark_at"].append((float(a["cx"]), float(a["cy"])))
        elif tag == "circle" and cls == "race-mark" and "data-step" in a:
            chart["race_marks"].append((int(a["data-step"]), float(a["cx"]), float(a["cy"])))
        elif tag == "path" and cls == "race-link" and "data-from" in a:
            ends = [tuple(map(float, xy.split(","))) for xy in re.findall(r"-?[\d.]+,-?[\d.]+", a["d"])]
            chart["race_links"].append((int(a["data-from"]), int(a["data-to"]), ends[0], ends[-1]))
        elif tag == "g" and cls == "key":
            self._key = a["data-kind"]
            chart["keys"][self._key] = ""

    def handle_endtag(self, tag):
        if tag == "g":
            self._key = None

    def handle_data(self, data):
        if self._key is not None:
            self.charts[-1]["keys"][self._key] += data


def _parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def bug_result():
    (r,) = check_file(SPECS / BUG)
    return r


def test_chart_has_a_lane_per_process_and_a_mark_per_step(bug_result):
    page = _parse(html.page([bug_result], timing=False))
    assert len(page.charts) == len(bug_result.violations) == 2
    for chart, v in zip(page.charts, bug_result.violations):
        processes = {s.process for s in v.trace} | {x.actor.name for x in v.situation if hasattr(x, "actor")}
        assert sorted(chart["lanes"]) == sorted(processes) and len(chart["lanes"]) == len(set(chart["lanes"]))
        assert chart["steps"] == [(s.step, s.process) for s in v.trace]
        assert chart["erased"] == sum(1 for s in v.trace if any(e.kind == "overwrite" for e in s.effects))
    deadlock = page.charts[0]
    assert deadlock["lanes"][:4] == ["host 0", "host 1", "host 2", "host 3"]
    assert sorted(deadlock["stuck"]) == sorted(x.actor.name for x in bug_result.violations[0].situation)
    assert deadlock["erased"] == 3 and deadlock["erasures"] == 3  # rank 0's Set(0)s, steps 18-20
    # each wait of rank 0 reads the value a peer's TNOTIFY wrote: the arrow points there
    waits = [s.step for s in bug_result.violations[0].trace
             if s.process == "rank 0 block 0" and s.statement.startswith("TWAIT")]
    assert len(waits) == 3 and {dst for _, dst in deadlock["arrows"]} == set(waits)
    assert all(src < dst for src, dst in deadlock["arrows"])


def test_arrows_pair_a_read_with_the_notify_it_saw(bug_result):
    v = bug_result.violations[0]
    by = {s.step: s for s in v.trace}
    for src, dst, holds in html.arrows(v.trace):
        assert src < dst and "TNOTIFY" in by[src].statement
        (read,) = [e for e in by[dst].effects if e.kind == "read"]
        (write,) = [e for e in by[src].effects if e.kind == "write"]
        assert read.element == write.element and read.value == write.new


def test_steps_link_to_source_lines_shown_beside(bug_result):
    page = _parse(html.page([bug_result], timing=False))
    assert page.external == []
    anchors = [h for h in page.hrefs if "-L" in h]
    assert anchors and all(h[1:] in page.ids for h in anchors)
    assert "#r0v0-L23" in page.hrefs  # the TNOTIFY of the trace, line 23 of the spec


def test_the_page_is_self_contained_and_deterministic(bug_result):
    a = html.page([bug_result], timing=False)
    assert a == html.page([bug_result], timing=False)
    assert "<script" not in a and "@import" not in a and "http" not in a
    assert re.findall(r"url\(([^)]*)\)", a) and all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", a))


def test_spec_errors_and_cli_option(tmp_path):
    bad = tmp_path / "bad.sig"
    bad.write_text("ranks 2;\nkernel { TWAIT(nope, 1, EQ); }\n")
    out = tmp_path / "r.html"
    code = run(["check", "-j", "1", "--html", str(out), str(bad), str(SPECS / "all_to_all_barrier.sig")],
               io.StringIO(), io.StringIO())
    assert code == 2
    text = out.read_text()
    assert "ERROR" in text and "nope" in text and "PASS" in text
    code = run(["check", "--html", str(tmp_path / "no" / "r.html"), str(bad)], io.StringIO(), err := io.StringIO())
    assert code == 2 and "cannot write" in err.getvalue()


def _chromium(tmp_path, *args):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr", "--v=0",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90)


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line]


@needs_browser
def test_the_browser_renders_it_without_console_errors(tmp_path, bug_result):
    control = tmp_path / "control.html"  # proves that console errors would be seen
    control.write_text("<html><body><script>missing();</script></body></html>")
    seen = _chromium(tmp_path, "--dump-dom", control.as_uri())
    assert any("Uncaught ReferenceError" in line for line in _console(seen.stderr))
    report = tmp_path / "r.html"
    report.write_text(html.page([bug_result], timing=False))
    got = _chromium(tmp_path, "--dump-dom", report.as_uri())
    assert got.returncode == 0 and _console(got.stderr) == []
    page = _parse(got.stdout)  # the DOM the browser built, not our text
    assert len(page.charts) == 2
    v = bug_result.violations[0]
    assert len(page.charts[0]["lanes"]) == 8 and len(page.charts[0]["steps"]) == len(v.trace)


@needs_browser
def test_the_browser_takes_a_screenshot(tmp_path, bug_result):
    report = tmp_path / "r.html"
    report.write_text(html.page([bug_result], timing=False))
    shot = tmp_path / "shot.png"
    got = _chromium(tmp_path, "--hide-scrollbars", "--window-size=1400,1000", f"--screenshot={shot}", report.as_uri())
    assert got.returncode == 0, got.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1400, 1000) and len(data) > 20_000  # a blank page compresses to far less


# ---------------------------------------------------------------- races, the source pane, a 1,280-px window


@pytest.fixture(scope="module")
def race_result():
    (r,) = check_file(SPECS / RACE)
    return r


def _cited(trace, situation, path) -> int:
    """The first line of `path` that a counterexample cites (steps and stuck processes)."""
    return min([s["span"]["line"] if isinstance(s, dict) else s.span.line for s in trace
                if (s["span"]["file"] if isinstance(s, dict) else s.span.file) == path]
               + [x.span.line for x in situation if hasattr(x, "actor") and x.span.file == path])


def _source_panes(text: str) -> list[tuple[str, int]]:
    """(the fold's summary, the first line shown unfolded) of each source pane."""
    found = re.findall(r'<div class="source"[^>]*>(?:<details class="before"><summary>([^<]*)</summary>.*?</details>)?'
                       r'<pre><span class="[^"]*" id="r\d+v\d+-L(\d+)"', text, re.S)
    return [(summary, int(line)) for summary, line in found]


def test_race_steps_are_the_two_racing_accesses(race_result, bug_result):
    (v,) = race_result.violations
    by = {s.step: s for s in v.trace}
    # the third round's TPUT into buf[0] (step 9) against round 1's READ of it (step 11, the last); the
    # first round's TPUT (step 3) is ordered before that read by the notification the wait of step 10 saw
    assert html.race_steps(v) == (9, 11) and len(v.trace) == 11
    for step, access in zip((9, 11), (v.race.first, v.race.second)):
        assert by[step].process == access.process and by[step].span == access.span
        assert any(e.kind == "data" and e.element == access.element and e.access == access.access
                   for e in by[step].effects)
    assert all(html.race_steps(w) is None for w in bug_result.violations)


def test_a_data_race_draws_its_two_accesses_joined(race_result, bug_result):
    page = _parse(html.page([race_result], timing=False))
    (chart,) = page.charts
    first, second = html.race_steps(race_result.violations[0])
    centre = dict(zip((step for step, _ in chart["steps"]), chart["mark_at"]))
    rings = {step: (x, y) for step, x, y in chart["race_marks"]}
    assert rings == {first: centre[first], second: centre[second]}  # a ring round each access's mark
    assert chart["race_links"] == [(first, second, rings[first], rings[second])]  # one dashed line between them
    assert chart["keys"]["race"] == "racing accesses" and centre[first] != centre[second]
    for other in _parse(html.page([bug_result], timing=False)).charts:  # no race, no race marks
        assert other["race_marks"] == other["race_links"] == [] and "race" not in other["keys"]
        assert set(other["keys"]) >= {"notify", "arrow", "erased"}


def test_the_source_pane_opens_at_the_first_cited_line(race_result, bug_result):
    for r in (race_result, bug_result):
        panes = _source_panes(html.page([r], timing=False))
        assert len(panes) == len(r.violations)
        for (summary, shown), v in zip(panes, r.violations):
            first = _cited(v.trace, v.situation, r.spec)
            assert first > 1 and shown == first
            assert summary == f"lines 1-{first - 1} of {SPECS.joinpath(r.spec).name}"


MEASURE = """<script>
(() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const out = {window: innerWidth, page: document.documentElement.scrollWidth, blocks: []};
  for (const block of document.querySelectorAll('.violation')) {
    const chart = block.querySelector('.chart'), source = block.querySelector('.source');
    const shown = source && [...source.querySelectorAll('span.line')].find(l => l.checkVisibility());
    out.blocks.push({chart: box(chart), overflow: getComputedStyle(chart).overflowX,
                     lanes: [...chart.querySelectorAll('g.lane')].map(box),
                     source: source && box(source), first: shown && shown.id, first_box: shown && box(shown),
                     first_text: shown && shown.textContent});
  }
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def _screenshot(tmp_path, report) -> None:
    """A 1,280 x 900 screenshot of the report: a real PNG of that size, not a blank page."""
    shot = tmp_path / "shot.png"
    got = _chromium(tmp_path, "--hide-scrollbars", "--window-size=1280,900", f"--screenshot={shot}", report.as_uri())
    assert got.returncode == 0, got.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (1280, 900) and len(data) > 20_000


def _measure(tmp_path, report) -> tuple[dict, Page]:
    """Lay the report out in a 1,280-px window: the boxes of its charts, lanes and source panes
    (measured by a script in a copy of the page: the report itself has none), and its DOM."""
    copy = tmp_path / "measured.html"
    copy.write_text(report.read_text().replace("</body>", MEASURE + "</body>"))
    got = _chromium(tmp_path, "--window-size=1280,900", "--dump-dom", copy.as_uri())
    assert got.returncode == 0 and _console(got.stderr) == [], got.stderr[-2000:]
    found = re.search(r'<pre id="measured">(.*?)</pre>', got.stdout, re.S)
    assert found, got.stdout[-2000:]
    return json.loads(unescape(found.group(1))), _parse(got.stdout)


def _assert_fits(m: dict, firsts: list[int]) -> None:
    """Nothing clipped in a 1,280-px window: the page does not scroll sideways, every lane is in
    its chart's view (what is wider, the statements, scrolls in the chart), the source pane keeps
    its width and shows the first cited line at its top."""
    assert m["window"] == 1280 and m["page"] <= m["window"]
    assert len(m["blocks"]) == len(firsts)
    for block, first in zip(m["blocks"], firsts):
        left, _, right, _ = block["chart"]
        assert block["lanes"] and all(left <= lane[0] and lane[2] <= right <= 1280 for lane in block["lanes"])
        assert block["overflow"] in ("auto", "scroll")
        s_left, s_top, s_right, _ = block["source"]
        assert s_right - s_left >= 320 and s_right <= 1280
        assert block["first"].endswith(f"-L{first}") and block["first_box"][1] - s_top < 40


@needs_browser
def test_a_4_rank_deadlock_fits_a_1280_px_window(tmp_path, bug_result):
    report = tmp_path / "r.html"
    code = run(["check", "-D", "N=4", "--html", str(report), str(SPECS / BUG)], io.StringIO(), io.StringIO())
    assert code == 0 and bug_result.params == {"N": 4}
    _screenshot(tmp_path, report)
    m, page = _measure(tmp_path, report)
    assert [len(c["lanes"]) for c in page.charts] == [8, 8]  # 4 hosts, 4 kernel blocks
    _assert_fits(m, [_cited(v.trace, v.situation, bug_result.spec) for v in bug_result.violations])


@needs_browser
def test_a_data_race_in_the_browser(tmp_path, race_result):
    report = tmp_path / "r.html"
    assert run(["check", "--html", str(report), str(SPECS / RACE)], io.StringIO(), io.StringIO()) == 0
    _screenshot(tmp_path, report)
    m, page = _measure(tmp_path, report)
    (chart,) = page.charts  # the DOM the browser built
    (link,) = chart["race_links"]
    rings = {step: (x, y) for step, x, y in chart["race_marks"]}
    assert len(rings) == 2 and link == (*sorted(rings), *(rings[k] for k in sorted(rings)))
    assert chart["keys"]["race"] == "racing accesses"
    (v,) = race_result.violations
    _assert_fits(m, [_cited(v.trace, v.situation, race_result.spec)])


@needs_browser
def test_a_kernel_counterexample_in_the_browser(tmp_path):
    report, out, err = tmp_path / "r.html", io.StringIO(), io.StringIO()
    assert run(["check", "--format", "json", "--html", str(report), str(KERNEL)], out, err) == 1, err.getvalue()
    (r,) = json.loads(out.getvalue())["results"]
    (v,) = r["violations"]
    assert v["property"] == "data_race" and r["assumptions"]
    _screenshot(tmp_path, report)
    m, page = _measure(tmp_path, report)
    first = _cited(v["trace"], (), str(KERNEL))
    _assert_fits(m, [first])
    cpp = KERNEL.read_text().splitlines()
    assert m["blocks"][0]["first_text"] == f"{first}{cpp[first - 1]}"  # the C++ line, not the skeleton's
    text = report.read_text()
    assert f"assumptions of the extraction ({len(r['assumptions'])})" in text
    assert all(escape(a["message"]) in text for a in r["assumptions"])
    assert len(page.charts[0]["race_marks"]) == 2 and len(page.charts[0]["race_links"]) == 1


def test_the_html_and_terminal_views_see_only_results():
    import ast
    from pathlib import Path

    from conftest import ROOT

    for name in ("html.py", "terminal.py"):
        tree = ast.parse((ROOT / "checker" / name).read_text())
        deps = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        deps |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        # results, and (terminal) the plain reporter's verdict line
        assert {m for m in deps if m.startswith(("checker", "model"))} <= {"checker.result", "checker.report"}, name
    assert Path(html.__file__).name == "html.py"

"""The HTML report (--html): its structure, and the page as a real headless browser renders it."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from checker import html
from checker.check import check_file
from checker.cli import run
from conftest import SPECS

BUG = "bug_a2a_reset_after_wait.sig"
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
            self.charts.append({"lanes": [], "steps": [], "arrows": [], "erased": 0, "stuck": [], "erasures": 0})
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

"""Limits hold and give `inconclusive` with the reason, never `ok`."""

import io
import signal
import subprocess
import sys
import time

import pytest

from checker.cli import run

BIG = """param N = 7;
ranks N;
signal a[N];
kernel {
  for (int p = 0; p < nranks; p++) if (p != rank) TNOTIFY(a[rank] @ p, 1, AtomicAdd);
  for (int p = 0; p < nranks; p++) if (p != rank) TWAIT(a[p], 1, GE);
}
"""


@pytest.fixture
def big(tmp_path):
    p = tmp_path / "big.sig"
    p.write_text(BIG)
    return p


def sigproof(*argv):
    """The command line, without partial-order reduction: these tests need the big unreduced
    state space of BIG (reduced, it has a few dozen states)."""
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv] + ["--no-por"], out, err)
    return code, out.getvalue()


def test_max_states_stops_exactly_at_the_limit(big):
    for limit in (1, 2, 17, 1000):
        code, out = sigproof("check", big, "--max-states", limit, "--format", "json")
        assert code == 3
        assert f'"states": {limit},' in out and '"status": "inconclusive"' in out


def test_max_states_above_the_state_count_is_a_full_run(tmp_path):
    p = tmp_path / "small.sig"
    p.write_text(BIG.replace("N = 7", "N = 2"))
    assert sigproof("check", p, "--max-states", 17)[0] == 0  # exactly 17 states: complete
    assert sigproof("check", p, "--max-states", 16)[0] == 3


def test_timeout_stops_within_a_second(big):
    start = time.monotonic()
    code, out = sigproof("check", big, "--timeout", "1")
    elapsed = time.monotonic() - start
    assert code == 3 and "time limit of 1 s reached" in out
    assert elapsed < 1 + 1.5  # the limit, plus the judgement of the partial graph


def test_memory_guard_is_inconclusive(big):
    code, out = sigproof("check", big, "--max-memory", "1")
    assert code == 3 and "memory limit of 1 MiB reached" in out


def test_ctrl_c_prints_statistics_and_exits_inconclusive(big):
    import os

    env = {**os.environ, "SIGPROOF_PROGRESS": "1"}  # so that we know when the exploration runs
    proc = subprocess.Popen([sys.executable, "-m", "checker", "check", str(big), "-j", "1", "--no-por"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    seen, deadline = "", time.monotonic() + 120
    while "states/s" not in seen and time.monotonic() < deadline:  # the first progress line: exploring
        seen += os.read(proc.stderr.fileno(), 256).decode(errors="replace")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert "INCONCLUSIVE" in out and "interrupted (Ctrl-C)" in out
    assert " states, " in out and "Traceback" not in err

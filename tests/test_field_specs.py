"""The protocols of the field (specs/field/), at the rank counts the kernels run.

Each one gives its expected verdict with the reductions on, at its shipped size (8 ranks
where the reductions reach it). At 3 ranks, where the plain search is small, the plain
search (no partial-order reduction, no symmetry) gives the same verdict, and a mutation that
breaks the protocol is found by both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.check import Options, check_program
from model import compile_spec, parse

ROOT = Path(__file__).resolve().parent.parent
FIELD = sorted((ROOT / "specs" / "field").glob("*.sig"))
PLAIN = Options(por=False, symmetry=False)

# one line of each protocol, and what breaks when it is changed
BROKEN = {
    "ring_allreduce.sig": ("TNOTIFY(ready[s] @ next, 1, Set);", "TNOTIFY(ready[0] @ next, 1, Set);"),
    "counted_epilogue.sig": ("TWAIT(done[(rank + i) % nranks], launch_id * C + c + 1, GE);",
                             "TWAIT(done[(rank + i) % nranks], launch_id * C + c + 2, GE);"),
    "syncall.sig": ("TWAIT(cores, k * nblocks, GE);", "TWAIT(cores, k * nblocks + 1, GE);"),
    "epoch_barrier.sig": ("TWAIT(epoch[p], e, GE);", "TWAIT(epoch[p], e, EQ);"),
    "deepep_barrier.sig": ("TWAIT(sig[p], 0, LE);", "TWAIT(sig[p], 0, EQ);"),
    "vllm_allreduce.sig": ("TWAIT(end[block][p], flag, GE);", "TWAIT(end[block][p], flag + 1, GE);"),
}


def program(path: Path, text: str | None = None, **params):
    return compile_spec(parse(text or path.read_text(), path.name), params)


@pytest.mark.parametrize("path", FIELD, ids=lambda p: p.name)
def test_a_field_protocol_gives_its_verdict_at_its_size(path):
    prog = program(path)
    r = check_program(prog, path.name, Options())
    assert r.stop is None and r.status == "pass", (r.violated, r.stop)
    assert r.stats.reduction == "partial-order" and r.stats.symmetry is not None
    assert r.stats.states < 10_000  # the reductions keep it small (the plain space is far larger)


@pytest.mark.parametrize("path", FIELD, ids=lambda p: p.name)
def test_at_three_ranks_the_plain_search_agrees_and_a_broken_line_is_found(path):
    small = {"N": 3, **({"B": 2} if "param B" in path.read_text() else {}),
             **({"L": 2} if "param L" in path.read_text() else {})}
    prog = program(path, **small)
    plain, reduced = check_program(prog, path.name, PLAIN), check_program(prog, path.name, Options())
    assert plain.violated == reduced.violated == [] and plain.stop is None
    assert reduced.stats.states < plain.stats.states
    old, new = BROKEN[path.name]
    text = path.read_text()
    assert old in text
    broken = program(path, text.replace(old, new), **small)
    plain, reduced = check_program(broken, path.name, PLAIN), check_program(broken, path.name, Options())
    assert plain.violated == reduced.violated != [], (plain.violated, reduced.violated)

"""The memo tables a reduced search keeps only so much of judge exactly as with room to spare.

A run at 32 ranks kept most of its memory in memo tables: the refined futures and their
images renamed onto every rank, each process's latest ones (model/independence.py REFINED_KEPT, IMAGES_KEPT,
RECENT_KEPT), the renamed process entries
and their happens-before clocks (model/symmetry.py RENAMED_KEPT, ENTRIES_KEPT, CLOCKS_KEPT), the state codec's decoded vectors and object
ids (checker/store.py RECENT_ELEMENTS, MAX_ALIASES). They are bounded now, so a long run
drops and remakes what they held. Remaking must give what was dropped: with every bound at
its smallest (everything remade, every object id forgotten at once) each spec below must
give the same verdicts, the same counterexamples, the same number of states and
transitions, and the same set of states as with the default bounds. The shipped sizes of
these specs never fill the default tables, so without this test the eviction paths would
run only in the benchmarks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import checker.store
import model.independence
import model.symmetry
from checker.check import Options, check_file

ROOT = Path(__file__).resolve().parents[2]

CASES = [  # spec, params: rank rotation, block permutations, data, launches, counterexamples
    ("specs/field/epoch_barrier.sig", {"N": 5, "L": 3}),
    ("specs/field/epoch_barrier.sig", {"N": 16, "L": 3}),  # 256 signal elements: vectors kept in chunks
    ("specs/field/deepep_barrier.sig", {"N": 6}),
    ("specs/field/vllm_allreduce.sig", {"N": 4, "B": 2}),
    ("specs/field/syncall.sig", {"N": 2, "B": 4, "K": 2}),
    ("specs/field/ring_allreduce.sig", {"N": 5}),
    ("specs/bug_a2a_reset_after_wait.sig", {"N": 4}),
    ("specs/bug_root_multi_launch_reset_race.sig", {"N": 4, "L": 3}),
    ("specs/data_barrier_two_level.sig", {"N": 3, "B": 2}),
    ("specs/data_barrier_two_level.sig", {"N": 8, "B": 2}),
    ("specs/bug_all_pairs_handoff_no_fence.sig", {"N": 3}),
    ("specs/bug_two_level_cross_reuse.sig", {"N": 3, "B": 2, "P": 2}),
    ("specs/bug_device_barrier_no_arrival.sig", {"N": 3, "B": 2}),
]


def _judged(spec: str, params: dict) -> list:
    options = Options(state_digest=True, engine="python")
    out = []
    for r in check_file(ROOT / spec, params=params, options=options):
        assert r.error is None, r.error
        out.append((r.status, r.violated, r.stop, r.violations, r.stats.states, r.stats.transitions,
                    r.stats.state_digest, r.stats.reduction, r.stats.symmetry))
    return out


@pytest.mark.parametrize("spec, params", CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_memo_tables_at_their_smallest_judge_as_with_room(spec, params, monkeypatch):
    roomy = _judged(spec, params)
    monkeypatch.setattr(model.independence, "REFINED_KEPT", 1)
    monkeypatch.setattr(model.independence, "IMAGES_KEPT", 1)
    monkeypatch.setattr(model.independence, "RECENT_KEPT", 1)
    monkeypatch.setattr(model.symmetry, "RENAMED_KEPT", 0)
    monkeypatch.setattr(model.symmetry, "ENTRIES_KEPT", 0)
    monkeypatch.setattr(model.symmetry, "CLOCKS_KEPT", 0)
    monkeypatch.setattr(checker.store, "RECENT_ELEMENTS", 1)
    monkeypatch.setattr(checker.store, "MAX_ALIASES", 0)
    tight = _judged(spec, params)
    assert tight == roomy
    assert any(row[7] or row[8] for row in roomy)  # a reduced search: the tables were used

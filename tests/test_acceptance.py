"""The issue's 'done when' scenarios, on spec texts written here."""

from helpers import check_text

A2A = """
// All-to-all barrier: every rank adds 1 to its own slot on every peer,
// then waits until each peer has added 1 to its slot here.
param N = 4;
ranks N;
signal arrived[N];

kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(arrived[rank] @ p, 1, AtomicAdd);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TWAIT(arrived[p], 1, GE);
        }
    }
}
"""

RESET_AFTER_WAIT = A2A.replace("""            TWAIT(arrived[p], 1, GE);
        }
    }""", """            TWAIT(arrived[p], 1, GE);
        }
    }
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(arrived[rank] @ p, 0, Set);
        }
    }""")

COUNTER = """
param N = 3;
ranks N;
signal count;
kernel {
    for (int p = 0; p < nranks; p++) {
        if (p != rank) {
            TNOTIFY(count @ p, 1, AtomicAdd);
        }
    }
    TWAIT(count, nranks - 1, GE);
}
"""

RING = """
param N = 3;
param K = 3;
ranks N;
signal flag;
kernel {
    for (int step = 0; step < K; step++) {
        TNOTIFY(flag @ (rank + 1) % nranks, step + 1, Set);
        TWAIT(flag, step + 1, GE);
    }
}
"""


def test_contract_example_is_ok_with_pinned_counts():
    r = check_text(A2A, por=False, symmetry=False)
    assert r.status == "pass" and r.violated == []
    assert (r.stats.states, r.stats.transitions) == (2085, 6806)
    reduced = check_text(A2A)
    assert reduced.status == "pass" and reduced.stats.reduction == "partial-order"
    assert reduced.stats.states < 2085


def test_contract_example_with_set_is_still_ok():
    # Each slot has exactly one writer, so Set works as well as AtomicAdd here.
    assert check_text(A2A.replace("AtomicAdd", "Set")).violated == []


def test_counter_barrier_with_set_instead_of_add_deadlocks():
    assert check_text(COUNTER).violated == []
    r = check_text(COUNTER.replace("AtomicAdd", "Set"))
    assert r.violated == ["deadlock"]
    stuck = [x.text for x in r.violations[0].situation]
    assert any("TWAIT(count, nranks - 1, GE) waits for >= 2; now count@" in line for line in stuck)


def test_reset_after_wait_deadlocks_and_loses_a_notification():
    r = check_text(RESET_AFTER_WAIT)
    assert r.violated == ["deadlock", "lost_notification"]
    lost = [v for v in r.violations if v.property == "lost_notification"][0]
    assert lost.trace[-1].statement == "TNOTIFY(arrived[rank] @ p, 0, Set)"
    assert "would be satisfied by 1 but not by 0" in lost.message


def test_ring_with_ge_is_ok_and_with_eq_loses_and_deadlocks():
    assert check_text(RING).violated == []
    r = check_text(RING.replace("GE);", "EQ);"))
    assert r.violated == ["deadlock", "lost_notification"]


def test_every_violation_has_its_own_shortest_trace():
    r = check_text(RESET_AFTER_WAIT, {"N": 2})
    by = {v.property: v for v in r.violations}
    assert len(by["lost_notification"].trace) <= len(by["deadlock"].trace)
    steps = [s.step for s in by["deadlock"].trace]
    assert steps == list(range(1, len(steps) + 1))


def test_bfs_and_dfs_agree_on_verdicts():
    for text in (A2A, RESET_AFTER_WAIT, COUNTER.replace("AtomicAdd", "Set"), RING.replace("GE);", "EQ);")):
        assert check_text(text, {"N": 3}).violated == check_text(text, {"N": 3}, order="dfs").violated

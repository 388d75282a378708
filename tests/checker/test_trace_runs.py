"""The terminal and CI reports show a run of data accesses (or races) to neighbouring
elements of one buffer row as one line (`shown`); JSON keeps every element."""

from checker.result import DataAccess, ElementRef, Raced, TraceStep, shown
from model.errors import Span


def step(*effects) -> TraceStep:
    return TraceStep(1, None, Span("t.sig", 1, 1, 1, 2), "TPUT(...)", tuple(effects))


def ref(name, *index, rank=0):
    return ElementRef(name, tuple(index), rank)


def test_a_row_is_one_line_and_rows_gaps_kinds_and_ranks_split_it():
    s = step(*(DataAccess(ref("m", i, j), "read") for i in range(2) for j in range(3)),
             DataAccess(ref("b", 0), "write"), DataAccess(ref("b", 2), "write"),
             DataAccess(ref("b", 3), "atomic"), DataAccess(ref("b", 4), "atomic", ),
             DataAccess(ref("b", 5, rank=1), "atomic"))
    assert [text for _, text in s.shown] == [
        "reads data m[0][0..2]@0 (3 elements)", "reads data m[1][0..2]@0 (3 elements)",
        "writes data b[0]@0", "writes data b[2]@0",
        "adds to data b[3..4]@0 (2 elements)", "adds to data b[5]@1"]


def test_races_run_only_with_the_same_earlier_access():
    s = step(Raced(ref("d", 0, rank=1), "rank 0 block 0", "write"), Raced(ref("d", 1, rank=1), "rank 0 block 0", "write"),
             Raced(ref("d", 2, rank=1), "rank 0 block 1", "write"))
    assert [text for _, text in s.shown] == [
        "data race on d[0..1]@1 (2 elements) with the earlier write by rank 0 block 0",
        "data race on d[2]@1 with the earlier write by rank 0 block 1"]


def test_other_effects_pass_through():
    assert shown([("write", "ready@1: 0 -> 1", None), ("write", "ready@1: 1 -> 2", None)]) == (
        ("write", "ready@1: 0 -> 1"), ("write", "ready@1: 1 -> 2"))

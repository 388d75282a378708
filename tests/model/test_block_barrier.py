"""`block_barrier;`: every block of a rank's launch meets there, then all pass in one joint step."""

import pytest
from helpers import check_text, compile_text, system_of, violated

from model import SpecErrors
from model.system import block_barrier
from oracles.agreement import agree, reduced_agrees

PARTS = """
ranks 2; blocks 2;
signal part[2];
signal total;
kernel {
    TNOTIFY(part[block], block + 1, Set);
    block_barrier;
    if (block == 0) {
        TWAIT(part[1], 2, EQ);                 // block 1's part is there: the barrier ordered it
        TNOTIFY(total @ (rank + 1) % nranks, 1, AtomicAdd);
    }
}
"""


def test_block_barrier_is_a_kernel_statement():
    with pytest.raises(SpecErrors) as info:
        compile_text("ranks 1; host { block_barrier; launch; } kernel { }")
    err = info.value.errors[0]
    assert "'block_barrier' is a kernel statement" in err.message and (err.span.line, err.span.col) == (1, 17)


def test_one_joint_step_per_rank_when_every_block_has_arrived():
    s = system_of("ranks 2; blocks 2; kernel { block_barrier; }")
    state, _ = s.initial()
    for r in (0, 1):  # both hosts launch
        state = next(st for st in s.successors(state) if st.process == r).next
    steps = s.successors(state)
    assert [st.process for st in steps] == [block_barrier(0), block_barrier(1)]
    assert s.process_name(block_barrier(1)) == "rank 1 all blocks"
    after = s.step(state, block_barrier(0)).next
    assert after.procs[2:4] == (None, None) and after.procs[4:6] == state.procs[4:6]
    assert s.step(after, block_barrier(0)) is None


def test_the_barrier_orders_the_blocks_and_states_are_pinned():
    r = check_text(PARTS, por=False, symmetry=False)
    assert r.violated == [] and (r.stats.states, r.stats.transitions) == (81, 162)
    reduced = check_text(PARTS)
    assert reduced.violated == [] and reduced.stats.states < 81


def test_without_the_barrier_block_0_can_miss_block_1s_part():
    # block 0 reads part[1] before block 1 has written it: still fine (it waits), but an
    # assertion on the value shows the order the barrier gives
    text = PARTS.replace("TWAIT(part[1], 2, EQ);", "assert(TTEST(part[1], 2, EQ));")
    assert violated(text) == set()
    assert violated(text.replace("block_barrier;", "")) == {"assertion"}


def test_a_block_that_returned_never_arrives():
    r = check_text("ranks 1; blocks 2; kernel { if (block == 1) return; block_barrier; }")
    assert r.violated == ["deadlock"]
    stuck = [s.text for s in r.violations[0].situation]
    assert any("block_barrier waits for rank 0 block 1" in t for t in stuck)


def test_the_trace_names_the_joint_step():
    r = check_text("ranks 1; blocks 2; kernel { block_barrier; assert(block == 0); }")
    (v,) = r.violations
    step = v.trace[-1]
    assert step.process == "rank 0 all blocks" and step.statement == "block_barrier"
    assert "every block of rank 0 passes the block_barrier" in [e.text for e in step.effects]


def test_each_launch_meets_on_its_own():
    text = "ranks 1; blocks 2; signal f; host { launch; launch; } kernel { TNOTIFY(f, 1, AtomicAdd); block_barrier; }"
    assert violated(text) == set()


@pytest.mark.parametrize("text", [
    PARTS,
    "ranks 1; blocks 2; kernel { if (block == 1) return; block_barrier; }",
    "ranks 2; blocks 2; signal f[2]; host { launch; reset f; launch; } "
    "kernel { TNOTIFY(f[block] @ (rank + 1) % nranks, 1, Set); block_barrier; TWAIT(f[1 - block], 1, EQ); }",
])
def test_block_barrier_agrees_with_the_reference_reduced_and_not(text):
    agree(text)
    reduced_agrees(text)


def test_block_barrier_orders_data_accesses():
    text = """
    ranks 1; blocks 2;
    buffer buf[1];
    kernel {
        if (block == 0) { WRITE(buf[0]); }
        block_barrier;
        if (block == 1) { READ(buf[0]); }
    }
    """
    assert violated(text) == set()
    assert violated(text.replace("block_barrier;", "")) == {"data_race"}

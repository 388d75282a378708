"""Every check of the symmetry detectors (model/symmetry.py), shown to be needed.

Each refusal of the rank rotation and of the block permutations has a small kernel here
with one statement that breaks the symmetry (marked `// breaks`). The test asks two things:
- the detector refuses the symmetry, with a reason located on that statement's line;
- renaming anyway (the detector's own typing, with its reasons dropped) is not a symmetry:
  on the whole unreduced state graph some renamed step is no step (tests/oracles/agreement.py
  `rotation_maps_the_graph`, `blocks_map_the_graph`). So the refusal is needed, not merely
  cautious.
Each comparison of `block` with a constant cuts the blocks into classes; the kernels of
BLOCK_CUTS pin the classes they leave, and the claimed permutations are checked on the graph.

Stop 49 removed each of these checks, one at a time, in a scratch copy: each removal made
the test of its kernel here fail (docs/trust.md 3b, "The audit of every check").
"""

from __future__ import annotations

import pytest
from oracles.agreement import blocks_map_the_graph, compile_text, reachable, rotation_maps_the_graph

from model import System
from model.semantics import Semantics
from model.symmetry import Blocks, Symmetry, _BlockTyping, analyse

RANK_BREAKERS = {
    "fixed_rank": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  if (rank == 0) { TNOTIFY(f @ next, 1, AtomicAdd); }  // breaks
  TWAIT(f, 1, GE); }
""",
    "ordered_ranks": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks;
  if (rank < next) { TNOTIFY(f @ next, 1, AtomicAdd); }  // breaks
  }
""",
    "fixed_target": """\
ranks 2; signal f;
kernel {
  TNOTIFY(f @ 0, 1, AtomicAdd);  // breaks
  }
""",
    "counted_loop_over_ranks": """\
ranks 3; signal f;
kernel {
  for (int p = 0; p < nranks; p++) { if (p != rank) { TNOTIFY(f @ p, 1, AtomicAdd); TWAIT(f, p + 1, GE); } }  // breaks
  }
""",
    "any_bound": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  int v = any(0, rank);  // breaks
  TNOTIFY(f @ next, v + 1, AtomicAdd); TWAIT(f, 2, GE); }
""",
    "any_not_every_rank": """\
ranks 3; signal f;
kernel {
  int t = any(0, 1);
  TNOTIFY(f @ t, 1, AtomicAdd); }  // breaks
""",
    "array_index": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks; int a[2] = {1, 2};
  TNOTIFY(f @ next, a[rank], AtomicAdd);  // breaks
  TWAIT(f, 2, GE); }
""",
    "array_mixed": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks;
  int a[2] = {next, 0}; int i = any(0, 1);
  TNOTIFY(f @ next, a[i], Set); }  // breaks
""",
    "assert_cond": """\
ranks 2; signal f;
kernel {
  assert(rank);  // breaks
  }
""",
    "branch_cond": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  if (rank) { TNOTIFY(f @ next, 1, AtomicAdd); }  // breaks
  }
""",
    "declared_view": """\
ranks 3; signal w[6]; view v[3][2] = w;
kernel { int next = (rank + 1) % nranks;
  TNOTIFY(v[rank][0] @ next, 1, AtomicAdd);  // breaks
  TWAIT(v[(rank + 2) % nranks][0], 1, GE); }
""",
    "dim_mixed": """\
ranks 3; signal m[3];
kernel { int next = (rank + 1) % nranks; TNOTIFY(m[rank] @ next, 1, AtomicAdd);
  TWAIT(m[1], 1, GE);  // breaks
  }
""",
    "dim_size": """\
ranks 3; signal m[4];
kernel { int next = (rank + 1) % nranks;
  TNOTIFY(m[rank] @ next, 1, AtomicAdd);  // breaks
  TWAIT(m[rank], 1, GE); }
""",
    "mod_negative": """\
ranks 3; signal f;
kernel {
  int t = (rank - 1) % nranks;  // breaks
  TNOTIFY(f @ t, 1, AtomicAdd); }
""",
    "mod_nonlinear": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks;
  TNOTIFY(f @ next, (rank * 2) % nranks + 1, AtomicAdd);  // breaks
  TWAIT(f, 3, GE); }
""",
    "mod_not_nranks": """\
ranks 3; signal f;
kernel {
  int t = (rank + 1) % 2;  // breaks
  TNOTIFY(f @ t, 1, AtomicAdd); }
""",
    "mod_tworanks": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks;
  int t = (rank + next) % nranks;  // breaks
  TNOTIFY(f @ next, t + 1, AtomicAdd); }
""",
    "multi_wait": """\
ranks 2; signal m[2];
kernel { int next = (rank + 1) % nranks; TNOTIFY(m[rank] @ next, 1, AtomicAdd);
  TWAIT(m, 0, EQ);  // breaks
  }
""",
    "nonnegative": """\
ranks 3; signal f;
kernel { int x = any(0, 1); x = x - 1;
  int t = (rank + x) % nranks;  // breaks
  TNOTIFY(f @ t, 1, AtomicAdd); }
""",
    "notify_value": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  TNOTIFY(f @ next, rank, Set);  // breaks
  }
""",
    "select_mixed": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks; bool b = TTEST(f, 1, GE);
  int t = b ? next : 0;  // breaks
  TNOTIFY(f @ next, t + 1, AtomicAdd); }
""",
    "select_test": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  TNOTIFY(f @ next, rank ? 1 : 2, AtomicAdd);  // breaks
  TWAIT(f, 2, GE); }
""",
    "slice_bound": """\
ranks 3; signal f; signal g[3];
kernel { int next = (rank + 1) % nranks;
  TWAIT(g[rank:3], 0, EQ);  // breaks
  TNOTIFY(f @ next, 1, AtomicAdd); }
""",
    "slot_mixed": """\
ranks 3; signal f;
kernel { int t = (rank + 1) % nranks; TNOTIFY(f @ t, 1, AtomicAdd);
  t = 0;  // breaks
  TNOTIFY(f @ t, 1, AtomicAdd); }
""",
    "store_value": """\
ranks 2; signal f;
kernel { int next = (rank + 1) % nranks;
  STORE(f @ next, rank);  // breaks
  }
""",
    "unary": """\
ranks 3; signal f;
kernel { int next = (rank + 1) % nranks;
  if (-rank < -1) { TNOTIFY(f @ next, 1, AtomicAdd); }  // breaks
  }
""",
    "wait_value": """\
ranks 2; signal f;
kernel {
  TWAIT(f, rank, GE);  // breaks
  }
""",
}

BLOCK_BREAKERS = {
    "data_buffer": """\
ranks 1; blocks 2; signal c; buffer d;  // breaks
kernel { WRITE(d);  // breaks
  }
""",
    "arithmetic_operand": """\
ranks 1; blocks 3; signal c;
kernel { TNOTIFY(c, 1, AtomicAdd);
  TWAIT(c, block + 1, GE); }  // breaks
""",
    "any_bound": """\
ranks 1; blocks 3; signal c;
kernel { int v = any(0, block);  // breaks
  TNOTIFY(c, v + 1, AtomicAdd); TWAIT(c, 6, GE); }
""",
    "arithmetic": """\
ranks 1; blocks 3; signal s[3];
kernel { TNOTIFY(s[(block + 1) % nblocks], 1, AtomicAdd);  // breaks
  TWAIT(s[block], 1, GE); }
""",
    "array_index": """\
ranks 1; blocks 3; signal c;
kernel { int a[3] = {1, 2, 3};
  TNOTIFY(c, a[block], AtomicAdd);  // breaks
  TWAIT(c, 6, GE); }
""",
    "block_as_rank": """\
ranks 2; blocks 2; signal c;
kernel { TNOTIFY(c @ block, 1, AtomicAdd);  // breaks
  TWAIT(c, 1, GE); }
""",
    "declared_view_index": """\
ranks 1; blocks 2; signal w[4]; view v[2][2] = w;
kernel { TNOTIFY(v[block][1], 1, AtomicAdd);  // breaks
  TWAIT(w[3], 1, GE); }
""",
    "declared_view_on_blocks": """\
ranks 1; blocks 4; signal s[4]; view v[2][2] = s;
kernel { TNOTIFY(s[block], 1, AtomicAdd); TWAIT(v[0][1], 1, GE); }  // breaks
""",
    "dimension_counted": """\
ranks 1; blocks 3; signal s[3];
kernel { TNOTIFY(s[block], 1, AtomicAdd);
  for (int i = 0; i < 2; i++) { TWAIT(s[i], 1, GE); }  // breaks
  }
""",
    "dimension_not_nblocks": """\
ranks 1; blocks 3; signal s[2];
kernel { TNOTIFY(s[block], 1, AtomicAdd);  // breaks
  }
""",
    "local_holds_block": """\
ranks 1; blocks 3; signal c;
kernel { int me = block;  // breaks
  TNOTIFY(c, me, AtomicAdd); TWAIT(c, 3, GE); }
""",
    "non_constant": """\
ranks 1; blocks 3; signal c;
kernel { for (int i = 0; i < 2; i++) {
    if (block == i) { TNOTIFY(c, 1, AtomicAdd); }  // breaks
  }
  TWAIT(c, 2, GE); }
""",
    "notify_value": """\
ranks 1; blocks 3; signal c;
kernel { TNOTIFY(c, block, AtomicAdd);  // breaks
  TWAIT(c, 3, GE); }
""",
    "select_branch": """\
ranks 1; blocks 3; signal c;
kernel { bool b = TTEST(c, 1, GE);
  TNOTIFY(c, b ? block : 1, AtomicAdd);  // breaks
  TWAIT(c, 3, GE); }
""",
    "slice_bound": """\
ranks 1; blocks 3; signal g[3]; signal c;
kernel { TWAIT(g[block:3], 0, EQ);  // breaks
  TNOTIFY(c, 1, AtomicAdd); }
""",
    "slice_step": """\
ranks 1; blocks 4; signal s[4];
kernel { TNOTIFY(s[block], 1, AtomicAdd);
  TWAIT(s[0:4:2], 1, GE); }  // breaks
""",
    "store_value": """\
ranks 1; blocks 3; signal c;
kernel { STORE(c, block);  // breaks
  }
""",
    "two_block_dimensions": """\
ranks 1; blocks 3; signal s[3][3];
kernel { TNOTIFY(s[block][block], 1, AtomicAdd);  // breaks
  TWAIT(s[block][block], 1, GE); }
""",
    "unary": """\
ranks 1; blocks 4; signal c;
kernel { if (-block < -1) { TNOTIFY(c, 1, AtomicAdd); }  // breaks
  TWAIT(c, 2, GE); }
""",
    "wait_in_index_order": """\
ranks 1; blocks 3; signal s[3];
kernel { TNOTIFY(s[block], 1, AtomicAdd);
  TWAIT(s, 1, EQ); }  // breaks
""",
    "wait_value": """\
ranks 1; blocks 3; signal c;
kernel { TNOTIFY(c, 1, AtomicAdd);
  TWAIT(c, block, GE); }  // breaks
""",
}
# the same kernels' blocks kept alike: (kernel, what the detector claims)
BLOCK_CUTS = {
    # two blocks at one entry, told apart only by what they wrote: the representative must
    # sort them by their signal values too (one representative per orbit)
    # two polling blocks at one entry, one of which has read the pending 5 (its reader bit
    # cleared): the representative must sort them by their reader bits too
    "equal_entries_unequal_reader_bits": ("""\
ranks 1; blocks 3; signal c;
kernel { if (block == 0) { TNOTIFY(c, 5, Set); TNOTIFY(c, 6, Set); } else { while (!TTEST(c, 5, EQ)) { } } }
""", "permutations of blocks 1-2 on each rank"),
    "equal_entries_unequal_values": ("""\
ranks 1; blocks 3; signal s[3]; signal c;
kernel { if (block == 0) { TWAIT(c, 1, GE); } else { int k = any(0, 1); TNOTIFY(s[block], k, Set); k = 0; TWAIT(c, 1, GE); } }
""", "permutations of blocks 1-2 on each rank"),
    "and_condition": ("""\
ranks 1; blocks 3; signal c;
kernel { if (block && launch_id == 0) { TNOTIFY(c, 1, AtomicAdd); } else { TWAIT(c, 2, GE); } }
""", "permutations of blocks 1-2 on each rank"),
    "at_most_one": ("""\
ranks 1; blocks 4; signal c;
kernel { if (block <= 1) { TNOTIFY(c, 1, AtomicAdd); } else { TWAIT(c, 2, EQ); TNOTIFY(c, 2, AtomicAdd); } }
""", "permutations of blocks 0-1, 2-3 on each rank"),
    "bare_condition": ("""\
ranks 1; blocks 3; signal c;
kernel { if (block) { TNOTIFY(c, 1, AtomicAdd); } else { TWAIT(c, 2, GE); } }
""", "permutations of blocks 1-2 on each rank"),
    "constant_index": ("""\
ranks 1; blocks 4; signal s[4];
kernel { TNOTIFY(s[block], 1, Set); TWAIT(s[1], 1, GE); TNOTIFY(s[block], 2, Set); }
""", "permutations of blocks 2-3 on each rank"),
    "equal_to_one": ("""\
ranks 1; blocks 4; signal c;
kernel { if (block == 1) { TWAIT(c, 3, GE); } else { TNOTIFY(c, 1, AtomicAdd); } }
""", "permutations of blocks 2-3 on each rank"),
    "greater_than_one": ("""\
ranks 1; blocks 4; signal c;
kernel { if (block > 1) { TNOTIFY(c, 1, AtomicAdd); } else { TWAIT(c, 2, EQ); TNOTIFY(c, 2, AtomicAdd); } }
""", "permutations of blocks 0-1, 2-3 on each rank"),
    "host_reset_slice": ("""\
ranks 1; blocks 4; signal s[4]; signal c;
host { launch; reset s[1:3]; launch; }
kernel { TWAIT(s[block], launch_id, EQ); TNOTIFY(s[block], 1, AtomicAdd); }
""", "permutations of blocks 1-2 on each rank"),
    "negated_condition": ("""\
ranks 1; blocks 3; signal c;
kernel { if (!block) { TWAIT(c, 2, GE); } else { TNOTIFY(c, 1, AtomicAdd); } }
""", "permutations of blocks 1-2 on each rank"),
    "remote_block_index": ("""\
ranks 2; blocks 2; signal s[2];
kernel { int next = (rank + 1) % nranks; TNOTIFY(s[block] @ next, 1, AtomicAdd); TWAIT(s[block], 1, GE); }
""", "rotation of the 2 ranks and permutations of blocks 0-1 alike on every rank"),
    "select_condition": ("""\
ranks 1; blocks 3; signal c;
kernel { TNOTIFY(c, block ? 1 : 3, AtomicAdd); TWAIT(c, 5, EQ); }
""", "permutations of blocks 1-2 on each rank"),
}


def _marked(text: str) -> set[int]:
    return {n for n, line in enumerate(text.split("\n"), 1) if "// breaks" in line}


@pytest.mark.parametrize("name", sorted(RANK_BREAKERS))
def test_a_statement_that_breaks_the_rotation_is_refused_on_its_line_and_really_breaks_it(name):
    text = RANK_BREAKERS[name]
    system = System(compile_text(text))
    sym, reasons = Symmetry.rotation_of(system)
    assert sym is None
    assert {r.span.line for r in reasons if r.span is not None} & _marked(text), reasons
    typing = analyse(system.program, system.analysis)
    typing.reasons.clear()
    with pytest.raises(AssertionError, match="renaming does not map"):
        rotation_maps_the_graph(Symmetry(system, typing), reachable(system))


@pytest.mark.parametrize("name", sorted(BLOCK_BREAKERS))
def test_a_statement_that_tells_blocks_apart_is_refused_on_its_line_and_really_does(name):
    text = BLOCK_BREAKERS[name]
    system = System(compile_text(text))
    sym, reasons = Blocks.of(system, None)
    assert sym is None
    assert {r.span.line for r in reasons if r.span is not None} & _marked(text), reasons
    typing = _BlockTyping(system.program, system.atomic_waits)
    typing.run()
    typing.reasons.clear()
    if name == "dimension_not_nblocks":  # a block past the dimension's end: the renaming cannot even be applied
        with pytest.raises(ValueError, match="extended slice"):
            blocks_map_the_graph(Blocks(system, typing, typing.classes(), None), reachable(system))
        return
    with pytest.raises(AssertionError, match="does not map the successors"):
        blocks_map_the_graph(Blocks(system, typing, typing.classes(), None), reachable(system))


@pytest.mark.parametrize("name", sorted(BLOCK_CUTS))
def test_comparisons_with_constants_leave_exactly_these_blocks_alike(name):
    text, claimed = BLOCK_CUTS[name]
    system = System(compile_text(text))
    sym, _ = Symmetry.of(system)
    assert sym is not None and sym.describe() == claimed
    blocks_map_the_graph(sym, reachable(system))


LINES = Semantics(set_granularity="line")
LINE_KERNELS = {  # a Set rewrites its 64-byte line: the line boundary cuts the rank (block) dimension
    "ranks": """\
ranks 3; signal pad[15]; signal m[3];
kernel { int next = (rank + 1) % nranks; int prev = (rank + 2) % nranks;
  TNOTIFY(m[rank] @ next, 1, Set); TNOTIFY(m[rank] @ prev, 1, AtomicAdd); }
""",
    "blocks": """\
ranks 1; blocks 4; signal pad[14]; signal s[4];
kernel { TNOTIFY(s[block], 1, Set); }
""",
}


@pytest.mark.parametrize("name", sorted(LINE_KERNELS))
def test_set_granularity_line_gets_no_symmetry_and_renaming_would_be_wrong(name):
    text = LINE_KERNELS[name]
    system = System(compile_text(text), LINES)
    assert Symmetry.of(system)[0] is None
    assert Symmetry.of(System(compile_text(text)))[0] is not None  # word granularity: the symmetry holds
    graph = reachable(system)
    if name == "ranks":
        typing = analyse(system.program, system.analysis)
        with pytest.raises(AssertionError, match="renaming does not map"):
            rotation_maps_the_graph(Symmetry(system, typing), graph)
    else:
        typing = _BlockTyping(system.program, system.atomic_waits)
        typing.run()
        with pytest.raises(AssertionError, match="does not map the successors"):
            blocks_map_the_graph(Blocks(system, typing, typing.classes(), None), graph)

"""Block symmetry (model/symmetry.py `Blocks`) against the plain exhaustive search.

The same three layers as the rank rotation's (tests/model/test_symmetry.py), on random
multi-block kernels (tests/oracles/strategies_blocks.py):
- the detector never claims a permutation the program lacks: each generator is checked on
  the whole unreduced state graph, and kernels with one statement that tells blocks apart
  are refused with its location;
- one representative per orbit (with a permutation per rank), always a state of the orbit;
- the search with the symmetry (with and without partial-order reduction) judges exactly
  as the networkx reference, and every counterexample replays step by step on the
  unreduced semantics; the stubborn sets chosen with each block's future renamed from its
  class's first block are those chosen with every future computed on its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, reject, settings
from oracles.agreement import blocks_are_real, compile_text, same_stubborn_sets, symmetric_agrees
from oracles.strategies_blocks import block_specs

from checker.check import Options, check_program
from model import System, compile_spec, parse
from model.symmetry import Blocks, Symmetry

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FAST
@given(block_specs())
def test_claimed_block_permutations_map_the_whole_graph_onto_itself(text):
    blocks_are_real(text)


@settings(FAST, max_examples=50)
@given(block_specs())
def test_claimed_block_permutations_are_real_with_atomic_tensor_waits(text):
    blocks_are_real(text, atomic_waits=True)


@settings(FAST, max_examples=100)
@given(block_specs(break_it=True))
def test_a_statement_that_tells_blocks_apart_is_refused_with_its_location(text):
    system = System(compile_text(text))
    sym, reasons = Blocks.of(system, None)
    assert sym is None
    assert any(r.span is not None and r.span.line > 0 for r in reasons)


@settings(FAST, max_examples=60)
@given(block_specs())
def test_the_block_symmetric_search_judges_like_the_reference(text):
    if Symmetry.of(System(compile_text(text)))[0] is None:
        reject()
    symmetric_agrees(text)


@settings(FAST, max_examples=100)
@given(block_specs())
def test_block_futures_renamed_from_the_first_block_pick_thesame_stubborn_sets(text):
    program = compile_text(text)
    sym, _ = Symmetry.of(System(program))
    if sym is None or sym.group != "blocks" or same_stubborn_sets(program) is None:
        reject()


# ---------------------------------------------------------------- shipped specs and the CLI

SYNCALL = ROOT / "specs" / "field" / "syncall.sig"
VLLM = ROOT / "specs" / "field" / "vllm_allreduce.sig"


def test_the_syncall_workers_are_permuted_on_each_rank_and_judged_the_same():
    program = compile_spec(parse(SYNCALL.read_text(), str(SYNCALL)), {"N": 2, "B": 4, "K": 2})
    both = check_program(program, "syncall", Options(por=False))
    plain = check_program(program, "syncall", Options(por=False, symmetry=False, engine="python"))
    assert both.stats.symmetry == "rotation of the 2 ranks and permutations of blocks 1-3 on each rank"
    assert both.violated == plain.violated == []
    # blocks 1-3 of each rank in any order, and the two ranks: up to 3! * 3! * 2 = 72 per orbit
    assert (both.stats.states, plain.stats.states) == (4201, 64338)


def test_the_vllm_blocks_are_permuted_alike_on_every_rank():
    program = compile_spec(parse(VLLM.read_text(), str(VLLM)), {"N": 2, "B": 3, "L": 1})
    sym, _ = Symmetry.of(System(program))
    assert sym.describe() == "rotation of the 2 ranks and permutations of blocks 0-2 alike on every rank"
    assert not sym.per_rank  # start[block][rank] @ p: a block's flag on another rank
    r = check_program(program, "vllm", Options(por=False, engine="python"))
    plain = check_program(program, "vllm", Options(por=False, symmetry=False, engine="python"))
    assert r.violated == plain.violated == [] and r.stats.states * 6 < plain.stats.states


def test_explain_symmetry_names_the_blocks_and_what_tells_them_apart():
    out = subprocess.run([sys.executable, "-m", "checker", "check", "--explain-symmetry", "--no-timing",
                          str(SYNCALL), str(ROOT / "specs" / "ttest_polling.sig")],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("symmetry of") and "syncall" in line and
               "rotation of the 8 ranks and permutations of blocks 1-3 on each rank" in line for line in lines)
    k = next(k for k, line in enumerate(lines) if line.startswith("symmetry of") and "ttest_polling" in line)
    assert lines[k].endswith(": none")
    at = lines.index("  no block permutations:", k)
    assert "ttest_polling.sig:33:23: a hardware wait reads the elements of a block dimension" in lines[at + 1]
    assert "(partial-order reduced, symmetry: rotation of the 8 ranks and permutations of blocks 1-3 on each rank)" \
        in out.stdout


def test_a_block_counterexample_is_a_concrete_trace():
    text = (ROOT / "specs" / "bug_wrong_count.sig").read_text()
    r = check_program(compile_text(text), "x.sig", Options(por=False))
    assert r.stats.symmetry == "rotation of the 2 ranks and permutations of blocks 1-2 on each rank"
    assert r.violated == ["deadlock"]
    symmetric_agrees(text)  # the same verdicts as the reference; each trace replays on the unreduced semantics

"""`sigproof prove` with a host `reset` (checker/gcs.py, checker/prove_smt.py): the command sets
the own rank's copy of a signal (or one element) back to INIT, and the lost-notification
obligation asks whether a wait of a later launch could need what it erases. With no launch
after the reset (the clean-up at exit), no reader is left: nothing is asked. Between
launches, a peer already in its next launch may have raised the flag: the obligation stays
open (the explicit engine shows the loss at N = 2)."""

from pathlib import Path

import pytest
from helpers import parse, prover_alone, refuted_and_never_proved_alone

from checker import gcs
from checker import prove as prove_mod
from checker import prove_smt as smt
from checker.prove import UNPROVED
from model import compile_spec, ir

FIXTURES = Path(__file__).resolve().parent / "prove_reset"
AT_EXIT = str(FIXTURES / "reset_at_exit.sig")
BETWEEN = str(FIXTURES / "reset_between_launches.sig")
RING_ALLREDUCE = str(Path(__file__).resolve().parents[2] / "specs" / "field" / "ring_allreduce.sig")


def _prover(path: str):
    spec = parse(Path(path).read_text(), path)
    gc = prove_mod.commands(spec, compile_spec(spec, {}), ["N"], {"N": 2})
    return smt.Prover(gc, {"N": 2}), gc


@pytest.mark.parametrize(("path", "again"), [(AT_EXIT, False), (BETWEEN, True)])
def test_a_launch_after_the_reset_is_read_from_the_host_code(path, again):
    prover, gc = _prover(path)
    (reset,) = [x for x in gc.host.instrs if isinstance(x, ir.Reset)]
    assert prover.launch_after(reset) is again


def test_the_reset_clears_the_own_rank_copy_at_every_size():
    _, gc = _prover(AT_EXIT)
    conc = gcs.Concrete(gc, {"N": 3})
    finals = [s for s in conc.reachable() if not conc.successors(s)]
    assert len(finals) == 1
    assert finals[0][5] == (0, 0, 0)  # every flag back at INIT
    raised = [s for s in conc.reachable() if any(s[5])]
    assert raised  # and raised on the way


def test_a_reset_between_launches_fails_and_is_never_proved_by_the_prover_alone():
    refuted_and_never_proved_alone(BETWEEN, "deadlock and lost_notification at N = 2",
                                   "lost notification: the reset at", "reset_between_launches.sig:12:9")


def test_a_reset_at_exit_asks_no_lost_notification():
    proof = prover_alone(AT_EXIT)
    assert proof.verdict == UNPROVED  # deadlock freedom needs a clause of four literals (docs/prove.md)
    assert not any("lost notification" in r for r in proof.reasons), proof.reasons


def test_the_field_ring_allreduce_is_inside_the_fragment():
    """Its computed dimension 2 * (N - 1), its loop bound and its reset at exit are read into
    guarded commands (its proof, which needs index clauses: tests/checker/test_prove_index.py)."""
    _, gc = _prover(RING_ALLREDUCE)
    assert [type(gc.host.instrs[pc]).__name__ for pc in gc.host.visible()] == ["Launch", "Join", "Reset"]
    assert gc.sizes.dims_of("ready") != (2 * (8 - 1),)  # an expression of N, not the folded 14


def test_the_reset_command_clears_the_own_copy_and_nothing_else():
    """The reset step's post-state, read as formulas: every element of `ready` at the acting
    rank is INIT, every element at another rank is what it was."""
    import z3  # noqa: PLC0415

    prover, gc = _prover(RING_ALLREDUCE)
    (st,) = [s for s in smt.steps(prover.enc, prover.pre, prover.a) if s.reset is not None]
    e, h = z3.Ints("e h")
    dim = prover.enc.dim(gc.sizes.dims_of("ready")[0])
    for claim in (st.post.cell("ready", prover.a, [e]) == 0,
                  z3.Implies(h != prover.a, st.post.cell("ready", h, [e]) == prover.pre.cell("ready", h, [e]))):
        s = z3.Solver()
        s.add(*prover.domain, prover.in_range(prover.a), prover.in_range(h), e >= 0, e < dim, *st.guard)
        s.add(z3.Not(claim))
        assert s.check() == z3.unsat, claim

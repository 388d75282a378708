"""`sigproof prove`'s lost-notification obligation (checker/prove_smt.py `Prover.loses`).

The contract calls a notification lost when a Set replaces a value that a wait still to read
it accepts by one that wait rejects. The prover asks, for each Set, whether some wait on the
signal, run by the rank that holds the cell (with its selectors equal to the indices
written, any values for its other locals), accepts the old value and not the new one; unsat
for every Set proves that nothing is lost. A fixed threshold (`TWAIT(flag, 1, EQ)`) and a
threshold of the local that picks the slot (`TWAIT(slot[prev], prev + 1, EQ)`) are what make
write-once EQ handshakes provable; a second Set of another value stays unproved.
"""

from pathlib import Path

import z3
from helpers import proved_once, parse, prover_alone, refuted_and_never_proved_alone

from checker import prove as prove_mod
from checker import prove_smt as smt
from checker.prove import PROVED
from model import ir
from model import compile_spec

FIXTURES = Path(__file__).resolve().parent / "prove_lost"
ONCE = str(FIXTURES / "ring_once_eq.sig")
SLOT = str(FIXTURES / "ring_slot_eq.sig")
TWICE = str(FIXTURES / "ring_twice_eq.sig")


proved = proved_once


def test_a_write_once_eq_ring_is_proved_for_every_size():
    proof = proved(ONCE)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert "lost_notification" in proof.properties


def test_a_threshold_of_the_slot_local_is_read_at_the_slot_written():
    """Only `prev == p` reads slot[p]: the wait's threshold there is p + 1, what the Set
    writes. Read as any value (the selector not tied to the index), the 0 -> p + 1 change
    could lose a value an EQ wait accepts, and the ring would stay unproved."""
    proof = proved(SLOT)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)


def test_a_second_set_of_another_value_fails_and_is_never_proved_by_the_prover_alone():
    refuted_and_never_proved_alone(TWICE, "deadlock and lost_notification at N = 2",
                                   "lost notification: the Set at", "ring_twice_eq.sig:11:5")
    proof = prover_alone(TWICE)  # the first Set, which replaces INIT, is not suspected
    assert not any("ring_twice_eq.sig:10:5" in r for r in proof.reasons), proof.reasons


def _second_set(text: str):
    """The prover of a spec, its obligation readers, and the notify of its kernel's second Set."""
    spec = parse(text, "x.sig")
    gc = prove_mod.commands(spec, compile_spec(spec, {}), ["N"], {"N": 2})
    prover = smt.Prover(gc, {"N": 2})
    sets = [st for st in smt.steps(prover.enc, prover.pre, prover.a)
            if st.notify is not None and st.notify[0].op == ir.SET]
    return prover, prove_mod.readers(gc), sets[-1]


ROOT_SETS_TWICE = """protocol p;
param N = 3;
ranks N;
signal flag;
kernel {
    if (rank == 0) {
        TNOTIFY(flag @ 1, 1, Set);
        TNOTIFY(flag @ 1, 5, Set);
    } else {
        TWAIT(flag, rank, EQ);
    }
}
"""


def test_the_wait_is_asked_as_run_by_the_holder_of_the_cell():
    """Rank 0 replaces the 1 in rank 1's flag, which rank 1's wait (EQ rank) accepts: lost.
    Asked as run by the writer (rank 0, threshold 0), the 1 would not be accepted."""
    prover, readers, st = _second_set(ROOT_SETS_TWICE)
    x, old, new, holder, idxs = st.notify
    s = z3.Solver()
    s.add(*prover.domain, prover.enc.N == 2, prover.a == 0, *st.guard, old == 1)
    s.add(prover.loses(st.notify, readers[x.view.signal.name]))
    assert s.check() == z3.sat
    s.add(new == 1)  # a Set of the value already there loses nothing
    assert s.check() == z3.unsat


def test_every_wait_on_the_signal_is_asked():
    """With an LE 4 wait beside the EQ one, replacing a 3 by the 5 loses it for the LE wait
    (the EQ wait of rank 1 takes neither): each wait is asked on its own."""
    text = ROOT_SETS_TWICE.replace("TWAIT(flag, rank, EQ);", "TWAIT(flag, rank, EQ);\n        TWAIT(flag, 4, LE);")
    prover, readers, st = _second_set(text)
    x, old, _, _, _ = st.notify
    waits = readers[x.view.signal.name]
    assert [w.cmp for w in waits] == ["EQ", "LE"]
    for asked, answer in ((waits, z3.sat), (waits[:1], z3.unsat)):
        s = z3.Solver()
        s.add(*prover.domain, prover.enc.N == 2, prover.a == 0, *st.guard, old == 3)
        s.add(prover.loses(st.notify, asked))
        assert s.check() == answer, [w.cmp for w in asked]

"""The data_race report: both accesses, the synchronization meant to order them, what is
missing and how to fix it, read off the counterexample's step records. Entry: `race_violation`."""

from __future__ import annotations

from checker.result import AccessRef, RaceFacts, Violation
from checker.trace import data_ref
from model import ir

_SIGNAL_WRITES = (ir.Notify, ir.Store, ir.FetchAdd, ir.Cas)
_ACQUIRES = (ir.Wait, ir.Test, ir.Load, ir.FetchAdd, ir.Cas)
_VERB = {"read": "read", "write": "write", "atomic": "atomic add"}


def race_violation(system, race, steps, trace) -> Violation:
    """`race` is the DataRace of the last step; `steps`/`trace` lead to it."""
    first_at = next(k for k, s in enumerate(steps) if race.first in s.accesses)
    second = steps[-1]
    a, b = trace[first_at], trace[-1]
    element = system.data_element(race.second.position).name
    expected = _expected_sync(steps, second)
    missing, hint = _diagnosis(system, steps, first_at, race, expected)
    meant = (f"; the synchronization meant to order them is {trace[expected].statement} at "
             f"{trace[expected].location} ({trace[expected].process})") if expected is not None else ""
    message = (f"data race on {element}: the {_VERB[race.first.kind]} by {a.process} at {a.location} "
               f"({a.statement}) and the {_VERB[race.second.kind]} by {b.process} at {b.location} ({b.statement}) "
               f"are not ordered by happens-before{meant}; {missing}" + (f". Fix: {hint}" if hint else ""))
    facts = RaceFacts(AccessRef(a.process, a.span, a.statement, race.first.kind, data_ref(system, race.first.position)),
                      AccessRef(b.process, b.span, b.statement, race.second.kind,
                                data_ref(system, race.second.position)),
                      trace[expected] if expected is not None else None, missing, hint)
    return Violation("data_race", message, trace, span=race.span, race=facts)


def _expected_sync(steps, second) -> int | None:
    """The last acquiring read (a completed wait, true test, load) of the second process."""
    for k in range(len(steps) - 2, -1, -1):
        s = steps[k]
        if s.process == second.process and isinstance(s.instr, _ACQUIRES) and s.reads and all(r[3] for r in s.reads):
            return k
    return None


def _diagnosis(system, steps, first_at, race, expected) -> tuple[str, str]:
    p = steps[first_at].process
    first = steps[first_at]
    later = [(k, s) for k, s in enumerate(steps[first_at + 1:], first_at + 1) if s.process == p]
    notify = next(((k, s) for k, s in later if isinstance(s.instr, _SIGNAL_WRITES) and s.writes), None)
    copy = first.instr
    if isinstance(copy, ir.Copy) and copy.event is not None:
        waited = any(isinstance(s.instr, ir.WaitEvent) and s.instr.event == copy.event[1] for k, s in later
                     if notify is None or k < notify[0])
        if not waited and notify is not None:
            at = notify[1].instr
            return (f"no WAIT_EVENT({_event_name(copy)}) between the {copy.text.split('=')[-1].strip()} "
                    f"at {copy.span} and the {at.text} at {at.span}: the transfer may still be in flight",
                    f"WAIT_EVENT({_event_name(copy)}); before the {_name(at)}")
    if race.first.kind != "read" and notify is not None and system.memory_model == "pto":
        between = [s for k, s in later if k < notify[0]]
        fenced = any(isinstance(s.instr, ir.Fence) and s.instr.kind == "full" for s in between) or _pipe_dsb(between)
        if not fenced:
            at = notify[1].instr
            return (f"no fence between the {_name(copy)} at {copy.span} and the {_name(at)} at {at.span} (under the "
                    f"pto memory model a TNOTIFY does not order earlier data writes)",
                    f"`pipe_barrier(PIPE_ALL); dsb(DSB_DDR);` (or `fence;`) before the {_name(at)}")
    if expected is not None:
        acq = steps[expected]
        positions = [r[0] for r in acq.reads]
        writers = [k for k in range(expected) if any(w[0] in positions for w in steps[k].writes)]
        last = steps[writers[-1]] if writers else None
        if last is not None and last.process != p and system.rank_of(last.process) == system.rank_of(p) \
                and p >= system.R and last.process >= system.R:
            return (f"{system.process_name(p)}'s access at {first.instr.span} is not ordered before "
                    f"{system.process_name(last.process)}'s {_name(last.instr)} at {last.instr.span}: an intra-rank "
                    f"arrival stage is missing",
                    f"let {system.process_name(p)} fence and notify {system.process_name(last.process)} (e.g. "
                    f"AtomicAdd on a rank-local counter) and wait for every block before announcing")
        if last is not None and writers[-1] < first_at:
            return (f"the {_name(acq.instr)} at {acq.instr.span} was satisfied by the value written at "
                    f"{last.instr.span} ({system.process_name(last.process)}) before the access at "
                    f"{first.instr.span}: a value of an earlier round or launch, which cannot order this access "
                    f"(a signal reused without reset, or a missing back-pressure credit)",
                    "reset the signal between uses, wait for a value only this round writes (an epoch), or "
                    "wait for the consumer's credit before reusing the buffer")
    return ("nothing orders them: no signal written after the first access is observed by the second process "
            "before its access", "")


def _pipe_dsb(steps) -> bool:
    seen_pipe = False
    for s in steps:
        if isinstance(s.instr, ir.Fence):
            if s.instr.kind == "pipe":
                seen_pipe = True
            elif s.instr.kind == "dsb" and seen_pipe:
                return True
    return False


def _name(instr) -> str:
    return instr.text.split("(")[0].split()[-1] if instr.text else type(instr).__name__


def _event_name(copy) -> str:
    return copy.text.split("=")[0].split()[-1]

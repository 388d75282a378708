"""Which signal and data statements of a program no explored state reaches. Entry: `unreached`.

A statement is one source span of the program's host or kernel code with a signal operation
(TNOTIFY, TWAIT, TTEST, reset, LOAD, STORE, FETCH_ADD, CAS) or a data operation (TPUT, TGET,
READ, WRITE, an event wait or test); it counts as reached when some enabled step of an
explored state takes one of its instructions (checker/explore.py collects them) or some
process of an explored state stands at it (a wait that blocks forever is reached). Local
statements, launches, joins, barriers, fences and `any` choices are not counted. A statement
reached only through some call sites of an inlined function counts as reached.
"""

from __future__ import annotations

from checker.result import Unreached
from model import ir
from model.errors import Span

OPERATIONS = ir.SIGNAL_INSTRS + (ir.Copy, ir.Access, ir.WaitEvent, ir.TestEvent)


def statements(program: ir.Program) -> dict:
    """(span, text) -> the instructions of that statement, over the host's and the kernel's code,
    in source order."""
    out: dict = {}
    for code in (program.host, program.kernel):
        for ins in code.instrs:
            if isinstance(ins, OPERATIONS):
                out.setdefault((ins.span, ins.text), []).append(ins)
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0].file, kv[0][0].line, kv[0][0].col, kv[0][1])))


def unreached(program: ir.Program, explorations) -> tuple[Unreached, ...]:
    """The statements that no step of these (complete) explorations takes and at which no
    process of their states stands. Steps are cheap to ask (the explorer keeps the id()s of
    the instructions they take); standing processes need a pass over the stored states, made
    only for the statements no step took (a TWAIT that blocks forever)."""
    executed = set().union(*(ex.executed for ex in explorations))
    missed = {key: instrs for key, instrs in statements(program).items()
              if not any(id(ins) in executed for ins in instrs)}
    spans = {span for span, _ in missed}
    for ex in explorations:
        where = ex.system.where
        for state in ex.each_state() if spans else ():
            for _, span in where(state):
                spans.discard(span)
            if not spans:
                break
    return tuple(Unreached(span, text) for span, text in missed if span in spans)


def returns_before(program: ir.Program) -> tuple[Span, ...]:
    """The explicit `return` statements that come, in code order, before the first signal or
    data statement of the host's or the kernel's code (what a vacuous check names as the
    likely cause: a guard that returns early)."""
    out = []
    for code in (program.host, program.kernel):
        first = next((n for n, ins in enumerate(code.instrs) if isinstance(ins, OPERATIONS)), None)
        if first is None:
            continue
        out += [ins.span for ins in code.instrs[:first] if isinstance(ins, ir.Return)]
    return tuple(dict.fromkeys(out))

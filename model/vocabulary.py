"""The words of the domain, each defined once: comparisons, notify ops, verdicts.

Every other module (the checks and lowering, the transition system, the reductions, the
solver, the reporters, the Promela export, the C++ and MLIR readers) imports these records
instead of keeping a table of its own. Adding a comparison or a verdict starts here; what
else it touches is listed in docs/developers.md.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable

# ---------------------------------------------------------------- words of the language

# KEYWORDS, the keywords of .sig: every word the grammar (model/sig.lark) spells out; never a
# name. Read from the grammar when first asked for (`__getattr__` at the end), so that the
# command line's `--version` and `--help`, which need only the verdict names, do not read it.
# The names .sig gives every program (not keywords: the grammar reads them as names).
BUILTIN_NAMES = frozenset({"rank", "block", "launch_id", "nranks", "nblocks", "NRANKS", "NBLOCKS"})

# ---------------------------------------------------------------- comparisons


@dataclass(frozen=True)
class Comparison:
    """A TWAIT / TTEST comparison `signal <cmp> operand` (signed int32)."""

    name: str  # "EQ": the spelling in .sig, in C++ (`WaitCmp::EQ`) and in MLIR
    symbol: str  # "==": the C / Promela operator, and how reports say it
    holds: Callable  # holds(value, operand): on ints, and on z3 terms alike (Python operators)
    pto_enum: int  # its number in pto-isa's `enum class WaitCmp`
    monotone: str | None  # "up": once true, stays true while the signal only grows (GE, GT);
    #                       "down": likewise while it only shrinks (LE, LT); None otherwise


COMPARISONS = (
    Comparison("EQ", "==", operator.eq, 0, None),
    Comparison("NE", "!=", operator.ne, 1, None),
    Comparison("GT", ">", operator.gt, 2, "up"),
    Comparison("GE", ">=", operator.ge, 3, "up"),
    Comparison("LT", "<", operator.lt, 4, "down"),
    Comparison("LE", "<=", operator.le, 5, "down"),
)
CMPS = tuple(c.name for c in COMPARISONS)  # in pto-isa's enum order
COMPARISON = {c.name: c for c in COMPARISONS}
CMP_BY_SYMBOL = {c.symbol: c for c in COMPARISONS}
RISING_CMPS = tuple(c.name for c in COMPARISONS if c.monotone == "up")  # GT, GE
FALLING_CMPS = tuple(c.name for c in COMPARISONS if c.monotone == "down")  # LT, LE

# ---------------------------------------------------------------- notify ops


@dataclass(frozen=True)
class NotifyOp:
    """How a TNOTIFY writes its element."""

    name: str  # "Set": the spelling in .sig, C++ (`NotifyOp::Set`) and MLIR
    pto_enum: int  # its number in pto-isa's `enum class NotifyOp`
    replaces: bool  # True: a store that replaces the old value; False: an atomic add
    mlir_words: tuple[str, ...]  # the MLIR attribute words that name it (lower case, no `_`)


NOTIFY_OPS = (
    NotifyOp("Set", 0, True, ("set",)),
    NotifyOp("AtomicAdd", 1, False, ("atomicadd", "add")),
)
SET, ATOMIC_ADD = (op.name for op in NOTIFY_OPS)
OPS = tuple(op.name for op in NOTIFY_OPS)  # in pto-isa's enum order
NOTIFY_OP = {op.name: op for op in NOTIFY_OPS}

# The qualified spellings accepted for both (`EQ`, `WaitCmp::EQ`, `comm::WaitCmp::EQ`, ...).
NAMESPACES = ((), ("comm",), ("pto", "comm"))
CMP_PREFIXES = frozenset({()} | {ns + ("WaitCmp",) for ns in NAMESPACES})
OP_PREFIXES = frozenset({()} | {ns + ("NotifyOp",) for ns in NAMESPACES})

# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """A property the checker judges (or `ok`), with what its reports say about it."""

    name: str  # "deadlock": the `expect` word, the JSON `violated` entry, the SARIF rule id
    title: str  # "Deadlock": the SARIF rule name, JUnit and GitHub titles
    short: str  # one sentence: what was found
    full: str  # what it means, for SARIF's rule help
    fix: str  # how it is usually fixed
    expectable: bool = True  # may appear in an `expect` line


VERDICTS = (
    Verdict("deadlock", "Deadlock",
            "The run can reach a state from which it can never finish.",
            "Some interleaving of the ranks' blocks and hosts reaches a state from which the finished "
            "state (every process done) can no longer be reached: the unfinished processes wait for "
            "values that never come, or can only spin forever (polling loops, local loops). On the "
            "device a TWAIT has no timeout, so this hangs the kernel.",
            "Compare what every stuck process waits for with the notifications that can still arrive. "
            "Usual causes: fewer notifications than the wait counts (several writers that `Set` one "
            "element instead of `AtomicAdd`), a TNOTIFY sent to the wrong rank (`@ rank` vs `@ peer`), "
            "an EQ wait that a counter overshoots (wait with GE), or a signal reused in the next launch "
            "without a `reset` or an epoch value (`launch_id + 1`)."),
    Verdict("lost_notification", "LostNotification",
            "A Set or reset erased a notification that a wait still needed.",
            "A `Set` TNOTIFY or a host `reset` replaced a value written by a TNOTIFY before every "
            "reader it was meant for had read it, and some wait of the protocol would accept the old "
            "value but not the new one. The protocol then depends on timing: a slow reader misses the "
            "notification.",
            "Do not overwrite a flag before its reader has consumed it: count with `AtomicAdd` instead "
            "of `Set`, use growing epoch values with GE waits, put a barrier (or a reply signal) "
            "between the read and the next write, and `reset` only after every reader is done."),
    Verdict("assertion", "AssertionFailed",
            "An assert of the spec failed.",
            "An `assert(...)` of the spec evaluated to false when it was executed in some "
            "interleaving (with TTEST, the signal did not hold the asserted value at that moment).",
            "Read the counterexample up to the failing assert: either the protocol lets the other "
            "processes get there in an unintended order (add the missing wait), or the assert states "
            "more than the protocol guarantees."),
    Verdict("overflow", "CounterOverflow",
            "An AtomicAdd left the int32 range.",
            "An `AtomicAdd` TNOTIFY would have made a signal element leave the int32 range "
            "(-2147483648 to 2147483647); the device wraps around silently, so later waits compare "
            "against a wrong value.",
            "Reset the counter between launches, or count in smaller steps (epochs modulo a bound, or "
            "a fresh signal per phase), so that the value stays in range for as many launches as the "
            "program runs."),
    Verdict("error", "ModelError",
            "A run-time error: index or rank out of range, remote TWAIT, division by zero.",
            "Some interleaving executes a statement that has no meaning on the device: a signal index "
            "or a rank out of range, a TWAIT or TTEST on another rank's copy of a signal, a division "
            "by zero, or the like.",
            "Fix the expression the message names (bounds of loops and indices, `(rank + 1) % nranks` "
            "for neighbours); a process may only wait on its own rank's signals, so notify the "
            "waiting rank instead of reading a remote copy."),
    Verdict("dirty_exit", "DirtyExit",
            "The run finished with some signal not at its initial value.",
            "With `check clean_exit`, every host finished but some signal element differs from its "
            "initial value, so the next program (or the next run of this one) starts from stale "
            "signals.",
            "Reset the signals at the end of the host (`reset SIGNAL;` after the last `launch`), or "
            "let the kernels consume what they were sent, for example by counting back down."),
    Verdict("data_race", "DataRace",
            "Two accesses to the same data are not ordered by the protocol.",
            "Two processes access the same element, at least one of them writing, and no "
            "notify/wait chain orders the two accesses, so the result depends on timing.",
            "Order the accesses with a notification: the writer notifies after writing and the other "
            "side waits for it before accessing, or separate them with a barrier."),
)
PROPERTIES = tuple(v.name for v in VERDICTS)  # the violated properties, in report order
VERDICT = {v.name: v for v in VERDICTS}
EXPECTABLE = ("ok",) + tuple(v.name for v in VERDICTS if v.expectable)  # the words of an `expect` line
FAULTS = ("assertion", "overflow", "error")  # the verdicts one step's Fault reports (model.system.Fault.kind)


def __getattr__(name: str):
    if name != "KEYWORDS":
        raise AttributeError(f"module 'model.vocabulary' has no attribute {name!r}")
    from importlib import resources

    grammar = resources.files("model").joinpath("sig.lark").read_text(encoding="utf-8")
    globals()["KEYWORDS"] = keywords = frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar))
    return keywords

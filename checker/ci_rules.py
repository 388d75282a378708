"""What each reported problem means and how it is usually fixed: the rule table of the CI formats.

Kept apart from `checker.ci_formats` because it is prose, not logic. `data_race` is listed
ahead of the checker reporting it, so that SARIF consumers know the rule from the start.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    short: str
    full: str
    fix: str


RULES = (
    Rule("deadlock", "Deadlock",
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
    Rule("lost_notification", "LostNotification",
         "A Set or reset erased a notification that a wait still needed.",
         "A `Set` TNOTIFY or a host `reset` replaced a value written by a TNOTIFY before every "
         "reader it was meant for had read it, and some wait of the protocol would accept the old "
         "value but not the new one. The protocol then depends on timing: a slow reader misses the "
         "notification.",
         "Do not overwrite a flag before its reader has consumed it: count with `AtomicAdd` instead "
         "of `Set`, use growing epoch values with GE waits, put a barrier (or a reply signal) "
         "between the read and the next write, and `reset` only after every reader is done."),
    Rule("assertion", "AssertionFailed",
         "An assert of the spec failed.",
         "An `assert(...)` of the spec evaluated to false when it was executed in some "
         "interleaving (with TTEST, the signal did not hold the asserted value at that moment).",
         "Read the counterexample up to the failing assert: either the protocol lets the other "
         "processes get there in an unintended order (add the missing wait), or the assert states "
         "more than the protocol guarantees."),
    Rule("overflow", "CounterOverflow",
         "An AtomicAdd left the int32 range.",
         "An `AtomicAdd` TNOTIFY would have made a signal element leave the int32 range "
         "(-2147483648 to 2147483647); the device wraps around silently, so later waits compare "
         "against a wrong value.",
         "Reset the counter between launches, or count in smaller steps (epochs modulo a bound, or "
         "a fresh signal per phase), so that the value stays in range for as many launches as the "
         "program runs."),
    Rule("error", "ModelError",
         "A run-time error: index or rank out of range, remote TWAIT, division by zero.",
         "Some interleaving executes a statement that has no meaning on the device: a signal index "
         "or a rank out of range, a TWAIT or TTEST on another rank's copy of a signal, a division "
         "by zero, or the like.",
         "Fix the expression the message names (bounds of loops and indices, `(rank + 1) % nranks` "
         "for neighbours); a process may only wait on its own rank's signals, so notify the "
         "waiting rank instead of reading a remote copy."),
    Rule("dirty_exit", "DirtyExit",
         "The run finished with some signal not at its initial value.",
         "With `check clean_exit`, every host finished but some signal element differs from its "
         "initial value, so the next program (or the next run of this one) starts from stale "
         "signals.",
         "Reset the signals at the end of the host (`reset SIGNAL;` after the last `launch`), or "
         "let the kernels consume what they were sent, for example by counting back down."),
    Rule("data_race", "DataRace",
         "Two accesses to the same data are not ordered by the protocol.",
         "Two processes access the same element, at least one of them writing, and no "
         "notify/wait chain orders the two accesses, so the result depends on timing.",
         "Order the accesses with a notification: the writer notifies after writing and the other "
         "side waits for it before accessing, or separate them with a barrier."),
)

SPEC_ERROR = Rule("spec-error", "SpecError",
                  "The spec (or a parameter value) is not valid.",
                  "The spec could not be checked: a syntax or semantic error, or a parameter value "
                  "(-D, --sweep) that makes a declaration invalid. Nothing about this spec was proved.",
                  "Fix the spec at the location given; the message says what was expected.")
EXPECTATION = Rule("expectation-not-met", "ExpectationNotMet",
                   "A violation that the spec expects was not found.",
                   "The spec has an `expect PROPERTY;` line, the whole state space was explored, and "
                   "the property is not violated: the known bug the spec records is gone, or the spec "
                   "no longer models it.",
                   "If the protocol was fixed on purpose, remove the `expect` line; otherwise find "
                   "what changed in the spec.")
INCONCLUSIVE = Rule("inconclusive", "Inconclusive",
                    "A limit stopped the check before its verdict was settled.",
                    "A limit (states, time, memory, ...) stopped the exploration first, so nothing was "
                    "proved about the part of the state space left unexplored.",
                    "Raise the limit (--max-states, --timeout, --max-memory) or check smaller "
                    "parameter values.")

ALL = RULES + (SPEC_ERROR, EXPECTATION, INCONCLUSIVE)

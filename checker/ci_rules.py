"""What each reported problem means and how it is usually fixed: the rule table of the CI formats.

Kept apart from `checker.ci_formats` because it is prose, not logic. The rules of the
properties come from the verdict catalog (model/vocabulary.py); the rules here are those of
the CI views themselves (spec errors, unmet expectations, inconclusive runs, fingerprints,
vacuous checks, unreached statements, a kernel extraction's assumptions) and those of
`sigproof prove` (proved, unproved).
"""

from __future__ import annotations

from dataclasses import dataclass

from model.vocabulary import VERDICTS


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    short: str
    full: str
    fix: str


RULES = tuple(Rule(v.name, v.title, v.short, v.full, v.fix) for v in VERDICTS)  # model/vocabulary.py


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
FINGERPRINTS = Rule("fingerprint-store", "FingerprintStore",
                    "The verdict rests on 64-bit fingerprints of the states.",
                    "The check ran with `--store fingerprint`: visited states were kept as 64-bit hashes, "
                    "so two distinct states with the same hash count as one and the state after the "
                    "second is never explored. The verdict is a proof only up to the collision "
                    "probability the message gives.",
                    "For a proof, check again with the exact store (the default), with more memory or "
                    "smaller parameter values.")

VACUOUS = Rule("vacuous", "VacuousCheck",
               "No signal operation is ever executed: the check proves nothing.",
               "The whole state space was explored and no step executes a signal or data statement "
               "(TNOTIFY, TWAIT, TTEST, reset, LOAD, STORE, FETCH_ADD, CAS, TPUT, TGET, READ, WRITE): "
               "the program has none, or every one sits behind a branch never taken, a loop that "
               "never runs, or an early return. Whatever the `expect` lines say, nothing was proved.",
               "Check the branch, loop bound or return before the first signal operation (for a "
               "kernel: its sigproof.toml values and the extraction's assumptions, `sigproof extract`).")
UNREACHED = Rule("unreached", "UnreachedStatement",
                 "A signal or data statement is never executed.",
                 "The whole state space was explored and no step executes this statement, so the "
                 "verdict says nothing about it. Only a failure with --require-coverage.",
                 "Check the branch, loop bound or return that keeps it from running, or the parameter "
                 "values; remove the statement if it is dead on purpose.")

ASSUMPTION = Rule("assumption", "ExtractionAssumption",
                  "The extraction of a kernel assumed something its code does not say.",
                  "A C++ or MLIR kernel is checked through the skeleton its extraction writes; where the "
                  "code did not say (a loop bound, a parameter value, a callee the reader does not follow) "
                  "the extraction assumed something, and the verdict holds only under that assumption.",
                  "Check that the assumption is true of the kernel as it runs; if not, state the value in "
                  "the kernel's sigproof.toml (see `sigproof extract`) and check again.")

ALL = RULES + (SPEC_ERROR, EXPECTATION, INCONCLUSIVE, FINGERPRINTS, VACUOUS, UNREACHED, ASSUMPTION)

# `sigproof prove`: its own verdicts beside the properties and spec errors

PROVED = Rule("proved", "ProvedForEverySize",
              "The spec is proved correct for every size.",
              "`sigproof prove` found an inductive invariant over the params left symbolic: no deadlock, "
              "lost notification, overflow or run-time error at any size from the lower bounds up to "
              "2^31 - 1 (the properties listed).",
              "Nothing to fix.")
UNPROVED = Rule("unproved", "NotProvedForEverySize",
                "The spec was neither proved for every size nor refuted at a small size.",
                "`sigproof prove` checked the smallest sizes explicitly and found no violation, but could not "
                "prove the spec for every size: it is outside the prover's fragment (the location is the "
                "first statement it does not cover), the invariants it tries do not settle an obligation, "
                "or the time limit was reached. Nothing is proved beyond the sizes checked.",
                "Read the reason: rewrite the unsupported statement if it can be, raise --timeout, or check "
                "the spec at the sizes that matter with `sigproof check --sweep`.")
PROVE_RULES = RULES + (SPEC_ERROR, PROVED, UNPROVED)

"""Length-preserving pre-pass: blank the Ascend C / PTO qualifiers tree-sitter cannot parse.

Every blanked byte becomes a space (newlines are kept), so every line and column of the
result is the line and column of the original source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# the Ascend C / CCE qualifiers and the pto-isa macros made of them (include/pto/common:
# type.hpp PTO_INST / PTO_INTERNAL / PTO_INLINE, arch_macro.hpp __in__ / __out__; the CCE
# address spaces __ubuf__, __cbuf__, __ca__, __cb__, __cc__, __fbuf__, __ssbuf__)
QUALIFIERS = ("__gm__", "AICORE", "__aicore__", "__global__", "PTO_INST", "PTO_INTERNAL", "PTO_INLINE",
              "__in__", "__out__", "__ubuf__", "__cbuf__", "__ca__", "__cb__", "__cc__", "__fbuf__", "__ssbuf__")
_WORD = re.compile(r"\b(" + "|".join(QUALIFIERS) + r")\b")
_ATTR = re.compile(r"\b__attribute__\s*\(")


@dataclass(frozen=True)
class Mark:
    """A blanked piece of source: what it was and where (byte offsets into the source)."""

    kind: str     # one of QUALIFIERS, "__attribute__" or "launch"
    start: int
    end: int
    text: str     # the original text (for "launch": what was between <<< and >>>)


def _code_mask(src: str) -> list[bool]:
    """True for each character that is code (not inside a comment, string or char literal)."""
    mask = [True] * len(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            mask[k] = False
        i = j
    return mask


def _balanced(src: str, open_at: int) -> int | None:
    """Index just past the parenthesis that closes the one at `open_at`."""
    depth = 0
    for j in range(open_at, len(src)):
        if src[j] == "(":
            depth += 1
        elif src[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def prepass(src: str) -> tuple[str, tuple[Mark, ...]]:
    """Blank the qualifiers, `__attribute__((...))` and `<<<...>>>` launch syntax.

    Works on characters; the result has the same length and the same line breaks.
    Returns the blanked text and the marks, in source order.
    """
    mask = _code_mask(src)
    out = list(src)
    marks: list[Mark] = []

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] not in "\r\n":
                out[k] = " "

    for m in _WORD.finditer(src):
        if mask[m.start()]:
            marks.append(Mark(m.group(1), m.start(), m.end(), m.group(1)))
            blank(m.start(), m.end())
    for m in _ATTR.finditer(src):
        if not mask[m.start()]:
            continue
        end = _balanced(src, m.end() - 1)
        if end is None:
            continue
        marks.append(Mark("__attribute__", m.start(), end, src[m.start():end]))
        blank(m.start(), end)
    i = 0
    while True:
        i = src.find("<<<", i)
        if i < 0:
            break
        j = src.find(">>>", i + 3)
        if j < 0 or not mask[i]:
            i += 3
            continue
        marks.append(Mark("launch", i, j + 3, src[i + 3:j]))
        blank(i, j + 3)
        i = j + 3
    marks.sort(key=lambda mk: mk.start)
    return "".join(out), tuple(marks)

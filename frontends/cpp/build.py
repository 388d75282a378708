"""The preprocessor macros and include folders of a kernel's compile line, read from the
CMakeLists.txt beside it. Entry point: `compile_line(path)`.

A production kernel is often compiled with `-DNAME` flags that decide which of its helpers
exist (pto-isa's gemm_ar and allgather_gemm keep their remote-address helper under
`#ifdef MEMORY_BASE` and pass `-DMEMORY_BASE` in `target_compile_options`). Without them the
reader would see the code another compiler sees. This reads, with tree-sitter's CMake
grammar, only what is certain: the literal macros of the top-level (unconditional)
`add_compile_definitions`, `add_definitions` and `add_compile_options`, and of
`target_compile_definitions` / `target_compile_options` of the targets whose
`add_library` / `add_executable` names the kernel's file. Anything with a variable or a
generator expression (`${...}`, `$<...>`) and anything under `if` / `foreach` / a function
is left out. The config's `defines` replaces the macros. The include folders likewise: those
of the top-level `include_directories` and of the file's targets' `target_include_directories`,
relative to the build file's folder or starting with `${CMAKE_CURRENT_SOURCE_DIR}` /
`${CMAKE_CURRENT_LIST_DIR}` (or `${PROJECT_SOURCE_DIR}` when this file declares the
`project`, or a variable a top-level `set(NAME folder)` gives one of those), and only those that exist and are not the PTO library's own (whose intrinsics
the reader knows by name); a quoted `#include` the kernel's own folder does not
hold is looked up there, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tree_sitter
import tree_sitter_cmake

from frontends.core.errors import Loc

_LANGUAGE = tree_sitter.Language(tree_sitter_cmake.language())
_TARGETS = ("add_library", "add_executable")
_GLOBAL = ("add_compile_definitions", "add_definitions", "add_compile_options")
_PER_TARGET = ("target_compile_definitions", "target_compile_options")
_SCOPES = ("PRIVATE", "PUBLIC", "INTERFACE", "BEFORE")
MAX_BYTES = 1 << 20  # a build file larger than this is not read
LIBRARY_ROOTS = ("pto/pto-inst.hpp", "pto/comm")  # what marks an include folder of the PTO library


@dataclass(frozen=True)
class CompileLine:
    defines: dict  # macro -> value ("1" when none is given)
    where: Loc | None  # the first command that gives a macro
    include_dirs: tuple[Path, ...] = ()


def compile_line(kernel: str) -> CompileLine:
    """What the CMakeLists.txt in the kernel file's folder passes when it compiles that file
    (empty when there is no such file)."""
    build = Path(kernel).parent / "CMakeLists.txt"
    try:
        if build.stat().st_size > MAX_BYTES:
            return CompileLine({}, None)
        data = build.read_bytes()
    except OSError:
        return CompileLine({}, None)
    tree = tree_sitter.Parser(_LANGUAGE).parse(data)
    commands = []  # (name, arguments, node): the top-level commands only
    for node in tree.root_node.named_children:
        if node.type != "normal_command":
            continue
        ident = node.child_by_field_name("name") or node.named_children[0]
        args = next((c for c in node.named_children if c.type == "argument_list"), None)
        words = [] if args is None else [_text(data, a) for a in args.named_children]
        commands.append((_text(data, ident).lower(), words, node))
    name = Path(kernel).name
    targets = {words[0] for cmd, words, _ in commands
               if cmd in _TARGETS and words and any(Path(w).name == name for w in words[1:])}
    here = build.parent
    roots = {"${CMAKE_CURRENT_SOURCE_DIR}": here, "${CMAKE_CURRENT_LIST_DIR}": here}
    if any(cmd == "project" for cmd, _, _ in commands):
        roots["${PROJECT_SOURCE_DIR}"] = here
    out: dict[str, str] = {}
    dirs: list[Path] = []
    first = None
    for cmd, words, node in commands:
        if cmd == "set" and len(words) == 2:  # `set(DIR ${PROJECT_SOURCE_DIR}/x)`: a folder variable
            value = _expand(words[1].strip('"'), roots)
            if value is not None:
                roots["${" + words[0] + "}"] = Path(value)
            else:
                roots.pop("${" + words[0] + "}", None)
            continue
        if cmd == "include_directories" or cmd == "target_include_directories" and words and words[0] in targets:
            for w in words[1:] if cmd == "target_include_directories" else words:
                d = _folder(w.strip('"'), here, roots)
                if d is not None and d not in dirs:
                    dirs.append(d)
            continue
        if cmd in _GLOBAL:
            found = _macros(words, flags=cmd != "add_compile_definitions")
        elif cmd in _PER_TARGET and words and words[0] in targets:
            found = _macros(words[1:], flags=cmd == "target_compile_options")
        else:
            continue
        for k, v in found:
            out.setdefault(k, v)
            if first is None:
                (r, c) = node.start_point
                first = Loc(str(build), r + 1, c + 1, node.end_point[0] + 1, node.end_point[1] + 1)
    return CompileLine(out, first, tuple(dirs))


def _expand(word: str, roots: dict) -> str | None:
    """`word` with a leading folder variable the build file defines replaced, or None when
    it names another variable or a generator expression."""
    for var, path in roots.items():
        if word.startswith(var):
            word = str(path) + word[len(var):]
            break
    if "${" in word or "$<" in word or "$ENV" in word:
        return None
    return word


def _folder(word: str, here: Path, roots: dict) -> Path | None:
    """An include folder of the build file, if it names one that exists without a variable
    other than the build file's own folder (or one set to a folder under it, `set(D ...)`)."""
    word = _expand(word, roots)
    if word is None or word in _SCOPES or word == "SYSTEM":
        return None
    d = Path(word) if Path(word).is_absolute() else here / word
    if not d.is_dir() or any((d / lib).exists() for lib in LIBRARY_ROOTS):
        return None  # (the PTO library's own headers: the reader knows their intrinsics itself)
    return d


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _macros(words: list[str], flags: bool) -> list[tuple[str, str]]:
    """The literal `-DNAME[=VALUE]` flags among `words` (flags), or their bare `NAME[=VALUE]`
    items (definitions); anything that names a variable or a generator expression is skipped."""
    out = []
    for w in words:
        w = w.strip('"')
        if "${" in w or "$<" in w or w in _SCOPES:
            continue
        if flags:
            if not w.startswith("-D") or len(w) == 2:
                continue
            w = w[2:]
        name, eq, value = w.partition("=")
        if name.isidentifier():
            out.append((name, value if eq else "1"))
    return out

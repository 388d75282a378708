"""The skeleton as both readers print it: sizes from the config, the text with its source map,
the call-site records. Entry points: `sizes`, `render`, `call_sites`.

Each reader (frontends.cpp, frontends.mlir) gathers what its kernel declares (params,
signals, buffers, views, the host sequence) and hands it here as a `Layout`; the printing,
the source map and the order of the sections are the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from frontends.core.errors import ExtractError, Loc
from frontends.core.extraction import CallSite, SourceMapEntry
from frontends.core.skeleton import Printer
from frontends.core.sym import LEVEL_NAMES


@dataclass(frozen=True)
class Sizes:
    nranks: int
    ranks_note: str
    nblocks: int
    blocks_note: str
    subblocks: int = 0  # a mixed kernel: vector cores per cube core (NBLOCKS cube cores, then theirs)


def sizes(cfg: dict, kloc: Loc, default_ranks: int, launch_blocks: int | None = None) -> tuple[Sizes, list]:
    """The rank and block counts (from the config, the kernel launch, or assumed) and the
    assumptions (Loc, text) that assuming them makes."""
    notes: list[tuple[Loc, str]] = []
    if "ranks" in cfg:
        nranks, ranks_note = int(cfg["ranks"]), "ranks from the config"
    else:
        nranks, ranks_note = default_ranks, "assumed: rank count not configured"
        notes.append((kloc, f"the rank count is not configured; modelled as param NRANKS = {default_ranks} (set ranks = N)"))
    if "blocks" in cfg:
        nblocks, blocks_note = int(cfg["blocks"]), "blocks from the config"
    elif launch_blocks is not None:
        nblocks, blocks_note = launch_blocks, "blocks from the kernel launch"
    else:
        nblocks, blocks_note = 1, "assumed: block count not configured"
        notes.append((kloc, "the block count is not configured; modelled as param NBLOCKS = 1 (set blocks = N)"))
    return Sizes(nranks, ranks_note, nblocks, blocks_note), notes


@dataclass
class Layout:
    """What a reader found, in the order the skeleton prints it."""

    reader: str                 # "frontends.cpp" | "frontends.mlir"
    title: str                  # the kernel as the header names it (`k`, `@k`)
    base: str                   # the kernel file's base name
    protocol: str
    sizes: Sizes
    kloc: Loc
    stmts: list
    params: list = field(default_factory=list)   # (`param NAME = V;`, its comment, Loc or None)
    decls: list = field(default_factory=list)    # (a signal, buffer or view declaration, Loc or None)
    host: list = field(default_factory=list)     # (a host line, Loc)
    checks: tuple = ()
    file: str = ""              # for the error of an unknown check


def render(layout: Layout) -> tuple[str, tuple[SourceMapEntry, ...]]:
    """The skeleton's text and which source range each of its lines comes from."""
    pr = Printer()
    pr.add(f"// Skeleton of kernel {layout.title} ({layout.base}), extracted by sigproof {layout.reader}.")
    pr.add(f"// Regenerate rather than edit: python -m {layout.reader} " + layout.base)
    pr.add(f"protocol {layout.protocol};")
    pr.add("")
    pr.add(f"param NRANKS = {layout.sizes.nranks};    // {layout.sizes.ranks_note}")
    pr.add(f"param NBLOCKS = {layout.sizes.nblocks};    // {layout.sizes.blocks_note}")
    for text, comment, loc in layout.params:
        pr.add(f"{text}    // {comment}", loc)
    pr.add("ranks NRANKS;")
    if layout.sizes.subblocks:
        pr.add(f"blocks {1 + layout.sizes.subblocks} * NBLOCKS;    // a mixed kernel: NBLOCKS cube cores, then "
               f"{layout.sizes.subblocks} vector cores per cube core")
    else:
        pr.add("blocks NBLOCKS;")
    for text, loc in layout.decls:
        pr.add(text + (f"    // {Path(loc.file).name}:{loc.line}:{loc.col}" if loc else ""), loc)
    pr.add("")
    pr.add("kernel {", layout.kloc)
    pr.body(layout.stmts, 1)
    pr.add("}")
    pr.add("")
    pr.add("host {")
    for line, loc in layout.host:
        pr.add("    " + line, loc)
    pr.add("}")
    for chk in layout.checks:
        if chk != "clean_exit":
            raise ExtractError(None, f"config check {chk!r}: only clean_exit exists", layout.file)
        pr.add("check clean_exit;")
    text = "\n".join(pr.lines) + "\n"
    smap = tuple(SourceMapEntry(i, o.file, o.line, o.col, o.end_line, o.end_col)
                 for i, o in enumerate(pr.origins, 1) if o is not None)
    return text, smap


def call_sites(sites, once: bool = False) -> tuple[CallSite, ...]:
    """The TNOTIFY / TWAIT / TTEST call-site records (objects with kind, loc, levels), in
    source order; with `once`, equal records (a helper called twice) once."""
    out = tuple(sorted((CallSite(s.kind, s.loc.file, s.loc.line, s.loc.col,
                                 *(LEVEL_NAMES[s.levels[k]] for k in ("signal", "index", "peer", "value", "opcmp")))
                        for s in sites), key=lambda c: (c.file, c.line, c.col)))
    return tuple(dict.fromkeys(out)) if once else out

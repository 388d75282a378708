"""Extract the .sig synchronization skeleton of a PTO MLIR (PTO-AS) kernel: a `.pto` or `.mlir` file.

    from frontends.mlir import extract
    extraction = extract(["kernel.pto"])        # sigproof.toml beside it, if any
    print(extraction.sig_text)

The file is parsed with tree-sitter-mlir (frontends.mlir.source), the kernel function is
interpreted abstractly (frontends.mlir.interp) and printed as a .sig spec. The result has
the shape of frontends.cpp's: `sig_text`, `source_map`, `assumptions`, `call_sites`,
`kernel`, `kernel_at`. See docs/frontends.md, section "PTO MLIR".
"""

from __future__ import annotations

from pathlib import Path

from frontends.core.extraction import Assumption, CallSite, Extraction, SourceMapEntry
from frontends.core import sym as S
from frontends.core.errors import ExtractError, Loc
from frontends.core.assemble import Layout, call_sites, render, sizes
from frontends.core.skeleton import as_scalar, drop_unused_params, prune
from frontends.mlir import config as config_mod
from frontends.mlir.interp import Interp, SignalInfo
from frontends.mlir.source import Func, Module, parse

__all__ = ["extract", "Extraction", "Assumption", "CallSite", "SourceMapEntry", "ExtractError", "SUFFIXES"]

SUFFIXES = (".pto", ".mlir")
DEFAULT_RANKS = 2
_DECL = {"rank": "NRANKS - 1", "block": "NBLOCKS - 1", "nranks": "NRANKS", "nblocks": "NBLOCKS"}


def extract(paths: list[str], config: dict | None = None, kernel: str | None = None) -> Extraction:
    """Extract the skeleton of the kernel in the first file (later files are not read yet).

    `config=None` reads `sigproof.toml` beside the file; a dict replaces it. `// sigproof:`
    pragmas apply unless the config says `pragmas = false`. `kernel` names the function to
    extract, as the config's `kernel` key does (which wins over it). Raises ExtractError
    (printed as file:line:col: error: message) for input that cannot be read.
    """
    if not paths:
        raise ExtractError(None, "no MLIR file given")
    path = str(paths[0])
    if len(paths) > 1:
        raise ExtractError(None, "an MLIR kernel is one file: give only the .pto file (its helpers are func.func in it)", path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ExtractError(None, f"cannot read {path}: {e.strerror}", path) from None
    except UnicodeDecodeError:
        raise ExtractError(None, f"cannot read {path}: not UTF-8 text", path) from None
    module = parse(path, text)
    cfg = config_mod.resolve(config, path, module.pragmas)
    if kernel is not None and "kernel" not in cfg:
        cfg = {**cfg, "kernel": kernel}
    kernel = _choose_kernel(module, cfg, path)
    try:
        interp = Interp(module, kernel, cfg)
        stmts = interp.run()
        known, notes = _proven(interp, cfg)
        if known:  # run again with what the code showed, so every use of it is resolved alike
            interp = Interp(module, kernel, cfg, known)
            stmts = interp.run()
        stmts = prune(stmts)
    except RecursionError:
        raise ExtractError(kernel.loc, "the kernel nests too deeply to extract") from None
    for loc, text in notes:
        interp.assume(loc, text)
    return _assemble(interp, module, kernel, cfg, stmts)


def _origin_text(origin: tuple) -> str:
    if origin[0] == "arg":
        return origin[1]
    _, table, slot, half = origin
    return f"%{table}[{slot}] ({'low' if half == 'lo' else 'high'} 32 bits)"


def _proven(interp: Interp, cfg: dict) -> tuple[dict, list]:
    """What the first run proved from the code ({origin: role}), and notes on evidence not taken.

    A role shown for two different values, or for a value the config does not name for it,
    is not taken: the site keeps its config or convention level and the note says why.
    """
    known, notes = {}, []
    for role in ("rank", "nranks"):
        origins = sorted(o for o, ps in interp.proofs.items() if any(r == role for r, _ in ps))
        locs = sorted({loc for o in origins for r, loc in interp.proofs[o] if r == role},
                      key=lambda l: (l.line, l.col))
        if not origins:
            continue
        what = "the own rank" if role == "rank" else "the rank count"
        if len(origins) > 1:
            notes += [(loc, f"the window idiom shows different values as {what} "
                            f"({', '.join(_origin_text(o) for o in origins)}); none is taken from the code")
                      for loc in locs]
            continue
        (origin,) = origins
        named = [a.lstrip("%") for a in cfg.get(role, [])]
        if named and not (origin[0] == "arg" and origin[1].lstrip("%") in named):
            notes += [(loc, f"the window idiom here shows {_origin_text(origin)} as {what}, but the config says "
                            f"{role} = {', '.join(named)}; the config is followed") for loc in locs]
            continue
        known[origin] = role
    return known, notes


def _choose_kernel(module: Module, cfg: dict, path: str) -> Func:
    defined = [f for f in module.funcs.values() if f.body is not None]
    if "kernel" in cfg:
        name = cfg["kernel"].lstrip("@")
        if name not in module.funcs or module.funcs[name].body is None:
            raise ExtractError(None, f"no function @{name} (config key kernel) with a body in {path}", path)
        return module.funcs[name]
    called = {t.text[1:] for f in defined for op in _all_ops(f) for t in op.tokens if t.kind == "symbol_ref_id"}
    candidates = [f for f in defined if not f.private and f.name not in called]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ExtractError(None, "no kernel function (a func.func with a body that nothing calls) in the file", path)
    names = ", ".join("@" + f.name for f in candidates)
    raise ExtractError(candidates[1].loc, f"several kernel functions ({names}): choose one with kernel = \"NAME\"")


def _all_ops(f: Func):
    stack = list(f.body.blocks) if f.body else []
    while stack:
        b = stack.pop()
        for op in b.ops:
            yield op
            for r in op.regions:
                stack.extend(r.blocks)


def _upper(s: S.Sym, loops: dict[str, S.Sym], params: set[str], depth: int = 0) -> S.Sym | None:
    """An upper bound of an index, in declaration terms (NRANKS, NBLOCKS, params)."""
    if depth > 50:
        return None
    if s.op == "int":
        return s
    if s.op == "name":
        n = s.args[0]
        if n in _DECL:
            return S.name(_DECL[n]) if " " not in _DECL[n] else S.binop("-", S.name(_DECL[n].split()[0]), S.num(1))
        if n in params:
            return s
        if n in loops:
            u = _upper(loops[n], loops, params, depth + 1)
            return None if u is None else S.binop("-", u, S.num(1))
        return None
    if s.op == "bin":
        op, a, b = s.args
        if op == "%":
            ub = _upper(b, loops, params, depth + 1)
            return None if ub is None else S.binop("-", ub, S.num(1))
        ua = _upper(a, loops, params, depth + 1)
        if ua is None:
            return None
        if op == "-" and S.is_int(b):
            return S.binop("-", ua, b)
        if op == "/" and S.is_int(b) and b.args[0] > 0:
            return S.binop("/", ua, b)
        ub = _upper(b, loops, params, depth + 1)
        if ub is not None and op in ("+", "*"):
            return S.binop(op, ua, ub)
    if s.op == "call" and s.args[0] in ("min", "max"):
        a, b = (_upper(x, loops, params, depth + 1) for x in s.args[1:])
        return None if a is None or b is None else S.call(s.args[0], a, b)
    return None


def _tidy(s: S.Sym) -> S.Sym:
    lin = S.linear(s)
    if lin is not None and all(not m or not m[0].startswith("(") for m in lin):
        return S.from_linear(lin, s.level)
    return s


def _signal_size(interp: Interp, info: SignalInfo, arg: str, cfg: dict, bounds: dict) -> tuple[str, str | None, frozenset]:
    """The signal's dimension, the assumption it needed, and the names (params) it reads."""
    if arg in cfg.get("signals", {}) or "%" + arg in cfg.get("signals", {}):
        n = cfg["signals"].get(arg, cfg["signals"].get("%" + arg))
        return f"[{n}]", None, frozenset()
    params = set(interp.params)
    for source, what in ((info.extents, "to cover the indices used"), (info.declared, "from its tensor views")):
        ups = [_upper(e, bounds, params) for e in source]
        if source and all(u is not None for u in ups):
            total = None
            for u in ups:
                size = _tidy(S.binop("+", u, S.num(1)))
                total = size if total is None or S.render(total) == S.render(size) else S.call("max", total, size)
            note = f"the size of signal {info.name} is not configured; sized {S.render(total)} {what} " \
                   f"(set [signals] {arg} = N otherwise)"
            return f"[{S.render(total)}]", note, S.uses(total)
    pname = interp.fresh(f"{info.name.upper()}_SIZE")
    interp.params[pname] = (16, f"assumed: size of signal {info.name} unknown", info.loc)
    return f"[{pname}]", (f"the size of signal {info.name} is not known from the code; modelled as param {pname} = 16 "
                          f"(set [signals] {arg} = N); an index beyond it shows up as an error verdict"), frozenset((pname,))


def _assemble(interp: Interp, module: Module, kernel: Func, cfg: dict, stmts: list) -> Extraction:
    kloc = Loc(kernel.loc.file, kernel.loc.line, kernel.loc.col, kernel.loc.line, kernel.loc.col)
    counts, notes = sizes(cfg, kloc, DEFAULT_RANKS)
    bounds = interp.loops
    decls, decl_reads = [], set()
    for arg, info in interp.signals.items():
        if not info.extents:
            continue  # a pointer argument that no signal operation uses
        dims, note, reads = _signal_size(interp, info, arg, cfg, bounds)
        decl_reads |= reads
        if dims == "[1]" and info.only_zero:
            dims, note = "", None
            as_scalar(stmts, info.name)
        if note:
            notes.append((info.loc, note))
        decls.append((f"signal {info.name}{dims};", info))
    drop_unused_params(interp, stmts, decl_reads)
    host = _host(cfg, interp, kloc, notes)
    for loc, text in notes:
        interp.assume(loc, text)

    protocol = cfg.get("protocol", interp.fresh(kernel.name))
    params = [(f"param {pname} = {value};", comment, loc) for pname, (value, comment, loc) in interp.params.items()]
    text, smap = render(Layout("frontends.mlir", f"@{kernel.name}", Path(module.path).name, protocol, counts, kloc,
                               stmts, params, [(text, info.loc) for text, info in decls],
                               [(line, kloc) for line in host], tuple(cfg.get("check", [])), module.path))
    assumptions = interp.assumed()
    sites = call_sites(interp.sites, once=True)  # a helper called twice is one call site
    runtime = tuple((p, loc) for p, loc in interp.runtime_params.items() if p in interp.params)
    return Extraction(text, smap, assumptions, sites, kernel.name, kloc, (), runtime)


def _host(cfg: dict, interp: Interp, kloc: Loc, notes: list) -> list[str]:
    if "host" not in cfg:
        notes.append((kloc, "the host sequence is not configured; modelled as one launch per rank (set host = [\"launch\", ...])"))
        return ["launch;"]
    out = []
    for item in cfg["host"]:
        words = str(item).split()
        if words == ["launch"]:
            out.append("launch;")
        elif words == ["host_barrier"]:
            out.append("host_barrier;")
        elif len(words) == 2 and words[0] == "reset":
            info = interp.signals.get(words[1].lstrip("%")) or next(
                (i for i in interp.signals.values() if i.name == words[1]), None)
            if info is None or not info.extents:
                raise ExtractError(None, f"host step {item!r}: no signal {words[1]} is used by the kernel", kloc.file)
            out.append(f"reset {info.name};")
        else:
            raise ExtractError(None, f"host step {item!r}: expected launch, reset SIGNAL or host_barrier", kloc.file)
    return out

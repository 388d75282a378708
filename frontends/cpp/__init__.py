"""Extract the .sig synchronization skeleton of a PTO C++ kernel.

    from frontends.cpp import extract
    extraction = extract(["kernel.cpp"])        # sigproof.toml beside it, if any
    print(extraction.sig_text)
    for a in extraction.assumptions: print(a)

The kernel is parsed with tree-sitter, interpreted abstractly (constants folded, helpers
followed), and printed as a .sig spec. Every value the code does not determine becomes a
param with an `Assumption` at its C++ location. See docs/frontends.md.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from frontends.cpp import config as config_mod
from frontends.core import sym as S
from frontends.cpp.conditionals import parse_defines
from frontends.cpp.build import compile_line as read_compile_line
from frontends.cpp.data import drop_unused_buffers
from frontends.core.errors import ExtractError, Loc
from frontends.cpp.host import (HostPlan, HostReader, template_arg_name, enclosing_function, host_bindings, host_plan, instances,
                                template_params)
from frontends.cpp.host import strip as _host_strip
from frontends.cpp.interp import Interp, norm
from frontends.core.assemble import Layout, call_sites, render, sizes
from frontends.core import skeleton as K
from frontends.core.skeleton import as_scalar, drop_unused_params, prune
from frontends.cpp.source import Function, Index, declarator_name, load, snippet
from frontends.core.sym import FULL, LEVEL_NAMES, Sym
from frontends.core.extraction import Assumption, CallSite, DataSite, Extraction, SourceMapEntry

__all__ = ["extract", "Extraction", "Assumption", "CallSite", "DataSite", "SourceMapEntry", "ExtractError"]

DEFAULT_RANKS = 2


def extract(paths: list[str], config: dict | None = None, kernel: str | None = None) -> Extraction:
    """Extract the skeleton of the kernel in `paths` (the first file holds the kernel).

    `config=None` reads `sigproof.toml` beside the first file; a dict replaces it.
    `// sigproof:` pragmas in the sources apply unless the config says `pragmas = false`.
    `kernel` names the kernel when the first file holds several (see `kernels`); the config's
    `kernel` key wins over it. Raises ExtractError (printed as file:line:col: error: message)
    for unreadable input.
    """
    if not paths:
        raise ExtractError(None, "no C++ file given")
    index, cfg, compile_line = _load(paths, config)
    chosen = _choose_kernel(index, cfg, str(paths[0]), kernel)
    site = _launch_site(index, chosen, cfg)
    proven, moving = None, frozenset()
    vector = _vector_pass(index, cfg, chosen)
    for _ in range(_PASSES):
        interp = Interp(index, cfg, chosen, proven=proven, moving=moving)
        interp.launch_hints = [text for _, _, text in site.hints]
        stmts = prune(interp.run(site.args, site.template)) if vector is None else _mixed(interp, vector, site)
        again = False
        if proven is None and any(interp.evidence.values()):
            # the code showed which expressions are the own rank / the rank count (the window
            # idiom, Expressions.translation): interpret again with those resolved from the code
            proven, again = interp.evidence, True
        if not interp.moving_views <= moving:
            # a data tensor moves on inside a loop (found after transfers through it were
            # read): interpret again, leaving every transfer through it out from the start
            moving, again = moving | frozenset(interp.moving_views), True
        if not again:
            break
    else:
        raise ExtractError(_name_at(chosen), f"the data tensors that change inside loops did not settle in {_PASSES} passes")
    if compile_line is not None:
        where, macros = compile_line
        listed = ", ".join(k if v == "1" else f"{k}={v}" for k, v in sorted(macros.items()))
        interp.assume(where, f"the preprocessor macros of the kernel's compile line are taken from this build file: "
                             f"{listed} (set defines = [...] in sigproof.toml otherwise)")
    if kernel is not None and "kernel" not in cfg:
        for other in _entries(index, cfg)[1]:
            interp.assume(_name_at(other), f"kernel {other.name} has no signal or data-transfer operation and is not "
                                           f"checked (set kernel = \"{other.name}\" to check it alone)")
    return _assemble(interp, chosen, cfg, stmts, site)


_PASSES = 8  # interpretations of a kernel at most (each pass learns what the one before found)
SUBBLOCKS = 2  # vector cores per cube core of a mixed kernel: dav-c220 runs a mix kernel 1:2


def _vector_pass(index: Index, cfg: dict, chosen: Function) -> tuple[Index, Function] | None:
    """A mixed kernel's vector cores' pass (its index and kernel entry); None for a kernel of
    one core type."""
    v = index.vector_pass
    if v is None:
        return None
    fs = [f for f in v.functions.get(chosen.name, ()) if f.file.path == chosen.file.path]
    if not fs:
        raise ExtractError(_name_at(chosen), f"kernel {chosen.name} is not found in the vector cores' pass of "
                                             f"the file (set defines = [\"__DAV_CUBE__\"] to check the cube pass alone)")
    return v, fs[0]


def _mixed(interp: Interp, vector: tuple[Index, Function], site) -> list:
    """A mixed kernel read as one launch runs it: blocks 0 .. NBLOCKS-1 are the cube cores,
    running the cube pass (`__DAV_CUBE__`); then `subblocks` vector cores per cube core
    (NBLOCKS * subblocks blocks), running the vector pass (`__DAV_VEC__`), where
    get_block_idx() is the block of the cube core they pair with and get_subblockid() which
    of the pair. `if (block < NBLOCKS) { cube pass } else { vector pass }`; both share the
    signals, buffers and params of the kernel's arguments."""
    cube_index, cube_kernel = interp.index, interp.kernel
    sub = int(interp.cfg.get("subblocks", SUBBLOCKS))
    interp.mixed, interp.subblocks = True, sub
    nblocks = S.name("NBLOCKS")
    interp.core, interp.block_map = "cube", {"nblocks": nblocks}
    cube = prune(interp.run(site.args, site.template))
    v_index, v_kernel = vector
    interp.index, interp.kernel, interp.sf = v_index, v_kernel, v_kernel.file
    interp.core, interp.out = "vector", [[]]
    interp.block_map = {"block": S.binop("/", S.binop("-", S.name("block"), nblocks), S.num(sub)), "nblocks": nblocks}
    try:
        vec = prune(interp.run(site.args, site.template))
    finally:
        interp.index, interp.kernel, interp.sf = cube_index, cube_kernel, cube_kernel.file
        interp.core, interp.block_map = "cube", {}
    interp.index.notes = list(dict.fromkeys(cube_index.notes + v_index.notes))
    kloc = _name_at(cube_kernel)
    interp.assume(kloc, f"kernel {cube_kernel.name} is a mixed kernel: its cube cores' pass (__DAV_CUBE__) and its "
                        f"vector cores' pass (__DAV_VEC__) both hold signal or data operations of their own, and are "
                        f"checked together as one launch runs them: blocks 0 .. NBLOCKS-1 are the cube cores, then "
                        f"{sub} vector cores per cube core (get_block_idx() the block of the cube core they pair with, "
                        f"get_subblockid() 0 .. {sub - 1}, get_subblockdim() {sub}; set subblocks = N for another "
                        f"ratio, or defines = [\"__DAV_VEC__\"] to check one pass alone)")
    return [K.if_(S.binop("<", S.name("block"), nblocks), kloc, cube, vec)]


def kernels(paths: list[str], config: dict | None = None) -> list[str]:
    """The kernels of the first file that `sigproof check` checks, one result each: the one
    the config's `kernel` key names; else the file's one kernel entry (`__global__`, or
    `extern "C" __aicore__`); else, of several, each whose code (its body and the helpers
    it names, transitively) holds a signal or data-transfer operation (TNOTIFY, TWAIT,
    TTEST, TPUT, TGET, or a load or store of a `plain_signals` pointer), or every one when
    none does (each is then checked, and reported vacuous, as one kernel alone would be).
    Raises ExtractError when the file holds no kernel entry."""
    if not paths:
        raise ExtractError(None, "no C++ file given")
    index, cfg, _ = _load(paths, config)
    if "kernel" in cfg:
        return [_choose_kernel(index, cfg, str(paths[0])).name]
    entries = _kernels_in_first(index, str(paths[0]))
    if len(entries) == 1:
        return [entries[0].name]
    checked, _ = _entries(index, cfg)
    return [f.name for f in checked]


def _load(paths: list[str], config: dict | None) -> tuple[Index, dict, tuple | None]:
    """(index, config, compile line): the compile line is (where, macros) when the macros
    come from the build file beside the kernel (frontends/cpp/build.py), not the config."""
    line = read_compile_line(str(paths[0]))
    files = [str(p) for p in paths]
    index = load(files, include_dirs=line.include_dirs)
    cfg, _ = config_mod.resolve(config, str(paths[0]), index.pragmas)
    if cfg.get("defines"):
        return load(files, parse_defines(cfg["defines"]), line.include_dirs), cfg, None
    if not line.defines:
        return index, cfg, None
    return load(files, line.defines, line.include_dirs), cfg, (line.where, line.defines)


_NO_KERNEL = ("no kernel entry found: mark the kernel __global__, or write it as pypto and simpler do, "
              "extern \"C\" __aicore__ void NAME(...); or set kernel = \"NAME\"")


def _kernels_in_first(index: Index, first: str) -> list[Function]:
    kernels = [f for fs in index.functions.values() for f in fs if f.is_kernel and f.file is index.files[0]]
    kernels.sort(key=lambda f: f.node.start_byte)
    if not kernels:
        raise ExtractError(None, _NO_KERNEL, first)
    return kernels


def _entries(index: Index, cfg: dict | None = None) -> tuple[list[Function], list[Function]]:
    """The first file's kernels split into those with a signal or data-transfer operation in
    their code and those without (when none has one, all are in the first list)."""
    kernels = _kernels_in_first(index, index.files[0].path)
    if len(kernels) < 2:
        return kernels, []
    plain = set((cfg or {}).get("plain_signals", []))
    v = index.vector_pass   # a mixed kernel's: its signal code may be in the vector cores' pass only
    with_ops = [f for f in kernels if _reaches_sync(index, f, plain) or v is not None and any(
        _reaches_sync(v, g, plain) for g in v.functions.get(f.name, ()) if g.file.path == f.file.path)]
    if not with_ops:
        return kernels, []
    return with_ops, [f for f in kernels if f not in with_ops]


_SYNC = re.compile(r"\b(TNOTIFY|TWAIT|TTEST|TPUT|TGET)\b")
_WORD = re.compile(r"[A-Za-z_]\w*")


def _reaches_sync(index: Index, kernel: Function, plain: set[str]) -> bool:
    """Whether the kernel's body, or that of a function it names (transitively, any overload),
    holds a signal or data-transfer intrinsic or names a plain-signal pointer (read by text,
    as Statements.contains_sync does: a name is enough, so a kernel is never skipped for
    want of following a call)."""
    seen, todo = set(), [kernel]
    while todo:
        f = todo.pop()
        if id(f.node) in seen:
            continue
        seen.add(id(f.node))
        body = f.node.child_by_field_name("body")
        text = f.file.data[body.start_byte:body.end_byte].decode("utf-8", "replace") if body is not None else ""
        if _SYNC.search(text):
            return True
        words = set(_WORD.findall(text))
        if words & plain:
            return True
        todo.extend(g for w in sorted(words) for g in index.functions.get(w, ()) if not g.is_kernel)
    return False


def _name_at(f: Function) -> Loc:
    at = f.file.loc(f.node.child_by_field_name("declarator"))
    return Loc(at.file, at.line, at.col, at.line, at.col)


def _choose_kernel(index: Index, cfg: dict, first: str, kernel: str | None = None) -> Function:
    if "kernel" in cfg or kernel is not None:
        name = cfg.get("kernel", kernel)
        fs = index.functions.get(name)
        if not fs:
            what = "config key kernel" if "kernel" in cfg else "the kernel asked for"
            raise ExtractError(None, f"no function {name!r} ({what}) in the given files", first)
        return fs[0]
    in_first = _kernels_in_first(index, first)
    if len(in_first) > 1:
        names = ", ".join(f.name for f in in_first)
        raise ExtractError(index.files[0].loc(in_first[1].node),
                           f"several kernels ({names}): sigproof check checks each that has signal operations; "
                           f"to extract one, choose it with kernel = \"NAME\"")
    return in_first[0]


@dataclass
class LaunchSite:
    """What the kernel's launches in the given files say (see _launch_site)."""
    args: dict                      # kernel parameter -> Sym
    blocks: Sym | None = None
    template: list | None = None
    plan: HostPlan | None = None    # the host sequence read from the host code
    unread: tuple | None = None     # (file, node, why) when there is host code it cannot read
    hints: list = field(default_factory=list)   # (file, node, text): what the launches leave open


def _launch_site(index: Index, kernel: Function, cfg: dict) -> LaunchSite:
    """Arguments, block count, template arguments and host sequence of the kernel's
    `kernel<T...><<<blocks, ...>>>(args)` launches in the given files.

    An argument is taken when every launch passes the same value for it: a constant, or an
    expression over the communicator's rank and rank count that the host code shows
    (frontends.cpp.host); or, in a host loop `for (int v = A; v < B; ++v)` that launches
    once per iteration, the loop variable, which is launch_id plus a constant. The block
    count and template arguments are the first launch's."""
    launches = list(_launches(index, kernel))
    if not launches:
        return LaunchSite({}, None, [])
    reader = HostReader(index)
    found: list[dict] = []
    blocks, template, hints = None, [], []
    for sf, call, fn, args, mark in launches:
        consts = Interp(index, cfg, kernel)
        consts.sf = sf
        consts.scopes = [_host_scope(consts, reader, call)]
        out: dict = {}
        for p, a in zip(consts.params_of(kernel), args.named_children):
            name = declarator_name(p.child_by_field_name("declarator"))
            v = _host_value(consts, a)
            if name and v is not None:
                out[name] = v
        if not found:
            if fn.type == "template_function":
                template, hint = _template_args(index, cfg, kernel, reader, sf, call, fn)
                if hint:
                    hints.append(hint)
            first = _top_level_split(mark.text)[0] if mark.text.strip() else ""
            try:
                snip_sf, expr = snippet(first, sf.path, None)
                consts.sf = snip_sf
                blocks = _constant(consts, expr)
            except ExtractError:
                blocks = None
        found.append(out)
    agreed = {k: v for k, v in found[0].items()
              if all(k in o and S.render(o[k]) == S.render(v) for o in found[1:])}

    def constant(sf, node):
        c = Interp(index, cfg, kernel)
        c.sf = sf
        v = _constant(c, node)
        return v.args[0] if v is not None else None

    plan, unread = host_plan(reader, launches, constant)
    if plan is not None:
        agreed.update(_launch_ids(index, cfg, kernel, plan, agreed, reader))
    return LaunchSite(agreed, blocks, template, plan, unread, hints)


def _template_args(index: Index, cfg: dict, kernel: Function, reader: HostReader, sf, call, fn) -> tuple[list, tuple | None]:
    """The launch's template arguments `k<A, B><<<...>>>`: constants, or template parameters
    of the host function that launches, when the given files instantiate it with one tuple
    of constants (`template bool Run<4, 8>(...);`, or a call `Run<4, 8>(...)`, also through
    other templates). With several tuples, none is taken: (file, node, text) says which."""
    def value(vsf, a):
        c = Interp(index, cfg, kernel)
        c.sf = vsf
        name = template_arg_name(a)
        if name is not None and a.type == "type_descriptor":
            v = c.template_values(a.parent)[list(a.parent.named_children).index(a)]
            return v.args[0] if isinstance(v, Sym) and S.is_int(v) else None
        v = _constant(c, a)
        return v.args[0] if v is not None else None

    targs = fn.child_by_field_name("arguments").named_children
    vals = [value(sf, a) for a in targs]
    host_fn = enclosing_function(call)
    hparams = template_params(host_fn)
    hint = None
    if any(v is None and template_arg_name(a) in hparams for v, a in zip(vals, targs)):
        insts = sorted(instances(reader, host_fn, value), key=str)
        if len(insts) == 1:
            env = dict(zip(hparams, insts[0]))
            vals = [env.get(template_arg_name(a)) if v is None else v for v, a in zip(vals, targs)]
        elif insts and not set(n for n in template_params(kernel.node) if n) <= set(cfg.get("values", {})):
            shown = ", ".join("<" + ", ".join("?" if x is None else str(x) for x in t) + ">" for t in insts)
            hint = (sf, call, f"the host function instantiates the kernel's template arguments in several ways "
                              f"({shown}); none is taken (set [values] for the kernel's template parameters)")
    return [S.num(v) if v is not None else None for v in vals], hint


def _launch_ids(index: Index, cfg: dict, kernel: Function, plan: HostPlan, agreed: dict, reader: HostReader) -> dict:
    """Kernel parameters that the host sequence passes a different constant at different
    launches (a host loop variable, or constants): with v(i) the value at the i-th launch,
    `launch_id + c` when v(i) = i + c for one c, else the chain `launch_id == 0 ? v(0) :
    launch_id == 1 ? v(1) : ... v(n-1)`. The value is that of the argument evaluated with
    the host's values and the loop variables of that launch."""
    params = [declarator_name(p.child_by_field_name("declarator")) for p in Interp(index, cfg, kernel).params_of(kernel)]
    launches = [s for s in plan.steps if s.kind == "launch"]
    out = {}
    for k, name in enumerate(params):
        if name is None or name in agreed:
            continue
        values = []
        for step in launches:
            argv = step.node.child_by_field_name("arguments").named_children
            if k >= len(argv):
                break
            consts = Interp(index, cfg, kernel)
            consts.sf = step.sf
            scope = _host_scope(consts, reader, step.node)
            scope.update({var: S.num(v) for var, v in step.loop_values.items()})
            consts.scopes = [scope]
            v = _host_value(consts, argv[k])
            if v is None or not S.is_int(v):
                break
            values.append(v.args[0])
        if len(values) != len(launches) or not values:
            continue
        offsets = {v - i for i, v in enumerate(values)}
        if len(offsets) == 1:
            out[name] = S.binop("+", S.name("launch_id"), S.num(offsets.pop()))
        else:
            chain = S.num(values[-1])
            for i in range(len(values) - 2, -1, -1):
                chain = S.cond(S.binop("==", S.name("launch_id"), S.num(i)), S.num(values[i]), chain)
            out[name] = chain
    return out


def _launches(index: Index, kernel: Function):
    """(file, call, function node, argument list, `<<<...>>>` mark) of every launch."""
    for sf in index.files:
        launches = [m for m in sf.marks if m.kind == "launch"]
        if not launches:
            continue
        stack = [sf.tree.root_node]
        while stack:
            n = stack.pop()
            stack.extend(reversed(n.named_children))
            if n.type != "call_expression":
                continue
            fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
            if fn is None or args is None or norm(fn.text.decode()).split("::")[-1].split("<")[0] != kernel.name:
                continue
            lo, hi = sf.char_offset(fn) + len(fn.text.decode("utf-8", "replace")), sf.char_offset(args)
            mark = next((m for m in launches if lo <= m.start and m.end <= hi + 1), None)
            if mark is not None:
                yield sf, n, fn, args, mark


def _host_scope(consts: Interp, reader: HostReader, call) -> dict:
    """The host identifiers around a launch that have a .sig value: the communicator's
    rank and rank count, and locals initialised once from such values or constants."""
    meanings, inits = host_bindings(reader, call)
    scope: dict = {nm: consts.builtin(what, FULL) for nm, what in meanings.items()}
    consts.scopes = [scope]
    for nm, init in sorted(inits.items(), key=lambda kv: kv[1].start_byte):
        v = _host_value(consts, init)
        if v is not None:
            scope[nm] = v
    return scope


def _host_ident(node) -> str | None:
    node = _host_strip(node)
    return node.text.decode() if node is not None and node.type == "identifier" else None


def _host_value(interp: Interp, node) -> Sym | None:
    """A host expression's value when it is a constant or made of the rank and rank count."""
    try:
        v = interp.eval(node)
    except ExtractError:
        return None
    if not isinstance(v, Sym) or v.reads or v.level < FULL:
        return None
    return v if S.names(v) <= {"rank", "nranks"} else None


def _constant(interp: Interp, node) -> Sym | None:
    """A host-code expression's value when it is a constant (host variables are not followed)."""
    try:
        v = interp.eval(node)
    except ExtractError:
        return None
    return v if isinstance(v, Sym) and S.is_int(v) else None


def _top_level_split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


_DECL = {"rank": S.binop("-", S.name("NRANKS"), S.num(1)), "block": S.binop("-", S.name("NBLOCKS"), S.num(1)),
         "nranks": S.name("NRANKS"), "nblocks": S.name("NBLOCKS")}


def _upper(s: Sym, interp: Interp, depth: int = 0) -> Sym | None:
    """An upper bound of a kernel expression, in declaration terms (params only)."""
    if depth > 50:
        return None
    if s.op == "int":
        return s
    if s.op == "name":
        n = s.args[0]
        if n in _DECL:
            return _DECL[n]
        if n in interp.params:
            return s
        v = interp.local_values.get(n)
        if v is None and n in interp.counters:
            return _counter_upper(n, interp, depth + 1)
        return _upper(v, interp, depth + 1) if v is not None else None
    if s.op == "bin":
        op, a, b = s.args
        ua = _upper(a, interp, depth + 1)
        if op == "%":
            ub = _upper(b, interp, depth + 1)
            return None if ub is None else S.binop("-", ub, S.num(1))
        if ua is None:
            return None
        if op == "-":
            return S.binop("-", ua, b) if S.is_int(b) else ua
        if op == "/" and S.is_int(b) and b.args[0] > 0:
            return S.binop("/", ua, b)
        if op == "/" and _at_least_one(b):
            return S.call("max", ua, S.num(0))      # a divisor of at least 1: at most a, or 0
        ub = _upper(b, interp, depth + 1)
        if ub is None:
            return None
        if op in ("+", "*"):
            return S.binop(op, ua, ub)
        return None
    if s.op == "cond":
        a, b = _upper(s.args[1], interp, depth + 1), _upper(s.args[2], interp, depth + 1)
        return None if a is None or b is None else S.call("max", a, b)
    if s.op == "call":
        a, b = _upper(s.args[1], interp, depth + 1), _upper(s.args[2], interp, depth + 1)
        return None if a is None or b is None else S.call(s.args[0], a, b)
    return None


def _at_least_one(s: Sym) -> bool:
    """Whether a kernel expression is at least 1 whatever the params: a positive literal, the
    rank or block count, or a sum or product of such."""
    if s.op == "int":
        return s.args[0] >= 1
    if s.op == "name":
        return s.args[0] in ("nranks", "nblocks")
    return s.op == "bin" and s.args[0] in ("+", "*") and _at_least_one(s.args[1]) and _at_least_one(s.args[2])


def _counter_upper(n: str, interp: Interp, depth: int) -> Sym | None:
    """A counter's largest value: its start plus, per increment, the increment times the trips
    of the loops around it (each at most `(last - first) / step + 1`, and at least 0); the
    counter only grows, so that bounds it everywhere."""
    start, sites = interp.counters[n]
    total: Sym = S.num(start)
    for inc, loops in sites:
        term: Sym = S.num(inc)
        for lid in loops:
            trips = interp.loop_trips.get(lid)
            if trips is None:
                return None
            var, first, step = trips
            last = _upper(S.name(var), interp, depth + 1)
            if last is None:
                return None
            count = S.binop("+", S.binop("-", last, S.num(first)), S.num(step))
            if step != 1:
                count = S.binop("/", count, S.num(step))
            term = S.binop("*", term, S.call("max", count, S.num(0)))
        total = S.binop("+", total, term)
    return total


def _tidy(s: Sym) -> Sym:
    lin = S.linear(s)
    if lin is not None and all(not m or not m[0].startswith("(") for m in lin):
        return S.from_linear(lin, s.level)
    return s


def _signal_dims(interp: Interp, info, kernel: Function, what: str = "signal") -> tuple[str, list, frozenset]:
    """The declared dimensions of a signal (or buffer), any assumption they needed, and the
    names (params) they read."""
    key = "signals" if what == "signal" else "buffers"
    if info.dims is not None:
        out, reads = [], set()
        for d in info.dims:
            decl = S.substitute(d, {"nranks": S.name("NRANKS"), "nblocks": S.name("NBLOCKS")})
            bad = S.names(decl) - {"NRANKS", "NBLOCKS"} - set(interp.params)
            if bad:
                raise ExtractError(info.loc, f"{what} {info.key}: the configured size uses {', '.join(sorted(bad))}, which is not a constant")
            if not S.is_int(decl) and S.names(decl) - {"NRANKS", "NBLOCKS"}:
                decl = S.call("max", decl, S.num(1))      # an assumption param may be 0
            out.append(S.render(decl))
            reads |= S.uses(decl)
        return "".join(f"[{d}]" for d in out), [], frozenset(reads)
    sizes = []
    for start, last in info.spans:
        u = _upper(last, interp)
        if u is None:
            sizes = None
            break
        sizes.append(_tidy(S.binop("+", u, S.num(1))))
    if sizes is None or not sizes:
        p = interp.param(f"size:{info.key}", f"{info.name}_SIZE", 16, f"assumed: size of {what} {info.key} unknown", info.loc)
        return f"[{S.render(p)}]", [(info.loc, f"the size of {what} {info.key} is not known from the code; modelled as param {S.render(p)} = 16 (set [{key}] {info.key} = N); an index beyond it shows up as an error verdict")], S.uses(p)
    uniq: list[Sym] = []
    for s in sizes:
        if S.render(s) not in {S.render(u) for u in uniq}:
            uniq.append(s)
    total = uniq[0]
    for s in uniq[1:]:
        total = S.call("max", total, s)
    note = f"the size of {what} {info.key} is not configured; sized {S.render(total)} to cover the indices used (set [{key}] {info.key} = N otherwise)"
    return f"[{S.render(total)}]", [(info.loc, note)], S.uses(total)


def _assemble(interp: Interp, kernel: Function, cfg: dict, stmts: list, site: LaunchSite) -> Extraction:
    launch_blocks = site.blocks
    kloc = kernel.file.loc(kernel.node.child_by_field_name("declarator"))
    kloc = Loc(kloc.file, kloc.line, kloc.col, kloc.line, kloc.col)
    counts, notes = sizes(cfg, kloc, DEFAULT_RANKS, launch_blocks.args[0] if launch_blocks is not None else None)
    if interp.mixed:
        counts = dataclasses.replace(counts, subblocks=interp.subblocks)
    sig_decls, decl_reads, chosen = [], set(), []
    for info in interp.signals.values():
        dims, extra, reads = _signal_dims(interp, info, kernel)
        if info.dims is None:
            chosen.append(info.name)
        decl_reads |= reads
        if dims == "[1]" and info.dims is None and all(S.is_int(a) and a.args[0] == 0 for a, _ in info.spans):
            dims = ""
            as_scalar(stmts, info.name)
            extra = [(loc, t.replace("sized 1 to cover", "a scalar, which covers")) for loc, t in extra]
        notes.extend(extra)
        sig_decls.append((f"signal {info.name}{dims};", info))
    drop_unused_buffers(interp, stmts)
    for info in interp.buffers.values():
        dims, extra, reads = _signal_dims(interp, info, kernel, "buffer")
        if info.dims is None:
            chosen.append(info.name)
        decl_reads |= reads
        notes.extend(extra)
        sig_decls.append((f"buffer {info.name}{dims};", info))
    drop_unused_params(interp, stmts, decl_reads)
    host_lines, host_notes = _host(cfg, interp, kloc, site)
    notes.extend(host_notes)
    notes.extend(interp.index.notes)
    notes.extend(interp.pointer_notes())
    notes.extend((hsf.loc(node), text) for hsf, node, text in site.hints)
    for loc, text in notes:
        interp.assume(loc, text)

    params = [(f"param {pname} = {value};", (f"{Path(loc.file).name}:{loc.line}:{loc.col}: " if loc else "") + comment,
               loc) for pname, (value, comment, loc) in interp.params.items()]
    decls = [(text, info.loc) for text, info in sig_decls]
    decls += [(vtext, vloc) for _, (vname, vtext, vloc) in sorted(interp.views.items(), key=lambda kv: kv[1][0])]
    text, smap = render(Layout("frontends.cpp", kernel.name, Path(kernel.file.path).name,
                               cfg.get("protocol", kernel.name), counts, kloc, stmts, params, decls, host_lines,
                               tuple(cfg.get("check", [])), kernel.file.path))
    assumptions = interp.assumed()
    sites = call_sites(interp.sites.values())
    data_sites = tuple(sorted((DataSite(kind, loc.file, loc.line, loc.col, *(LEVEL_NAMES[lv[k]] for k in ("dst", "src", "peer")))
                               for kind, loc, lv in interp.data_sites.values()), key=lambda c: (c.file, c.line, c.col)))
    runtime = tuple((p, loc) for p, loc in interp.runtime_params.items() if p in interp.params)
    return Extraction(text, smap, assumptions, sites, kernel.name, kloc, data_sites, runtime, tuple(chosen))


def _host(cfg: dict, interp: Interp, kloc: Loc, site: LaunchSite) -> tuple[list[tuple[str, Loc]], list]:
    """The host block's lines, each with the C++ place it stands for."""
    if "host" not in cfg and site.plan is not None:
        plan = site.plan
        lines = [(f"{s.kind};", s.sf.loc(s.node)) for s in plan.steps]
        floc = plan.sf.loc(plan.node.child_by_field_name("declarator"))
        n = sum(s.kind == "launch" for s in plan.steps)
        b = len(plan.steps) - n
        return lines, [(floc, f"the host sequence is read from {plan.function} ({n} launch{'es' if n != 1 else ''}, "
                              f"{b} host barrier{'s' if b != 1 else ''}); {plan.function} is taken to run once "
                              f"per rank (set host = [\"launch\", ...] otherwise)")]
    if "host" not in cfg:
        notes = [(kloc, "the host sequence is not configured; modelled as one launch per rank (set host = [\"launch\", ...])")]
        if site.unread is not None:
            usf, node, why = site.unread
            notes.append((usf.loc(node), f"the host code here is not read as the host sequence: {why}"))
        return [("launch;", kloc)], notes
    out = []
    for item in cfg["host"]:
        words = str(item).split()
        if words == ["launch"]:
            out.append(("launch;", kloc))
        elif words == ["host_barrier"]:
            out.append(("host_barrier;", kloc))
        elif len(words) == 2 and words[0] == "reset":
            info = interp.signals.get(words[1]) or next((i for i in interp.signals.values() if i.name == words[1]), None)
            if info is None:
                raise ExtractError(None, f"host step {item!r}: no signal {words[1]} is used by the kernel", kloc.file)
            out.append((f"reset {info.name};", kloc))
        else:
            raise ExtractError(None, f"host step {item!r}: expected launch, reset SIGNAL or host_barrier", kloc.file)
    return out, []

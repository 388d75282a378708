"""Signal wrappers, the .sig views they become, and the TNOTIFY / TWAIT / TTEST calls."""

from __future__ import annotations

from frontends.core import sym as S
from frontends.core.errors import ExtractError
from frontends.core import skeleton as K
from frontends.cpp.source import snippet
from frontends.core.sym import FULL, NONE, Sym
from frontends.cpp.values import CMPS, INT32_TYPES, OPS, SIZE_OF, Enum, Ptr, Unknown, View, clean_type
from frontends.cpp.vocabulary import WRAPPERS, SignalInfo, Site


class Views:
    """Signals, views and signal operations (a part of Interp)."""

    def signal(self, ptr: Ptr) -> SignalInfo:
        info = self.signals.get(ptr.base)
        if info is None:
            stale = self.buffers.pop(ptr.base, None)    # read by a TLOAD before: not a buffer after all
            name = stale.name if stale is not None else self.fresh(ptr.base)
            dims = None
            sizes = self.cfg.get("signals", {})
            spec = sizes.get(ptr.base, sizes.get(name))
            level = ptr.level
            if spec is not None:
                items = spec if isinstance(spec, list) else [spec]
                dims = tuple(self.as_int(self.eval_config(str(d), ptr.origin), None) if isinstance(d, str)
                             else S.num(int(d)) for d in items)
                if not 1 <= len(dims) <= 5:
                    raise ExtractError(ptr.origin, f"signal {ptr.base}: 1 to 5 dimensions expected in the config")
            info = SignalInfo(name, ptr.base, ptr.origin, level, dims)
            self.signals[ptr.base] = info
        return info

    def elements(self, offset: Sym, size: int = 4) -> Sym:
        exact = S.div_exact(offset, size)
        if exact is not None:
            return exact
        lin = S.linear(offset)
        if lin is not None and all(c % size == 0 for c in lin.values()):
            return S.from_linear({m: c // size for m, c in lin.items()}, offset.level)
        return S.binop("/", offset, S.num(size))

    def view_text(self, view: View, node, single: bool) -> tuple[str, dict, frozenset]:
        """`NAME[sel] @ r` for a signal view, its resolution levels and the names it reads."""
        ptr = view.ptr
        if ptr.base in self.buffers and ptr.base in self.transfer_bases:
            raise self.error(node, f"{ptr.base} is used both as TPUT/TGET data and as a signal")
        info = self.signal(ptr)
        start = self.elements(ptr.offset)
        shape, strides = list(view.shape), list(view.strides)
        dims_used = [(n, s) for n, s in zip(shape, strides) if not (S.is_int(n) and n.args[0] == 1)]
        if single and dims_used:
            self.assume(self.loc(node), "TNOTIFY on a multi-element view writes its element 0 only; modelled so")
            dims_used = []
        last = start
        for n, s in dims_used:
            last = S.binop("+", last, S.binop("*", S.binop("-", n, S.num(1)), s))
        info.spans.append((start, last))
        if info.dims is None:
            name, sel = self.flat_selector(start, dims_used, node, info)
        else:
            name, sel = info.name, self.dim_selectors(start, dims_used, info, node)
        text = name + sel
        at = ""
        if ptr.rank is not None and S.render(ptr.rank) != "rank":
            r = ptr.rank
            at = f" @ {S.render(r)}" if S.prec(r) >= 13 else f" @ ({S.render(r)})"
            self.note_rank_use(r)
        levels = {"signal": ptr.level, "index": start.level,
                  "peer": ptr.rank.level if ptr.rank is not None else FULL}
        return text + at, levels, K.names(name, start, ptr.rank, *(x for d in dims_used for x in d))

    def note_rank_use(self, r: Sym) -> None:
        for n in S.names(r):
            if n in self.uses:
                self.uses[n] = True

    def flat_selector(self, start: Sym, dims, node, info, allow_view: bool = True) -> tuple[str, str]:
        """(name, selectors) of a view of a flat signal: the signal with an index or a
        slice, or a declared `view` for a strided 2-D window (Signal2D with a row stride; a
        strided GlobalTensor of a buffer, `allow_view` False, likewise)."""
        st = S.render(start)
        if not dims:
            return info.name, f"[{st}]"
        if len(dims) == 1:
            n, s = dims[0]
            if S.is_int(s) and s.args[0] == 1:
                return info.name, f"[{st}:{S.render(S.binop('+', start, n))}]"
            end = S.binop("+", start, S.binop("+", S.binop("*", S.binop("-", n, S.num(1)), s), S.num(1)))
            return info.name, f"[{st}:{S.render(end)}:{S.render(s)}]"
        inner = S.num(1)
        total = S.num(1)
        for k, (n, s) in enumerate(reversed(dims)):
            if S.linear(s) != S.linear(inner):
                if k == len(dims) - 1 and all(S.is_int(x) for x in (start, s, *(d for d, _ in dims))):
                    return self.strided_view(start, dims, info, node), ""
                what = "signal" if allow_view else "buffer"
                raise self.error(node, f"a strided multi-dimensional view of {what} {info.key} whose offset or stride is not a constant: give its dimensions in the config ([{what}s] {info.key} = [..])")
            inner = S.binop("*", inner, n)
            total = inner
        return info.name, f"[{st}:{S.render(S.binop('+', start, total))}]"

    def strided_view(self, start: Sym, dims, info, node) -> str:
        """A `view NAME[R][C] = SIG[OFF::STRIDE];` declaration for a constant strided window."""
        shape = tuple(d.args[0] for d, _ in dims)
        key = (info.key, start.args[0], dims[0][1].args[0], shape)
        if key not in self.views:
            name = self.fresh(f"{info.name}_view")
            text = (f"view {name}{''.join(f'[{d}]' for d in shape)} = "
                    f"{info.name}[{start.args[0]}::{dims[0][1].args[0]}];")
            self.views[key] = (name, text, self.loc(node))
        return self.views[key][0]

    def take_multiples(self, rest: dict, stride: Sym, node, info: SignalInfo) -> dict:
        """Move the terms of the linear form `rest` that are multiples of `stride` out of
        it, divided by the stride: the index of one dimension (row-major, outermost first)."""
        form = S.linear(stride)
        if not form or len(form) != 1:
            raise self.error(node, f"signal {info.key}: a dimension of the config is not a product of names")
        (smono, scoef), = form.items()
        take: dict = {}
        for mono, c in list(rest.items()):
            factors = list(mono)
            if not mono:                               # the constant term: its quotient
                if smono or c < 0:
                    continue
                q, r = divmod(c, scoef)
                if q:
                    take[()] = q
                    if r:
                        rest[()] = r
                    else:
                        del rest[()]
                continue
            if c % scoef or any(factors.count(f) < smono.count(f) for f in set(smono)):
                continue
            for f in smono:
                factors.remove(f)
            key = tuple(factors)
            take[key] = take.get(key, 0) + c // scoef
            del rest[mono]
        return take

    def dim_selectors(self, start: Sym, dims, info: SignalInfo, node) -> str:
        strides = []
        acc = S.num(1)
        for d in reversed(info.dims):
            strides.append(acc)
            acc = S.binop("*", acc, d)
        strides.reverse()
        form = S.linear(start)
        if form is None:
            if len(info.dims) == 1:
                idx = [start]
            else:
                raise self.error(node, f"cannot split the offset {S.render(start)} of signal {info.key} into indices")
        else:
            idx = []
            rest = dict(form)
            for st in strides:
                idx.append(S.from_linear(self.take_multiples(rest, st, node, info), start.level))
            if rest:
                raise self.error(node, f"cannot split the offset {S.render(start)} of signal {info.key} into indices")
        sel = [f"[{S.render(i)}]" for i in idx]
        for n, s in dims:
            k = next((k for k, st in enumerate(strides) if S.linear(st) == S.linear(s)), None)
            if k is None:
                raise self.error(node, f"a view of signal {info.key} with stride {S.render(s)} matches no dimension of the config")
            sel[k] = f"[{S.render(idx[k])}:{S.render(S.binop('+', idx[k], n))}]"
        return "".join(sel)

    def template_values(self, targs) -> list:
        if targs is None:
            return []
        out = []
        for a in targs.named_children:
            if a.type == "type_descriptor":
                ty = a.child_by_field_name("type")
                v = self.eval(ty) if ty is not None and ty.type == "type_identifier" and not a.child_by_field_name("declarator") else None
                out.append(v if isinstance(v, Sym) and S.is_int(v) else a)   # `<kRows, kCols>` read as types
            elif a.type == "identifier" and clean_type(self.sf.text_of(a)) in SIZE_OF:
                out.append(a)   # an element type the parser read as an expression (`GlobalTensor<\n bfloat16_t, ...>`)
            else:
                out.append(self.as_int(self.eval(a), a))
        return out

    def wrapper(self, kind: str, targs, arg_nodes, node):
        return self.wrapper_values(kind, targs, [self.eval(a) for a in arg_nodes], arg_nodes, node)

    def wrapper_values(self, kind: str, targs, args: list, arg_nodes, node):
        if not args:
            raise self.error(node, f"{kind} without a pointer argument")
        ptr = self.as_ptr(args[0], arg_nodes[0])
        if ptr is None:
            raise self.not_a_signal(args[0], arg_nodes[0], self.wrapped(kind, targs))
        tv = self.template_values(targs)
        if kind == "Signal":
            return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), (), ())
        if kind == "Signal2D":
            ints = [v for v in tv if isinstance(v, Sym)]
            if len(ints) < 2:
                raise self.error(node, "Signal2D needs its <rows, cols> template arguments (from a constant, the launch, "
                                      "or [values] in sigproof.toml)" + "".join(f"; {h}" for h in self.launch_hints))
            rows, cols = ints[0], ints[1]
            stride = self.as_int(args[1], arg_nodes[1]) if len(args) > 1 else cols
            return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), (rows, cols), (stride, S.num(1)))
        # GlobalTensor<T, Shape<...>, Stride<...>>
        if not tv or not hasattr(tv[0], "type"):
            return Unknown(self.text(node), self.loc(node))
        etype = clean_type(self.sf.text_of(tv[0]))
        if etype not in INT32_TYPES:
            return self.data_tensor(ptr, etype, tv, node)
        shape, strides = self.shape_and_strides(tv, node)
        return View(Ptr(ptr.base, ptr.offset, ptr.rank, 4, ptr.level, ptr.plain, ptr.origin), shape, strides)

    def shape_and_strides(self, tv, node) -> tuple[tuple, tuple]:
        """A GlobalTensor's `Shape<...>` (default: one element) and `Stride<...>` (default:
        row-major over that shape) from its template arguments `tv`."""
        shape = self.shape_args(tv[1] if len(tv) > 1 else None, node)
        strides = self.shape_args(tv[2] if len(tv) > 2 else None, node)
        if shape is None:
            shape = (S.num(1),)
        if strides is None:
            acc, st = S.num(1), []
            for n in reversed(shape):
                st.append(acc)
                acc = S.binop("*", acc, n)
            strides = tuple(reversed(st))
        return shape, strides

    def shape_args(self, td, node):
        """The integer arguments of a `Shape<...>` / `Stride<...>` type (through aliases)."""
        if td is None:
            return None
        if isinstance(td, Sym):
            raise self.error(node, "GlobalTensor: expected Shape<...> and Stride<...> type arguments")
        ty = td.child_by_field_name("type") if td.type == "type_descriptor" else td
        while ty is not None and ty.type == "qualified_identifier":
            ty = ty.child_by_field_name("name")
        if ty is None:
            return None
        if ty.type == "type_identifier" and self.text(ty) in self.index.aliases:
            alias, sf = self.index.aliases[self.text(ty)]
            saved, self.sf = self.sf, sf
            try:
                return self.shape_args(alias, node)
            finally:
                self.sf = saved
        if ty.type != "template_type":
            return None
        targs = ty.child_by_field_name("arguments")
        vals = []
        for a in targs.named_children:
            if a.type == "type_descriptor" and a.child_by_field_name("declarator") is None:
                a = a.child_by_field_name("type")       # `Shape<1, kCols>`: a constant read as a type
            v = self.as_int(self.eval(a), a)
            if S.is_int(v) and v.args[0] < 0:
                raise self.error(a, "a dynamic GlobalTensor shape: give the signal's size in the config")
            vals.append(v)
        return tuple(vals)

    def wrapper_kind(self, ty) -> tuple[str, object] | None:
        if ty is None:
            return None
        base, targs = ty, None
        if base.type == "type_descriptor":           # a `using X = GlobalTensor<...>;` alias
            base = base.child_by_field_name("type")
        if base.type == "qualified_identifier":
            while base.type == "qualified_identifier":
                base = base.child_by_field_name("name")
        if base.type == "template_type":
            targs = base.child_by_field_name("arguments")
            base = base.child_by_field_name("name")
        name = self.text(base)
        if name in self.index.aliases and targs is None:
            alias, sf = self.index.aliases[name]
            saved, self.sf = self.sf, sf
            try:
                r = self.wrapper_kind(alias)
            finally:
                self.sf = saved
            return r
        return (name, targs) if name in WRAPPERS else None

    def wrapped(self, kind: str, targs) -> str:
        """What a wrapper's pointer is: a "data buffer" for a GlobalTensor of a non-int32
        element type, else a "signal"."""
        if kind in ("Signal", "Signal2D") or targs is None:
            return "signal"
        first = next(iter(targs.named_children), None)
        if first is None or first.type != "type_descriptor":
            return "signal"
        return "signal" if clean_type(self.sf.text_of(first)) in INT32_TYPES else "data buffer"

    def not_a_signal(self, value, node, what: str = "signal") -> ExtractError:
        why = ""
        if isinstance(value, Unknown) and value.key.startswith("call:"):
            why = f": {value.hint} has no definition among the given files and their local headers"
        hint = (" (if it points into a region of a workspace, name the region's start as the code computes it "
                "in the config: [regions] NAME = {base = \"workspace + offset\"})")
        return self.error(node, f"cannot tell which {what} `{self.text(node)}` points into{why}{hint}")

    def vexing(self, kind: str, targs, plist, d):
        """`Signal sig(ptr);` parsed as a function declaration: read its parameters again
        as the constructor's argument expressions (locations stay those of the source)."""
        if not plist.named_children:
            raise self.error(d, f"{kind} without a pointer argument")
        first, last = plist.named_children[0], plist.named_children[-1]
        text = self.sf.data[first.start_byte:last.end_byte].decode("utf-8", "replace")
        what = self.wrapped(kind, targs)
        snip_sf, expr = snippet(text, self.sf.path, self.loc(first), at=self.loc(first))
        saved, self.sf = self.sf, snip_sf
        try:
            arg_nodes = expr.named_children if expr.type == "comma_expression" else [expr]
            if expr.type == "comma_expression":
                arg_nodes = [expr.child_by_field_name("left"), expr.child_by_field_name("right")]
            values = [self.eval(a) for a in arg_nodes]
            # what is said about the arguments is said with the snippet's text and places
            if values and self.as_ptr(values[0], arg_nodes[0]) is None:
                raise self.not_a_signal(values[0], arg_nodes[0], what)
            values[1:] = [self.as_int(v, a) for v, a in zip(values[1:], arg_nodes[1:])]
        finally:
            self.sf = saved
        return self.wrapper_values(kind, targs, values, arg_nodes, d)

    def signal_op(self, kind: str, arg_nodes, node):
        if len(arg_nodes) < 3:
            raise self.error(node, f"{kind} needs (signal, value, {'op' if kind == 'TNOTIFY' else 'cmp'})")
        view = self.as_view(self.eval(arg_nodes[0]), arg_nodes[0])
        value = self.as_int(self.eval(arg_nodes[1]), arg_nodes[1], "VALUE")
        e = self.as_enum(self.eval(arg_nodes[2]), arg_nodes[2], "op" if kind == "TNOTIFY" else "cmp")
        if kind == "TTEST":
            return self.ttest(view, value, e, node, kind)
        ref, levels, reads = self.view_text(view, arg_nodes[0], single=(kind == "TNOTIFY"))
        reads = K.names(reads, value)
        levels["value"] = value.level
        levels["opcmp"] = e.level if isinstance(e, Enum) else NONE
        self.site(kind, node, levels)
        loc = self.loc(node)
        names = OPS if kind == "TNOTIFY" else CMPS
        if isinstance(e, Enum):
            self.emit(K.sync(f"{kind}({ref}, {S.render(value)}, {e.name});", loc, reads))
        else:
            self.choice_chain(kind, ref, value, e, names, loc, reads)
        return S.num(0)

    def choice_chain(self, kind, ref, value, p: Sym, names, loc, reads: frozenset) -> None:
        pn = S.render(p)
        chain = K.if_((f"{pn} == 0", K.names(p)), loc, [K.sync(f"{kind}({ref}, {S.render(value)}, {names[0]});", loc, reads)])
        cur = chain
        for i, n in enumerate(names[1:], 1):
            line = K.sync(f"{kind}({ref}, {S.render(value)}, {n});", loc, reads)
            if i == len(names) - 1:
                cur.orelse = [line]
            else:
                nxt = K.if_((f"{pn} == {i}", K.names(p)), loc, [line])
                cur.orelse = [nxt]
                cur = nxt
        self.emit(chain)

    def ttest(self, view: View, value: Sym, e, node, kind: str) -> Sym:
        ref, levels, reads = self.view_text(view, node, single=False)
        reads = K.names(reads, value)
        levels["value"] = value.level
        levels["opcmp"] = e.level if isinstance(e, Enum) else NONE
        self.site("TTEST", node, levels)
        level = min(levels.values())
        if isinstance(e, Enum):
            return S.text(f"TTEST({ref}, {S.render(value)}, {e.name})", level, names=reads)
        out = S.text(f"TTEST({ref}, {S.render(value)}, {CMPS[-1]})", level, names=reads)
        for i in range(len(CMPS) - 2, -1, -1):
            out = S.cond(S.binop("==", e, S.num(i)), S.text(f"TTEST({ref}, {S.render(value)}, {CMPS[i]})", level, names=reads), out)
        return out

    def site(self, kind: str, node, levels: dict) -> None:
        loc = self.loc(node)
        key = (loc.file, loc.line, loc.col)
        old = self.sites.get(key)
        if old is not None:
            levels = {k: min(v, old.levels[k]) for k, v in levels.items()}
        self.sites[key] = Site(kind, loc, levels)

"""Data movement for the .sig data extension: `TPUT` / `TGET` between GlobalTensors, and the
`TLOAD` / `TSTORE` reads and writes of the buffers they touch.

`pto::comm::TPUT(dst, src, tile...)` (with `<AtomicType::AtomicAdd>` as a template argument
or an `AtomicType::AtomicAdd` argument) becomes `TPUT(DST @ r, SRC[, AtomicAdd]);` and
`TGET(dst, src, tile...)` becomes `TGET(DST, SRC @ r);`: the peer is the rank of the remote
operand's window translation, resolved exactly like a TNOTIFY's peer. Every pointer that
reaches a TPUT/TGET is a `buffer`, sized like a signal. The staging tiles are UB scratch of
the calling core and are not modelled.

Known limitations: async transfers (`TPUT_ASYNC` / `TGET_ASYNC`) are left out with an
assumption; a GlobalTensor with a runtime Shape is modelled as its first element; a strided
(non-contiguous) buffer view with constant offset, shape and stride is a declared `view` of
the buffer (`view recv_view[2][32] = recv[0::64];`), one with run-time ones is refused.
"""

from __future__ import annotations

import re

from frontends.core import sym as S
from frontends.core import skeleton as K
from frontends.core.errors import ExtractError
from frontends.core.sym import FULL, Sym
from frontends.cpp.values import SIZE_OF, Ptr, Unknown, View
from frontends.cpp.vocabulary import SignalInfo, norm

ATOMIC = ("AtomicNone", "AtomicAdd")


MAX_ROWS = 64  # a strided window at a runtime offset is cut into at most this many rows


class Data:
    """TPUT / TGET / TLOAD / TSTORE (a part of Interp)."""

    def data_tensor(self, ptr: Ptr, etype: str, tv: list, node) -> View:
        """A GlobalTensor of a non-int32 element type: data, never a signal."""
        dsize = SIZE_OF.get(etype, ptr.elem if ptr.elem > 1 else 4)
        p = Ptr(ptr.base, ptr.offset, ptr.rank, dsize, ptr.level, ptr.plain, ptr.origin)
        site = self.loc(node)
        try:
            shape, strides = self.shape_and_strides(tv, node)
        except ExtractError:   # a runtime Shape (pto::DYNAMIC): the extent is not in the code
            return View(p, (), (), dsize, True, True, site)
        dynamic = not all(S.is_int(x) for x in (*shape, *strides))
        return View(p, () if dynamic else shape, () if dynamic else strides, dsize, True, dynamic, site)

    def data_view(self, arg_node, node, what: str) -> View | None:
        """The GlobalTensor (or plain pointer) operand of a transfer; None, with an
        assumption at its location, when the extraction cannot tell which buffer it is."""
        v = self.eval(arg_node)
        if isinstance(v, View) and v.site not in self.moving_views:
            return v
        if isinstance(v, Ptr):
            return View(v, (), (), v.elem if v.elem > 1 else 4, True)
        if isinstance(v, View) or isinstance(v, Unknown) and v.key.startswith("moving:"):
            why = "a data tensor that changes inside a loop"
        elif isinstance(v, Unknown) and v.key.startswith("call:"):
            why = f"{v.hint} has no definition among the given files and their local headers"
        else:
            why = "it is not a GlobalTensor over a kernel argument or a window address"
        self.assume(self.loc(arg_node), f"{what} `{self.text(arg_node)}` of {self.text(node).split('(')[0]}: "
                                        f"cannot tell which buffer it is ({why}); the transfer is left out, its data is not checked")
        return None

    def buffer(self, ptr: Ptr) -> SignalInfo:
        info = self.buffers.get(ptr.base)
        if info is None:
            if ptr.base in self.signals:
                raise ExtractError(ptr.origin, f"{ptr.base} is used both as a signal and as TPUT/TGET data")
            name = self.fresh(ptr.base)
            sizes = self.cfg.get("buffers", {})
            spec = sizes.get(ptr.base, sizes.get(name))
            dims = None
            if spec is not None:
                items = spec if isinstance(spec, list) else [spec]
                dims = tuple(self.as_int(self.eval_config(str(d), ptr.origin), None) if isinstance(d, str)
                             else S.num(int(d)) for d in items)
            info = SignalInfo(name, ptr.base, ptr.origin, ptr.level, dims)
            self.buffers[ptr.base] = info
        return info

    def buffer_text(self, view: View, node, count: Sym | None = None) -> tuple[str, dict, Sym, frozenset]:
        """`NAME[a:b] @ r` for a buffer view, its resolution levels, its element count and
        the names the reference reads."""
        ptr = view.ptr
        info = self.buffer(ptr)
        start = self.elements(ptr.offset, view.dsize)
        dims = [(n, s) for n, s in zip(view.shape, view.strides) if not (S.is_int(n) and n.args[0] == 1)]
        if view.dynamic:
            self.assume(self.loc(node), f"the extent of `{self.text(node)}` comes from a runtime Shape; modelled as its first element only")
        size = S.num(1)
        for n, _ in dims:
            size = S.binop("*", size, n)
        last = start
        for n, s in dims:
            last = S.binop("+", last, S.binop("*", S.binop("-", n, S.num(1)), s))
        info.spans.append((start, last))
        if info.dims is None:
            name, sel = self.flat_selector(start, dims, node, info, allow_view=False)
        else:
            name, sel = info.name, self.dim_selectors(start, dims, info, node)
        at = ""
        if ptr.rank is not None and S.render(ptr.rank) != "rank":
            at = f" @ {S.render(ptr.rank)}" if S.prec(ptr.rank) >= 13 else f" @ ({S.render(ptr.rank)})"
            self.note_rank_use(ptr.rank)
        levels = {"buffer": min(ptr.level, start.level), "peer": ptr.rank.level if ptr.rank is not None else FULL}
        reads = K.names(name, start, ptr.rank, *(x for d in dims for x in d))
        return name + sel + at, levels, size, reads

    def transfer(self, kind: str, arg_nodes, targs, node, row=None):
        if len(arg_nodes) < 2:
            raise self.error(node, f"{kind} needs (dst, src, tile...)")
        if row is not None:  # one row of a strided window (row_split)
            dst, src = row
        else:
            dst = self.data_view(arg_nodes[0], node, "destination")
            src = self.data_view(arg_nodes[1], node, "source")
        if dst is None or src is None:
            return S.num(0)
        own_side, remote_side = (src, dst) if kind == "TPUT" else (dst, src)
        own_node = arg_nodes[1] if kind == "TPUT" else arg_nodes[0]
        if own_side.ptr.rank is not None and S.render(own_side.ptr.rank) != "rank":
            raise self.error(own_node, f"{kind}'s {'source' if kind == 'TPUT' else 'destination'} "
                                       f"`{self.text(own_node)}` is on rank {S.render(own_side.ptr.rank)}: {kind} "
                                       f"{'reads' if kind == 'TPUT' else 'writes'} the calling rank's memory")
        if dst.dynamic != src.dynamic:      # one extent unknown: both are modelled as one element
            dst, src = (View(v.ptr, (), (), v.dsize, True, True) for v in (dst, src))
        self.transfer_bases.update((dst.ptr.base, src.ptr.base))
        rows = self.row_split(dst, src, node)
        if rows is not None:  # a strided window at a runtime offset: one transfer per row
            for d, s_ in rows:
                self.transfer(kind, arg_nodes, targs, node, (d, s_))
            return S.num(0)
        dtext, dlev, _, dreads = self.buffer_text(dst, arg_nodes[0])
        stext, slev, _, sreads = self.buffer_text(src, arg_nodes[1])
        peer = (dlev if kind == "TPUT" else slev)["peer"]
        self.data_sites[(self.loc(node).file, self.loc(node).line, self.loc(node).col)] = (
            kind, self.loc(node), {"dst": dlev["buffer"], "src": slev["buffer"], "peer": peer})
        atomic = self.atomic_of(targs, arg_nodes[2:], node) if kind == "TPUT" else "AtomicNone"
        loc = self.loc(node)

        def line(a):
            return K.sync(f"{kind}({dtext}, {stext}{', AtomicAdd' if a == 'AtomicAdd' else ''});", loc, dreads, sreads)
        if isinstance(atomic, str):
            self.emit(line(atomic))
        else:
            self.emit(K.if_(S.binop("==", atomic, S.num(0)), loc, [line("AtomicNone")], [line("AtomicAdd")]))
        return S.num(0)

    def atomic_of(self, targs, rest, node):
        """AtomicNone / AtomicAdd from `TPUT<AtomicType::X>` or an `AtomicType::X` argument;
        a param (0 = AtomicNone, 1 = AtomicAdd) with an assumption when it is runtime data."""
        cands = list(targs.named_children) if targs is not None else []
        cands += [a for a in rest if re.search(r"atomic", self.text(a), re.I)]
        for a in cands:
            last = norm(self.text(a)).split("::")[-1]
            if last in ATOMIC:
                return last
            v = self.eval(a.child_by_field_name("type") if a.type == "type_descriptor" else a)
            if isinstance(v, Sym) and S.is_int(v) and v.args[0] in (0, 1):
                return ATOMIC[v.args[0]]
            key = f"atomic:{norm(self.text(a))}@{self.loc(a)}"
            p = self.param(key, f"ATOMIC_{self.loc(a).line}", 0, f"assumed: {self.text(a)} picks 0=AtomicNone / 1=AtomicAdd", self.loc(a))
            self.assume(self.loc(a), f"the atomic type of the TPUT comes from runtime data ({self.text(a)}); "
                                     f"modelled as a param {S.render(p)} choosing among AtomicNone, AtomicAdd", S.render(p))
            return p
        return "AtomicNone"

    def row_split(self, dst: View, src: View, node) -> list[tuple[View, View]] | None:
        """A transfer whose window is strided rows (`Shape<.., R, C>`, `Stride<.., S, 1>`,
        S > C) at an offset the code does not fix, which no `view` declaration can name
        (lm_head_combine_push's 8 rows of 2048 floats): as R transfers of one row each, in
        order, the other side cut into the same R runs of C elements. The elements are
        exactly the window's; the rows are ordered as the statements of one process, so
        the happens-before relation of every element is the one the single transfer gives.
        None when the windows are not so (a fixed offset keeps its `view`)."""
        shapes = [self._rows(v) for v in (dst, src)]
        if None in shapes or not any(r[2] and r[3] for r in shapes):
            return None
        (rd, cd, _, _), (rs, cs, _, _) = shapes
        if rd * cd != rs * cs:
            return None
        rows, cols = (rd, cd) if shapes[0][2] else (rs, cs)
        if rows > MAX_ROWS:
            return None
        self.assume(self.loc(node), f"the strided window of this transfer ({rows} rows of {cols} elements at an offset "
                                    f"the code computes) is modelled as {rows} transfers of one row each, in order")
        return [(self._row(dst, k, cols), self._row(src, k, cols)) for k in range(rows)]

    def _rows(self, v: View):
        """(rows, columns, strided, at a runtime start) of a 2-D window of strided rows (or a
        contiguous run: strided False, rows 1); None for anything else."""
        dims = [(n, st) for n, st in zip(v.shape, v.strides) if not (S.is_int(n) and n.args[0] == 1)]
        if v.dynamic or not all(S.is_int(x) for d in dims for x in d):
            return None
        runtime = not S.is_int(self.elements(v.ptr.offset, v.dsize))
        if len(dims) == 1 and dims[0][1].args[0] == 1:
            return 1, dims[0][0].args[0], False, runtime
        if len(dims) == 2 and dims[1][1].args[0] == 1 and dims[0][1].args[0] > dims[1][0].args[0]:
            return dims[0][0].args[0], dims[1][0].args[0], True, runtime
        return None

    def _row(self, v: View, k: int, cols: int) -> View:
        """Row k of `v` as a contiguous view of `cols` elements."""
        dims = [(n, st) for n, st in zip(v.shape, v.strides) if not (S.is_int(n) and n.args[0] == 1)]
        step = dims[0][1].args[0] if len(dims) == 2 else cols
        off = S.binop("+", v.ptr.offset, S.num(k * step * v.dsize))
        p = v.ptr
        return View(Ptr(p.base, off, p.rank, p.elem, p.level, p.plain, p.origin), (S.num(cols),), (S.num(1),),
                    v.dsize, v.data, False, v.site)

    def data_access(self, kind: str, arg_nodes, node) -> None:
        """TLOAD(tile, gm) reads gm, TSTORE(gm, tile) writes it: a READ / WRITE of the buffer,
        kept only when a TPUT / TGET makes that pointer a buffer (extract drops the others)."""
        k = 1 if kind == "TLOAD" else 0
        if len(arg_nodes) <= k:
            return
        v = self.eval(arg_nodes[k])
        if not isinstance(v, View) or v.ptr.plain:
            return
        if v.site in self.moving_views:
            self.assume(self.loc(arg_nodes[k]), f"tensor `{self.text(arg_nodes[k])}` of {kind}: a data tensor that "
                                                "changes inside a loop; the access is left out, its data is not checked")
            return
        if v.ptr.base in self.signals:
            return
        shape = self._rows(v)
        if shape is not None and shape[2] and shape[3] and shape[0] <= MAX_ROWS:  # strided rows at a runtime start
            views = [self._row(v, r, shape[1]) for r in range(shape[0])]
            self.assume(self.loc(node), f"the strided window of this access ({shape[0]} rows of {shape[1]} elements at "
                                        f"an offset the code computes) is modelled as {shape[0]} accesses of one row "
                                        f"each, in order")
        else:
            views = [v]
        for one in views:
            text, _, _, reads = self.buffer_text(one, arg_nodes[k])
            self.emit(K.sync(f"{'READ' if kind == 'TLOAD' else 'WRITE'}({text});", self.loc(node), reads,
                             buffer=v.ptr.base))

    def async_transfer(self, kind: str, node):
        self.assume(self.loc(node), f"{kind} is not extracted yet: the async transfer is left out and its data "
                                    "is not checked (write TPUT_ASYNC / WAIT_EVENT in a .sig by hand)")
        return Unknown(self.text(node), self.loc(node), kind, f"call:{kind}@{self.loc(node)}")


def drop_unused_buffers(interp, stmts: list) -> None:
    """A READ / WRITE of a pointer that no TPUT / TGET touches is left out with its buffer."""
    for key in list(interp.buffers):
        if key not in interp.transfer_bases:
            del interp.buffers[key]
    _filter(stmts, set(interp.buffers))


def _filter(stmts: list, keep: set) -> None:
    i = 0
    while i < len(stmts):
        st = stmts[i]
        if isinstance(st, K.Line):
            if st.buffer is not None and st.buffer not in keep:
                del stmts[i]
                continue
        else:
            _filter(st.body, keep)
            if st.orelse:
                _filter(st.orelse, keep)
        i += 1


__all__ = ["Data", "drop_unused_buffers"]

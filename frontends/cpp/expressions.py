"""C++ expressions to abstract values: integers, pointers into signals, windows, enums."""

from __future__ import annotations

import re

from frontends.core import sym as S
from frontends.core.errors import ExtractError, Loc
from frontends.core.intrinsics import cpp_role
from frontends.core import skeleton as K
from frontends.cpp.source import snippet
from frontends.core.sym import FULL, PARTIAL, Sym, ring_step
from frontends.cpp.values import (CMPS, INT_TYPES, OPS, SIZE_OF, Elem, Enum, Local, LocalArray, Offset, Ptr, Record, Shift,
                                  Struct, Unknown, View, Window, Windows, clean_type, pointee)
from frontends.cpp.vocabulary import (CONVENTIONAL, IGNORED_CALLS, LIBRARY_CONTEXTS, MAX_INLINE_DEPTH,
                                      WRAPPERS, norm, origin_key)
from model.vocabulary import CMP_BY_SYMBOL


class Expressions:
    """Evaluation of expression nodes (a part of Interp)."""

    def eval(self, node):
        t = node.type
        key = norm(self.text(node))
        if key in self.regions:  # the start of a region the config names ([regions])
            return self.region(key, node)
        if key in self.builtin_text and t not in ("number_literal",):
            which, level = self.builtin_text[key]
            if t == "field_expression" and level < FULL:     # a config value: which field it is
                return self.e_field_expression(node)
            return self.builtin(which, level)
        method = getattr(self, "e_" + t, None)
        if method is None:
            return Unknown(self.text(node), self.loc(node))
        return method(node)

    def region(self, key: str, node) -> Ptr:
        """The address `[regions] NAME = {base = ...}` names: the start of NAME, in bytes."""
        name = self.regions[key]
        if name not in self.region_noted:
            self.region_noted.add(name)
            self.assume(self.loc(node), self.region_notes.get(name) or
                        f"{self.text(node)} is the start of {name} (config [regions]); its elements are "
                        f"those of the pointer type it is used through")
        return Ptr(name, S.num(0), None, 1, PARTIAL, name in self.plain, self.loc(node))

    def e_number_literal(self, node):
        raw = self.text(node).replace("'", "").replace(" ", "")
        # the grammar folds a sign into the literal in some places: `static_cast<int32_t>(-1)`
        m = re.fullmatch(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uUlLzZ]*", raw)
        if not m:
            return Unknown(raw, self.loc(node))
        sign, s = -1 if m.group(1) == "-" else 1, m.group(2)
        if s.lower().startswith("0x"):
            return S.num(sign * int(s, 16))
        if s.lower().startswith("0b"):
            return S.num(sign * int(s[2:], 2))
        if len(s) > 1 and s.startswith("0"):
            return S.num(sign * int(s, 8))
        return S.num(sign * int(s))

    def e_true(self, node):
        return S.num(1)

    def e_false(self, node):
        return S.num(0)

    def e_null(self, node):
        return S.num(0)

    def e_nullptr(self, node):
        return S.num(0)

    def e_char_literal(self, node):
        return Unknown(self.text(node), self.loc(node))

    def e_parenthesized_expression(self, node):
        inner = node.named_children
        if len(inner) != 1:
            return Unknown(self.text(node), self.loc(node))
        return self.eval(inner[0])

    def e_identifier(self, node):
        name = self.text(node)
        b = self.lookup(name)
        if b is not None:
            return S.name(b.name, self.local_levels.get(b.name, FULL)) if isinstance(b, Local) else b
        return self.global_value(name, node)

    e_namespace_identifier = e_identifier
    e_type_identifier = e_identifier

    def global_value(self, name: str, node):
        if name in self.index.defines:
            text, sf, vnode = self.index.defines[name]
            if self.depth > MAX_INLINE_DEPTH:
                raise self.error(node, f"macro {name} expands into itself")
            try:
                snip_sf, expr = snippet(text, sf.path, sf.loc(vnode))
            except ExtractError:
                return Unknown(name, self.loc(node), name)
            saved, self.sf = self.sf, snip_sf
            self.depth += 1
            try:
                return self.eval(expr)
            finally:
                self.sf, self.depth = saved, self.depth - 1
        if name in self.index.globals:
            vnode, sf = self.index.globals[name]
            saved, self.sf = self.sf, sf
            saved_scopes, self.scopes = self.scopes, [{}]
            self.depth += 1
            try:
                if self.depth > MAX_INLINE_DEPTH:
                    raise self.error(vnode, f"constant {name} refers to itself")
                return self.eval(vnode)
            finally:
                self.sf, self.scopes, self.depth = saved, saved_scopes, self.depth - 1
        return Unknown(name, self.loc(node), name, f"name:{name}")

    def e_qualified_identifier(self, node):
        parts = [p for p in re.split(r"::", norm(self.text(node))) if p]
        last = parts[-1] if parts else ""
        if len(parts) >= 2 and parts[-2] == "NotifyOp" and last in OPS:
            return Enum("op", last, FULL)
        if len(parts) >= 2 and parts[-2] == "WaitCmp" and last in CMPS:
            return Enum("cmp", last, FULL)
        name_node = node.child_by_field_name("name")
        while name_node is not None and name_node.type == "qualified_identifier":
            name_node = name_node.child_by_field_name("name")
        if name_node is not None and name_node.type == "identifier":
            return self.e_identifier(name_node)
        return Unknown(self.text(node), self.loc(node))

    def e_sizeof_expression(self, node):
        ty = node.child_by_field_name("type")
        t = clean_type(self.text(ty)) if ty is not None else ""
        if t in SIZE_OF:
            return S.num(SIZE_OF[t])
        if t.endswith("*"):
            return S.num(8)
        return Unknown(self.text(node), self.loc(node))

    def e_unary_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        v = self.eval(node.child_by_field_name("argument"))
        return S.unop(op, self.as_int(v, node))

    def e_pointer_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        v = self.eval(node.child_by_field_name("argument"))
        if op == "&":
            if isinstance(v, Elem):
                return v.ptr
            return v
        if isinstance(v, Ptr):
            return Elem(v)
        return Unknown(self.text(node), self.loc(node))

    def e_subscript_expression(self, node):
        arr = self.eval(node.child_by_field_name("argument"))
        idx_nodes = node.child_by_field_name("indices")
        idx_node = idx_nodes.named_children[0] if idx_nodes is not None and idx_nodes.named_children else None
        if idx_node is None:
            return Unknown(self.text(node), self.loc(node))
        if isinstance(arr, Windows):
            return Window(self.as_int(self.eval(idx_node), idx_node, "PEER"), arr.table)
        if isinstance(arr, Ptr):
            i = self.as_int(self.eval(idx_node), idx_node)
            return Elem(self.ptr_add(arr, i))
        if isinstance(arr, tuple):
            i = self.as_int(self.eval(idx_node), idx_node)
            if S.is_int(i) and 0 <= i.args[0] < len(arr):
                return arr[i.args[0]]
            if not S.is_int(i) and arr and all(isinstance(v, Sym) and not v.reads for v in arr):
                return self.table(arr, i, node)
        if isinstance(arr, LocalArray):
            i = self.as_int(self.eval(idx_node), idx_node)
            return S.text(f"{arr.name}[{S.render(i)}]", min(i.level, self.local_levels.get(arr.name, FULL)), reads=False,
                          names=K.names(arr.name, i))
        return Unknown(self.text(node), self.loc(node))

    def table(self, items: tuple, i: Sym, node) -> Sym:
        """A constant table indexed at run time becomes a .sig local array (declared once)."""
        name = self.fresh(re.sub(r"\W", "_", self.text(node.child_by_field_name("argument"))) or "table")
        self.local_values[name] = None
        self.local_level(name, min(v.level for v in items))
        self.emit(K.decl(name, tuple(items), self.loc(node), text=f"{{{', '.join(S.render(v) for v in items)}}}",
                         size=len(items)))
        return S.text(f"{name}[{S.render(i)}]", min(i.level, self.local_levels[name]), reads=False, names=K.names(name, i))

    def ptr_add(self, p: Ptr, i: Sym, sign: int = 1) -> Ptr:
        step = S.binop("*", i, S.num(p.elem))
        off = S.binop("+" if sign > 0 else "-", p.offset, step)
        return Ptr(p.base, off, p.rank, p.elem, p.level, p.plain, p.origin)

    def e_field_expression(self, node):
        base = self.eval(node.child_by_field_name("argument"))
        fname = self.text(node.child_by_field_name("field"))
        path = self.text(node)
        if isinstance(base, Record):
            v = base.get(fname)
            return v if v is not None else self.field_value(Struct(base.name, None), fname, path, node)
        if isinstance(base, Struct):
            return self.field_value(base, fname, path, node)
        if isinstance(base, Unknown):
            return self.field_value(Struct(base.text, None), fname, path, node)
        if isinstance(base, Ptr) and "->" in path:
            return self.field_value(Struct(base.base, None), fname, path, node)
        if norm(path) in self.builtin_text:
            which, level = self.builtin_text[norm(path)]
            return self.builtin(which, level)
        return Unknown(path, self.loc(node))

    def field_value(self, st: Struct, fname: str, path: str, node):
        loc = self.loc(node)
        for canon in (f"{st.path}->{fname}", f"{st.path}.{fname}"):
            if norm(canon) in self.builtin_text:
                which, level = self.builtin_text[norm(canon)]
                key = origin_key(f"field:{canon}")
                if level < FULL and key in self.proven[which]:
                    return self.builtin(which, FULL)
                return self.builtin(which, level, key if level < FULL else None)
        path = f"{st.path}->{fname}" if "->" in path else f"{st.path}.{fname}"
        key = origin_key(f"field:{path}")
        for which in ("rank", "nranks"):
            if key in self.proven[which]:
                return self.builtin(which, FULL)
        lib = LIBRARY_CONTEXTS.get(st.type or "")
        if lib is not None and fname in lib and self.library_layout(st.type):
            return self.builtin(lib[fname], FULL)
        if fname in self.windows:
            return Windows(key)
        if fname in self.plain or path in self.plain:
            return Ptr(fname, S.num(0), None, 4, PARTIAL, True, loc)
        conv = self.conventional(fname, path, loc)
        if conv is not None:
            return conv
        ftype = self.index.structs.get(st.type or "", {}).get(fname) if st.type else None
        if ftype is not None:
            return self.value_of_type(ftype, fname, path, loc, f"field:{path}")
        return Unknown(path, loc, fname, f"field:{norm(path)}", pointer=False)

    def conventional(self, name: str, path: str, loc: Loc) -> Sym | None:
        for which, names in CONVENTIONAL.items():
            if name in names and not any(norm(path) == norm(e) for e in self.cfg.get(which, [])):
                if self.cfg.get(which):
                    continue
                origin = origin_key(f"arg:{path}" if name == path else f"field:{path}")
                if norm(path) in self.conventions_said:
                    return self.builtin(which, PARTIAL, origin)
                self.conventions_said.add(norm(path))
                self.assume(loc, f"took {path} as the {'own rank' if which == 'rank' else 'rank count' if which == 'nranks' else 'block count'} (a conventional name; set {which} = \"...\" in sigproof.toml otherwise)")
                return self.builtin(which, PARTIAL, origin)
        return None

    def library_layout(self, type_name: str) -> bool:
        """A PTO library context type: not defined in the given files, or defined with the
        library's fields (rankId, rankNum and the windowsIn table)."""
        fields = self.index.structs.get(type_name)
        return fields is None or {"rankId", "rankNum", "windowsIn"} <= set(fields)

    def value_of_type(self, ctype: str, name: str, path: str, loc: Loc, key: str):
        t = clean_type(ctype)
        if t.endswith("[]"):
            return Unknown(path, loc, name, key)
        pt = pointee(t)
        if pt is not None and (pt[0] in self.index.structs or pt[0] in LIBRARY_CONTEXTS):
            return Struct(path, pt[0])
        if pt is not None:
            plain = name in self.plain or path in self.plain
            return Ptr(name, S.num(0), None, pt[1], PARTIAL if plain else FULL, plain, loc)
        if t in self.index.structs:
            return Struct(path, t)
        return Unknown(path, loc, name, key)

    def e_binary_expression(self, node):
        op = self.text(node.child_by_field_name("operator"))
        ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&&", "||"):
            a = self.as_int(self.eval(ln), ln)
            if S.is_int(a) and not a.reads:
                if (op == "&&" and not a.args[0]) or (op == "||" and a.args[0]):
                    return S.num(int(op == "||"), a.level)
            return S.binop(op, a, self.as_int(self.eval(rn), rn))
        a, b = self.eval(ln), self.eval(rn)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            plain = self.plain_compare(op, a, b, node, ln, rn)
            if plain is not None:
                return plain
        if op in ("+", "-"):
            r = self.address_arith(op, a, b, node, ln, rn)
            if r is not None:
                return r
        if op == "/" and isinstance(a, Shift):
            k = self.as_int(b, rn)
            if S.is_int(k) and k.args[0] > 0:   # a window distance in bytes, over an element size
                return Shift(a.table, a.to, a.frm, a.div * k.args[0], S.binop("/", a.value, k))
        return S.binop(op, self.as_int(a, ln), self.as_int(b, rn))

    def plain_compare(self, op, a, b, node, ln, rn):
        mirror = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
        cmp = {symbol: c.name for symbol, c in CMP_BY_SYMBOL.items()}
        if isinstance(b, Elem) and b.ptr.plain and not (isinstance(a, Elem) and a.ptr.plain):
            a, b, ln, rn, op = b, a, rn, ln, mirror[op]
        if isinstance(a, Elem) and a.ptr.plain:
            value = self.as_int(b, rn)
            return self.ttest(View(a.ptr, (), ()), value, Enum("cmp", cmp[op], PARTIAL), node, "TTEST")
        return None

    def address_arith(self, op, a, b, node, ln, rn):
        if op == "-":
            ta, tb = self.table_read(a), self.table_read(b)
            if ta is not None and tb is not None and self.elem_table(ta) == self.elem_table(tb):
                return Shift(self.elem_table(ta), self.entry_index(ta), self.entry_index(tb), 1,
                             S.binop("-", self.as_int(a, ln), self.as_int(b, rn)))
        for p, sh in ((a, b), (b, a)) if op == "+" else ((a, b),):
            if isinstance(p, Ptr) and isinstance(sh, Shift) and sh.div == p.elem and p.rank is None:
                return self.shifted(p, sh, node)
        # `(int32_t *)(t->buffer.addr) + k`: an untyped pointer path is a signal buffer (as_ptr)
        if isinstance(a, Unknown) and a.pointer and not isinstance(b, (Ptr, Window, Windows, Offset)) \
                and not (isinstance(b, Unknown) and b.pointer) and self.as_ptr(a, ln) is not None:
            a = self.as_ptr(a, ln)
        elif isinstance(b, Unknown) and b.pointer and op == "+" and not isinstance(a, (Ptr, Window, Windows, Offset)) \
                and self.as_ptr(b, rn) is not None:
            b = self.as_ptr(b, rn)
        if op == "-" and isinstance(a, Ptr) and isinstance(b, Elem) and self.table_entry(b, a) is not None:
            b = self.table_entry(b, a)
        if op == "+" and isinstance(a, Elem) and isinstance(b, Offset) and b.table == self.elem_table(a):
            a = Window(self.entry_index(a), b.table)
        if op == "+" and isinstance(b, Elem) and isinstance(a, Offset) and a.table == self.elem_table(b):
            b = Window(self.entry_index(b), a.table)
        if isinstance(a, Ptr) and isinstance(b, Window) and op == "-":
            own = a.rank if a.rank is not None else S.name("rank")
            if not self.same_value(own, b.rank):
                self.assume(self.loc(node), f"{self.text(rn)} taken as this rank's own window base (the code does not show that {S.render(b.rank)} is the own rank)")
            return Offset(a.base, a.offset, a.level, a.plain, a.origin, b.table, b.rank if a.rank is None else None)
        if isinstance(a, Ptr) and isinstance(b, Ptr) and op == "-" and a.base == b.base:
            return S.binop("/", S.binop("-", a.offset, b.offset), S.num(a.elem))
        if isinstance(a, Window) and isinstance(b, Offset) and op == "+":
            self.translation(a, b)
            return Ptr(b.base, b.offset, a.rank, 1, b.level, b.plain, b.origin)
        if isinstance(b, Window) and isinstance(a, Offset) and op == "+":
            self.translation(b, a)
            return Ptr(a.base, a.offset, b.rank, 1, a.level, a.plain, a.origin)
        if isinstance(a, Offset) and isinstance(b, Elem) or isinstance(b, Offset) and isinstance(a, Elem):
            off, e, en = (a, b, rn) if isinstance(a, Offset) else (b, a, ln)
            self.assume(self.loc(node), f"{self.text(node)}: an address table read on one side of a window translation only; taken as an address on this rank")
            p = Ptr(off.base, off.offset, None, 1, off.level, off.plain, off.origin)
            return self.ptr_add(p, self.as_int(e, en), 1 if op == "+" or off is b else -1)
        if isinstance(a, Offset) and not isinstance(b, (Ptr, Window, Offset, Elem)):
            i = self.as_int(b, rn)
            return Offset(a.base, S.binop(op, a.offset, i), a.level, a.plain, a.origin, a.table, a.own)
        if isinstance(a, Ptr) and not isinstance(b, (Ptr, Window, Offset)):
            return self.ptr_add(a, self.as_int(b, rn), 1 if op == "+" else -1)
        if isinstance(b, Ptr) and op == "+" and not isinstance(a, (Ptr, Window, Offset)):
            return self.ptr_add(b, self.as_int(a, ln))
        if isinstance(a, (Window, Windows)) or isinstance(b, (Window, Windows)):
            return Unknown(self.text(node), self.loc(node))
        return None

    def table_read(self, v) -> Elem | None:
        """`tbl[i]` of an own-rank table of 64-bit addresses, read here or into a local never
        changed (`int64_t v83 = tbl[i + 4];`), else None."""
        if isinstance(v, Sym) and v.op == "name":
            v = self.table_reads.get(v.args[0])
        return v if isinstance(v, Elem) and self.elem_table(v) is not None else None

    def shifted(self, p: Ptr, sh: Shift, node) -> Ptr:
        """`p + (tbl[pe] - tbl[me]) / sizeof(*p)`: p moved from me's window to pe's, which is
        `tbl[pe] + (p - tbl[me])` (translation) read the other way round. Entries at a common
        constant offset (pypto's CommContext keeps windowsIn after a 4-word header: tbl[4 + r])
        name ranks once it is taken off both."""
        to, frm = sh.to, sh.frm
        if to.op == "name" and isinstance(self.local_values.get(to.args[0]), Sym):
            to = self.local_values[to.args[0]]              # a local never changed: its value
        c = next((x.args[2] for x in (frm,) if x.op == "bin" and x.args[0] == "+" and S.is_int(x.args[2])), None)
        if c is not None and to.op == "bin" and to.args[0] == "+" and to.args[2] == c:
            to, frm = to.args[1], frm.args[1]
        elif c is not None:
            to = S.binop("-", to, c)
            frm = frm.args[1]
        if not self.same_value(S.name("rank"), frm):
            self.assume(self.loc(node), f"{self.text(node)}: {S.render(frm)} taken as this rank's own window entry "
                                        f"(the code does not show that it is the own rank)")
        self.translation(Window(to, sh.table), Offset(p.base, p.offset, p.level, p.plain, p.origin, sh.table, frm))
        return Ptr(p.base, p.offset, to, p.elem, p.level, p.plain, p.origin)

    @staticmethod
    def elem_table(e: Elem) -> str | None:
        """`tbl[i]` read from a table of 64-bit addresses on the own rank (a kernel argument)."""
        p = e.ptr
        if p.elem == 8 and p.rank is None and not p.plain:
            return "elem:" + p.base
        return None

    def table_entry(self, e: Elem, local: Ptr) -> Window | None:
        """`(uint64_t)ptr - tbl[me]`: a table of 64-bit addresses whose entry is subtracted
        from a signal pointer is a table of window bases; tbl[me] is the window of rank me."""
        t = self.elem_table(e)
        if t is None or e.ptr.base == local.base:
            return None
        return Window(self.entry_index(e), t)

    @staticmethod
    def entry_index(e: Elem) -> Sym:
        off = e.ptr.offset                      # bytes: i * 8
        if off.op == "bin" and off.args[0] == "*" and off.args[2] == S.num(8):
            return off.args[1]
        return S.binop("/", off, S.num(8))

    def translation(self, w: Window, off: Offset) -> None:
        """`W[pe] + (ptr - W[me])` with ptr a pointer of this rank and the same table W:
        the code moves ptr from me's window to pe's, which is right only when me is the
        own rank (the library's RemotePtr states it as its precondition). So the C++
        expression `me` came from is the own rank by the code's meaning; and when pe is
        the variable of a sweep `for (p = 0; p < n; ++p)`, or the ring step
        `(me + k) % n` (sym.ring_step), and me is the own rank, n is the number of ranks
        the kernel addresses. Both are used by the second pass (extract)."""
        if not w.table or w.table != off.table or off.own is None:
            return
        own = off.own
        if own.op == "name" and own.origin is not None and own.level < FULL:
            self.evidence["rank"].add(own.origin)
        own_known = (own.op == "name" and (own.origin is not None or (own.args[0] == "rank" and own.level == FULL)))
        if not own_known:
            return
        peer = w.rank
        if peer.op == "name" and isinstance(self.local_values.get(peer.args[0]), Sym):
            peer = self.local_values[peer.args[0]]          # a local never changed: its value
        n = ring_step(peer, own.args[0])
        if n is not None and n.origin is not None and n.level < FULL:
            self.evidence["nranks"].add(n.origin)
        if w.rank.op != "name":
            return
        for var, bound in self.sweeps:
            if var == w.rank.args[0] and bound.op == "name" and bound.origin is not None and bound.level < FULL:
                self.evidence["nranks"].add(bound.origin)

    def same_value(self, a: Sym, b: Sym) -> bool:
        """Equal expressions, or equal under the branch conditions in force (`rank == 0`)."""
        if S.render(a) == S.render(b):
            return True
        known = {}
        for facts in self.facts:
            known.update(facts)
        a2, b2 = S.substitute(a, known), S.substitute(b, known)
        return S.is_int(a2) and S.is_int(b2) and a2.args[0] == b2.args[0]

    def e_conditional_expression(self, node):
        c = self.as_int(self.eval(node.child_by_field_name("condition")), node)
        cn, an = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if S.is_int(c) and not c.reads:
            return self.eval(cn if c.args[0] else an)
        a, b = self.eval(cn), self.eval(an)
        chosen = self.choose_address(c, a, b)
        if chosen is not None:
            return chosen
        return S.cond(c, self.as_int(a, cn), self.as_int(b, an))

    def choose_address(self, c: Sym, a, b):
        """`c ? a : b` of two addresses into one buffer (`owner == me ? buf + off :
        RemotePtr(ctx, buf, owner) + off`, or `if (owner != me) p = RemotePtr(ctx, p, owner);`):
        that buffer, its rank and offset chosen by the condition; None for anything else."""
        if a == b and isinstance(a, (Ptr, View)):
            return a
        if isinstance(a, View) and isinstance(b, View) and (a.shape, a.strides, a.dsize, a.data, a.dynamic) == (
                b.shape, b.strides, b.dsize, b.data, b.dynamic):
            p = self.choose_address(c, a.ptr, b.ptr)
            return None if p is None else View(p, a.shape, a.strides, a.dsize, a.data, a.dynamic, a.site)
        if not (isinstance(a, Ptr) and isinstance(b, Ptr) and (a.base, a.elem, a.plain) == (b.base, b.elem, b.plain)):
            return None
        own = S.name("rank")
        ra, rb = a.rank if a.rank is not None else own, b.rank if b.rank is not None else own
        rank = None if a.rank is None and b.rank is None else ra if self.same_value(ra, rb) else S.cond(c, ra, rb)
        offset = a.offset if self.same_value(a.offset, b.offset) else S.cond(c, a.offset, b.offset)
        return Ptr(a.base, offset, rank, a.elem, min(a.level, b.level, c.level), a.plain, a.origin)

    def e_cast_expression(self, node):
        ty = node.child_by_field_name("type")
        return self.cast(self.text(ty), self.eval(node.child_by_field_name("value")), node)

    def cast(self, tytext: str, v, node):
        t = clean_type(tytext)
        pt = pointee(t)
        if pt is not None and not pt[0].endswith("*"):
            bound = self.lookup(("type", pt[0]))  # a template's type parameter, deduced from an argument
            if bound is not None:
                pt = (pt[0], bound)
        if pt is not None:
            if isinstance(v, Ptr):
                return Ptr(v.base, v.offset, v.rank, pt[1], v.level, v.plain, v.origin)
            if isinstance(v, Unknown):
                return Unknown(v.text, v.loc, v.hint, v.key, pointer=True)
            if isinstance(v, Elem) and (pt[0] in self.index.structs or pt[0] in LIBRARY_CONTEXTS):
                # `reinterpret_cast<__gm__ CommContext *>(args[2])`: a struct the host passes by address
                arg = node.child_by_field_name("value") if node.type == "cast_expression" else None
                if node.type == "call_expression" and node.child_by_field_name("arguments").named_children:
                    arg = node.child_by_field_name("arguments").named_children[0]
                return Struct(self.text(arg) if arg is not None else self.text(node), pt[0])
            if isinstance(v, Elem) and pt[1] == 8 and pt[0] in INT_TYPES and v.ptr.rank is None and not v.ptr.plain:
                # `reinterpret_cast<__gm__ int64_t *>(args[13])`: a table of 64-bit words whose
                # address the host passed (pypto's CommContext: its words are read by index)
                key = self.elem_key(v)
                if key is not None:
                    return Ptr(key, S.num(0), None, 8, FULL, False, self.loc(node))
            return v
        if isinstance(v, Ptr):
            return Ptr(v.base, v.offset, v.rank, 1, v.level, v.plain, v.origin)
        if t == "bool" and isinstance(v, Sym):
            return S.binop("!=", v, S.num(0)) if not S.is_int(v) else S.num(int(bool(v.args[0])), v.level)
        return v

    def e_assignment_expression(self, node):
        self.assign(node)
        return self.eval(node.child_by_field_name("left"))

    def e_update_expression(self, node):
        raise self.error(node, "an increment inside an expression is not supported in the skeleton; write it as its own statement")

    def e_comma_expression(self, node):
        self.eval(node.child_by_field_name("left"))
        return self.eval(node.child_by_field_name("right"))

    def e_call_expression(self, node):
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        arg_nodes = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        targs = None
        fnode = fn
        if fn.type == "template_function":
            targs = fn.child_by_field_name("arguments")
            fnode = fn.child_by_field_name("name")
        elif fn.type == "qualified_identifier":
            inner = fn
            while inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            if inner.type == "template_function":
                targs = inner.child_by_field_name("arguments")
                fnode = inner.child_by_field_name("name")
            else:
                fnode = inner
        fname = norm(self.text(fnode)).split("::")[-1].split(".")[-1].split("->")[-1]
        intrinsic = cpp_role(fname)
        # (the block's index and count are builtins, read from the call's text: BUILTIN_CALLS)
        if intrinsic is not None and intrinsic.role not in ("block_index", "block_count"):
            return self.intrinsic(intrinsic.role, fname, arg_nodes, targs, node)
        if intrinsic is not None and arg_nodes and not self.index.functions.get(fname):
            # `get_block_idx(args)`: the simpler runtime's form (its intrinsic.h reads the SPMD
            # block of the dispatch payload); no definition among the given files
            which = "block" if intrinsic.role == "block_index" else "nblocks"
            self.assume(self.loc(node), f"{self.text(node)} taken as the {'block index' if which == 'block' else 'block count'} "
                                        f"(the runtime's SPMD {'block' if which == 'block' else 'block count'} of the launch; set {which} = \"...\" in sigproof.toml otherwise)")
            return self.builtin(which, FULL)
        if fname in ("min", "max") and len(arg_nodes) == 2:
            a, b = (self.as_int(self.eval(n), n) for n in arg_nodes)
            return S.call(fname, a, b)
        if fname in ("static_cast", "reinterpret_cast", "const_cast") and targs is not None and arg_nodes:
            return self.cast(self.text(targs)[1:-1], self.eval(arg_nodes[0]), node)
        if fname in WRAPPERS:
            return self.wrapper(fname, targs, arg_nodes, node)
        funcs = self.index.functions.get(fname)
        if funcs and fname != self.kernel.name:
            fn_def = next((f for f in funcs if self.arity_ok(f, len(arg_nodes))), None)
            if fn_def is not None:
                return self.inline(fn_def, arg_nodes, targs, node)
        args = [self.eval(a) for a in arg_nodes]
        if fname not in IGNORED_CALLS and any(isinstance(a, (Ptr, View, Elem, Offset, Window)) for a in args):
            self.assume(self.loc(node), f"call to {fname} with a signal argument is not followed (no definition among the given files and their local headers)")
        return Unknown(self.text(node), self.loc(node), fname if fname.isidentifier() else "VALUE",
                       f"call:{fname}@{self.loc(node)}")

    def core_barrier(self, fname: str, targs, node) -> None:
        """SyncAll / SYNCALL: the cores it synchronizes (`SyncCoreType::Mix` all, `AICOnly` the
        cube cores, `AIVOnly` and no argument the vector cores; AscendC's `SyncAll<false>` all,
        `SyncAll()` the vector cores) against the pass read. A pass whose cores it does not
        synchronize goes on (pto-isa's SYNCALL_IMPL does nothing there); code that tests no
        core macro is one kernel's blocks: a block_barrier, as always. A barrier of one core
        type in a mixed kernel is refused: the model's block_barrier meets every block."""
        args = norm(self.text(targs)) if targs is not None else ""
        if "Mix" in args or fname == "SyncAll" and "false" in args or fname == "block_barrier":
            cores = "all"
        else:
            cores = "cube" if "AICOnly" in args else "vector"
        here = self.core
        if here is None or cores in ("all", here):
            if self.mixed and cores != "all":
                raise self.error(node, f"{self.text(node)} synchronizes the {cores} cores alone, in a mixed kernel whose "
                                       f"cube and vector cores are checked together: a barrier of one core type is not "
                                       f"modelled yet (the model's block_barrier meets every block of the rank); set "
                                       f"defines = [\"__DAV_VEC__\"] or [\"__DAV_CUBE__\"] to check one pass alone")
            self.emit(K.sync("block_barrier;", self.loc(node)))
            return
        self.emit(K.comment(f"{norm(self.text(node))}: a barrier of the {cores} cores; the {here} cores go on", self.loc(node)))

    def intrinsic(self, role: str, fname: str, arg_nodes, targs, node):
        """A call of a PTO intrinsic (frontends/core/intrinsics.py), by its role."""
        if role in ("notify", "wait", "test"):
            return self.signal_op(fname, arg_nodes, node)
        if role == "transfer":
            return self.transfer(fname, arg_nodes, targs, node)
        if role == "data_access":
            self.data_access(fname, arg_nodes, node)
        elif role == "async_transfer":
            return self.async_transfer(fname, node)
        elif role == "pipe_barrier":
            self.emit(K.comment("pipe_barrier(PIPE_ALL);", self.loc(node)))
        elif role == "fence":
            arg = norm(self.text(arg_nodes[0])).split("::")[-1] if arg_nodes else ""
            if arg == "DSB_DDR":
                self.emit(K.comment("dsb(DSB_DDR);", self.loc(node)))
            else:
                self.assume(self.loc(node), f"{self.text(node)} orders nothing the skeleton models (only dsb(DSB_DDR) is a fence of the data extension); left out")
        elif role == "block_barrier":
            self.core_barrier(fname, targs, node)
        elif role in ("subblock_index", "subblock_count"):
            if not self.mixed:   # one core type modelled: the pair is runtime data, as before
                return Unknown(self.text(node), self.loc(node), fname, f"call:{fname}@{self.loc(node)}")
            if role == "subblock_count":
                return S.num(self.subblocks if self.core == "vector" else 1)
            if self.core != "vector":
                return S.num(0)
            return S.binop("%", S.binop("-", S.name("block"), S.name("NBLOCKS")), S.num(self.subblocks))
        else:
            raise AssertionError(f"the C++ reader has no handler for intrinsic role {role}")
        return S.num(0)


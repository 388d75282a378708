"""C++ statements to skeleton statements: declarations, assignments, control flow."""

from __future__ import annotations

import re

from frontends.core import sym as S
from frontends.core.errors import ExtractError
from frontends.core import skeleton as K
from frontends.cpp.source import declarator_name
from frontends.core.sym import PARTIAL, Sym
from frontends.cpp.values import (INT_TYPES, Elem, Local, LocalArray, Ptr, Record, Struct, Unknown, View, Windows,
                                  clean_type, pointee)


_ADDRESSES = (Ptr, View, Windows, Struct, Record)


class Statements:
    """Execution of statement nodes (a part of Interp)."""

    def exec(self, node) -> None:
        method = getattr(self, "s_" + node.type, None)
        if method is not None:
            try:
                method(node)
            except ExtractError:
                raise
            except RecursionError:
                raise self.error(node, "this statement nests too deeply for the extraction") from None
            except Exception as e:  # a construct the interpreter does not expect: say where
                raise self.error(node, f"cannot read this {node.type.replace('_', ' ')} "
                                       f"(internal error {type(e).__name__}: {e}; please report it)") from None
            return
        if node.type in ("comment", "preproc_call", "preproc_include", "preproc_def", "empty_statement",
                         "static_assert_declaration", "alias_declaration", "type_definition",
                         "using_declaration", "namespace_alias_definition"):
            return
        if self.contains_sync(node):
            raise self.error(node, f"{node.type.replace('_', ' ')} around a signal operation is not supported by the extraction")

    def contains_sync(self, node) -> bool:
        text = node.text.decode("utf-8", "replace")
        if re.search(r"\b(TNOTIFY|TWAIT|TTEST|TPUT|TGET)\b", text):
            return True
        idents = set(re.findall(r"[A-Za-z_]\w*", text))
        return bool(idents & (set(self.index.functions) | self.plain))

    def s_compound_statement(self, node) -> None:
        self.scopes.append({})
        try:
            for c in node.named_children:
                self.exec(c)
        finally:
            self.scopes.pop()

    def s_expression_statement(self, node) -> None:
        inner = [c for c in node.named_children if c.type != "comment"]
        if inner:
            self.expression_effect(inner[0])

    def expression_effect(self, e) -> None:
        """An expression evaluated for its effect: an assignment, `x++`, a call."""
        if e.type == "assignment_expression":
            self.assign(e)
        elif e.type == "update_expression":
            self.update(e)
        elif e.type == "comma_expression":
            self.expression_effect(e.child_by_field_name("left"))
            self.expression_effect(e.child_by_field_name("right"))
        else:
            v = self.eval(e)
            if isinstance(v, Sym) and v.reads:
                self.emit(K.sync(f"{S.render(v)};", self.loc(e), v))

    def update(self, e) -> None:
        arg = e.child_by_field_name("argument")
        op = "++" if "++" in self.text(e) else "--"
        if arg.type == "subscript_expression":
            arr = self.eval(arg.child_by_field_name("argument"))
            if isinstance(arr, LocalArray):
                idx_node = arg.child_by_field_name("indices").named_children[0]
                i = self.as_int(self.eval(idx_node), idx_node)
                self.emit(K.assign(arr.name, f"{arr.name}[{S.render(i)}]{op};", self.loc(e), arr.name, i))
                return
        if arg.type == "identifier":
            b = self.lookup(self.text(arg))
            if isinstance(b, Local):
                self.emit(K.assign(b.name, f"{b.name}{op};", self.loc(e), b.name))
                return
            if isinstance(b, Ptr):
                self.rebind_ptr(arg, self.ptr_add(b, S.num(1), 1 if op == "++" else -1), e)
                return
        if self.contains_sync(e):
            raise self.error(e, "this update is not supported by the extraction")

    def rebind_ptr(self, ident, value, node) -> None:
        name = self.text(ident)
        old = self.lookup(name)
        home = next((scope for scope in reversed(self.scopes) if name in scope), {})
        # it changes from one iteration to the next only if declared outside the loop
        moves = self.loop_depth > home.get(("depth", name), 0)
        if moves and isinstance(old, View) and old.data and old.site is not None and (
                isinstance(value, View) and value.data and value.site is not None or isinstance(value, Unknown)):
            # a data tensor handle that moves on in a loop (a ping-pong pipeline's pending
            # destination): which buffer a transfer through it hits is not followed, so every
            # transfer through a tensor constructed where it (or what it takes) was is left
            # out, and said so
            self.moving_views.add(old.site)
            if isinstance(value, View):
                self.moving_views.add(value.site)
            self.assume(self.loc(node), f"data tensor {name} changes inside a loop: the transfers through it are "
                                        "left out, their data is not checked")
            value = Unknown(name, self.loc(node), name, f"moving:{name}")
        elif moves:
            raise self.error(node, f"pointer {name} changes inside a loop: the extraction does not unroll loops; index the signal with the loop variable instead")
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return

    def assign(self, e) -> None:
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = self.text(e.child_by_field_name("operator"))
        if left.type == "identifier":
            b = self.lookup(self.text(left))
            if isinstance(b, Local):
                v = self.as_int(self.eval(right), right, self.text(left))
                self.local_level(b.name, v.level)
                if op == "=":
                    self.emit(K.assign(b.name, f"{b.name} = {S.render(v)};", self.loc(e), v))
                elif op in ("+=", "-="):
                    self.emit(K.assign(b.name, f"{b.name} {op} {S.render(v)};", self.loc(e), b.name, v))
                else:
                    value = S.binop(op[:-1], S.name(b.name), v)
                    self.emit(K.assign(b.name, f"{b.name} = {S.render(value)};", self.loc(e), value))
                return
            v = self.eval(right)
            if isinstance(b, (Ptr, View, Struct, Windows)):
                if op == "=":
                    self.rebind_ptr(left, v, e)
                elif isinstance(b, Ptr) and op in ("+=", "-="):
                    self.rebind_ptr(left, self.ptr_add(b, self.as_int(v, right), 1 if op == "+=" else -1), e)
            elif isinstance(b, Sym):
                raise self.error(e, f"assignment to {self.text(left)}, which the extraction took as a constant")
            return
        if left.type == "field_expression" and self.assign_field(e, left, right, op):
            return
        if left.type == "subscript_expression":
            arr = self.eval(left.child_by_field_name("argument"))
            if isinstance(arr, LocalArray):
                idx_node = left.child_by_field_name("indices").named_children[0]
                i = self.as_int(self.eval(idx_node), idx_node)
                v = self.as_int(self.eval(right), right)
                self.local_level(arr.name, min(i.level, v.level))
                bop = op if op in ("=", "+=", "-=") else None
                ref = f"{arr.name}[{S.render(i)}]"
                text = f"{ref} {bop} {S.render(v)};" if bop else \
                    f"{ref} = {S.render(S.binop(op[:-1], S.text(ref, reads=False), v))};"
                self.emit(K.assign(arr.name, text, self.loc(e), arr.name, i, v))
                return
        target = self.eval(left)
        if isinstance(target, Elem) and target.ptr.plain:
            v = self.as_int(self.eval(right), right)
            if op != "=":
                raise self.error(e, "a compound assignment to a plain signal is not atomic: not supported")
            ref, levels, ref_reads = self.view_text(View(target.ptr, (), ()), left, single=True)
            levels["value"], levels["opcmp"] = v.level, PARTIAL
            self.site("TNOTIFY", e, levels)
            self.emit(K.sync(f"TNOTIFY({ref}, {S.render(v)}, Set);", self.loc(e), ref_reads, v))
            return
        self.eval(right)

    def s_declaration(self, node) -> None:
        ty = node.child_by_field_name("type")
        tytext = self.text(ty) if ty is not None else "int"
        is_const = any(c.type == "type_qualifier" and c.text in (b"const", b"constexpr") for c in node.children)
        mutated = self.mutated(self.function_body(node))
        for d in node.children_by_field_name("declarator"):
            self.declare(node, ty, tytext, d, is_const, mutated)

    def function_body(self, node):
        n = node
        while n.parent is not None and n.type != "function_definition":
            n = n.parent
        return n.child_by_field_name("body") if n.type == "function_definition" else n

    def declare(self, node, ty, tytext, d, is_const, mutated) -> None:
        wk = self.wrapper_kind(ty)
        if wk is not None:
            kind, targs = wk
            name = declarator_name(d)
            if d.type == "function_declarator":       # the most vexing parse: Signal sig(ptr);
                plist = d.child_by_field_name("parameters")
                self.bind(name, self.vexing(kind, targs, plist, d))
                return
            elif d.type == "init_declarator":
                val = d.child_by_field_name("value")
                arg_nodes = list(val.named_children) if val.type in ("argument_list", "initializer_list") else [val]
                if len(arg_nodes) == 1 and val.type not in ("argument_list", "initializer_list"):
                    v = self.eval(val)
                    if isinstance(v, View):
                        self.bind(name, v)
                        return
            else:
                raise self.error(d, f"{kind} {name} without a pointer")
            self.bind(name, self.wrapper(kind, targs, arg_nodes, d))
            return
        if d.type == "function_declarator":
            return
        name = declarator_name(d)
        if name is None:
            return
        value_node = d.child_by_field_name("value") if d.type == "init_declarator" else None
        inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        ctype = tytext + ("*" if inner is not None and inner.type == "pointer_declarator" else "")
        if inner is not None and inner.type == "array_declarator":
            self.bind(name, self.array(value_node, inner, ctype, name, mutated, d))
            return
        stype = clean_type(tytext)
        if (inner is not None and inner.type == "identifier" and stype in self.index.structs
                and (value_node is None or value_node.type == "initializer_list")):
            self.bind(name, self.record(name, stype, value_node))
            return
        if value_node is not None and value_node.type == "argument_list":
            value_node = value_node.named_children[0] if value_node.named_children else None
        if value_node is None:
            if clean_type(ctype) in INT_TYPES and name in mutated:
                n = self.fresh(name)
                self.bind(name, Local(n, clean_type(ctype) == "bool"))
                self.local_values[n] = None
                self.emit(K.decl(n, None, self.loc(d), 'bool' if clean_type(ctype) == 'bool' else 'int'))
            else:
                self.bind(name, Unknown(name, self.loc(d), name))
            return
        v = self.eval(value_node)
        if isinstance(v, Record):  # a copy, or a helper's returned struct
            self.bind(name, Record(name, v.type, v.fields, self.loop_depth))
            return
        if pointee(ctype) is not None and isinstance(v, Ptr):
            v = self.cast(ctype, v, d)
        if isinstance(v, Local):
            v = S.name(v.name)
        if isinstance(v, Sym) and (name in mutated or v.reads or not self.is_static(v, is_const)):
            is_bool = clean_type(ctype) == "bool"
            n = self.fresh(name)
            self.bind(name, Local(n, is_bool))
            self.local_level(n, v.level)
            self.local_values[n] = v if name not in mutated else None
            if name in mutated and not is_bool and S.is_int(v) and v.args[0] >= 0:
                sites = self.increments(node, name)
                if sites is not None:
                    self.counters[n] = (v.args[0], sites)
            self.emit(K.decl(n, v, self.loc(d), 'bool' if is_bool else 'int'))
            return
        if isinstance(v, Unknown) and clean_type(ctype) in INT_TYPES and name not in mutated:
            # `int32_t my_rank__ssa_v0 = conv.val;`: runtime data read into a local of a
            # conventional name (pypto's SSA suffixes aside) is what that name says
            conv = self.conventional(re.sub(r"(__(ssa|rv)_v\d+|_inline\d+)+$", "", name), name, self.loc(d))
            if conv is not None:
                self.bind(name, conv)
                return
        if isinstance(v, (Unknown, Elem)) and clean_type(ctype) in INT_TYPES:
            read = self.table_read(v)
            v = self.as_int(v, value_node, name)
            if read is not None and v.op == "name" and name not in mutated:
                self.table_reads[v.args[0]] = read
            if name in mutated:
                n = self.fresh(name)
                self.bind(name, Local(n))
                self.local_level(n, v.level)
                self.local_values[n] = None
                self.emit(K.decl(n, v, self.loc(d)))
                return
        self.bind(name, v)

    def increments(self, decl, name: str) -> list[tuple[int, list[int]]] | None:
        """Where the local `name` declared by `decl` changes after it, when every change is an
        increase by a constant (`++name`, `name++`, `name += 3`) inside counted `for` loops
        only: [(the increase, the ids of the for loops around it)]. None for anything else (a
        decrease, an assignment, its address taken, passed by reference, a change inside a
        `while`, `do` or lambda, a `goto` in the function): then no bound is derived."""
        block = decl.parent
        if block is None or b"goto" in self.function_body(decl).text:
            return None      # a backward goto could repeat an increment any number of times
        out = []
        stack = [c for c in block.named_children if c.start_byte >= decl.end_byte]
        while stack:
            n = stack.pop()
            stack.extend(n.named_children)
            change = None
            if n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier" and arg.text.decode() == name:
                    if b"--" in n.text:
                        return None
                    change = 1
            elif n.type == "assignment_expression":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is not None and left.type == "identifier" and left.text.decode() == name:
                    op = n.child_by_field_name("operator")
                    if op is None or op.text != b"+=" or right is None or right.type != "number_literal" \
                            or not right.text.decode().isdigit():
                        return None
                    change = int(right.text.decode())
            elif n.type == "pointer_expression" and n.child_by_field_name("operator").text == b"&":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier" and arg.text.decode() == name:
                    return None
            elif n.type == "call_expression" and name in self.ref_args(n):
                return None
            if change is None:
                continue
            loops, up = [], n.parent
            while up is not None and up.id != block.id:
                if up.type in ("while_statement", "do_statement", "lambda_expression", "function_definition"):
                    return None
                if up.type == "for_statement":
                    loops.append(up.id)
                up = up.parent
            out.append((change, loops))
        return out

    def is_alias(self, v: Sym) -> bool:
        return v.op == "name" and (v.args[0] in ("rank", "block", "nranks", "nblocks") or v.args[0] in self.params)

    def record(self, name: str, stype: str, init) -> Record:
        """A local struct: its fields from a brace list (in declaration order, or designated
        `.f = v`), the rest unset."""
        rec = Record(name, stype, (), self.loop_depth)
        if init is None:
            return rec
        order = list(self.index.structs[stype])
        items = [c for c in init.named_children if c.type != "comment"]
        for k, item in enumerate(items):
            if item.type == "initializer_pair":
                designator = item.child_by_field_name("designator")
                fname = self.text(designator).lstrip(".") if designator is not None else None
                value = item.child_by_field_name("value")
            else:
                fname, value = (order[k] if k < len(order) else None), item
            v = self.eval(value)
            if fname is not None:
                rec = rec.with_field(fname, self.field_kept(v))
        return rec

    def field_kept(self, v):
        """The value a struct field keeps: an address or a handle, or a number that means the
        same wherever it is read (a literal, the rank, a param); None for anything else."""
        if isinstance(v, (Ptr, View, Windows, Struct, Record)):
            return v
        if isinstance(v, Sym) and not v.reads and self.is_static(v, True):
            return v
        return None

    def assign_field(self, e, left, right, op: str) -> bool:
        """`rec.f = v` on a local struct (`Record`): the field takes v (in a branch: `join`
        merges the branches after it); set inside a loop the variable is declared outside
        of, compounded or to a value that may change meaning, an address becomes a value
        the extraction cannot follow (a signal or buffer taken from it is refused) and a
        number is forgotten (read again as the field of an unknown struct). False when
        `left` is not a field of such a variable."""
        base = left.child_by_field_name("argument")
        if base is None or base.type != "identifier":
            return False
        rec = self.lookup(self.text(base))
        if not isinstance(rec, Record):
            return False
        fname = self.text(left.child_by_field_name("field"))
        v = self.eval(right)
        kept = self.field_kept(v) if op == "=" and self.loop_depth == rec.depth else None
        name = self.text(base)
        if kept is None and (isinstance(rec.get(fname), _ADDRESSES) or isinstance(v, _ADDRESSES)):
            # an address that depends on the way taken: not followed (a signal or buffer taken
            # from it is refused); a number is read again as the field of an unknown struct
            kept = Unknown(f"{name}.{fname}", self.loc(left), fname, f"unfollowed:{name}.{fname}@{self.loc(left)}")
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = rec.with_field(fname, kept)
                break
        return True

    def is_static(self, v: Sym, is_const: bool) -> bool:
        """Whether a never-assigned variable can stand for its value wherever it is used:
        a literal, a built-in or a param; for a `const`, any expression over those (an
        expression over locals could change meaning when a local changes later)."""
        if S.is_int(v) or self.is_alias(v):
            return True
        fixed = {"rank", "block", "nranks", "nblocks"} | set(self.params)
        return is_const and S.names(v) <= fixed

    def array(self, value_node, inner=None, ctype: str = "", name: str = "", mutated=(), d=None):
        """A constant table stays a tuple (indexed at extraction time); an int array that the
        code indexes with a run-time value or writes becomes a .sig local array."""
        if value_node is None or value_node.type != "initializer_list":
            return Unknown("array", self.loc(value_node) if value_node is not None else None)
        items = tuple(self.eval(c) for c in value_node.named_children)
        size_node = inner.child_by_field_name("size") if inner is not None else None
        size = self.as_int(self.eval(size_node), size_node) if size_node is not None else S.num(len(items))
        if clean_type(ctype) not in INT_TYPES or not S.is_int(size) or not 1 <= size.args[0] <= 64 \
                or len(items) > size.args[0] or not all(isinstance(v, (Sym, Local)) for v in items):
            return items
        if name not in mutated and all(isinstance(v, Sym) and S.is_int(v) for v in items):
            return items                     # a constant table: folded where it is indexed
        n = self.fresh(name)
        vals = [self.as_int(v, value_node) for v in items]
        for v in vals:
            self.local_level(n, v.level)
        self.local_values[n] = None
        self.emit(K.decl(n, tuple(vals), self.loc(d), text=f"{{{', '.join(S.render(v) for v in vals)}}}",
                         size=size.args[0]))
        return LocalArray(n, size.args[0])

    def s_if_statement(self, node) -> None:
        cnode = node.child_by_field_name("condition")
        value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
        if value is None or value.type == "declaration":
            raise self.error(cnode, "a declaration in an if condition is not supported")
        c = self.as_int(self.eval(value), value, "COND")
        cons = node.child_by_field_name("consequence")
        alt = node.child_by_field_name("alternative")
        if alt is not None and alt.type == "else_clause":
            alt = next((x for x in alt.named_children if x.type != "comment"), None)
        if S.is_int(c) and not c.reads:
            if c.args[0]:
                self.exec_scoped(cons)
            elif alt is not None:
                self.exec_scoped(alt)
            return
        block = K.if_(c, self.loc(value))
        facts = {}
        if c.op == "bin" and c.args[0] == "==" and c.args[1].op == "name" and S.is_int(c.args[2]):
            facts[c.args[1].args[0]] = c.args[2]
        before = self.addresses()
        self.facts.append(facts)
        try:
            block.body = self.collect(cons)
        finally:
            self.facts.pop()
        taken = self.addresses()
        self.restore(before)
        if alt is not None:
            block.orelse = self.collect(alt)
        self.join(c, before, taken, self.addresses(), value)
        self.emit(block)

    def addresses(self) -> dict:
        """The address-like bindings in force (pointers, tensors, structs): (scope id, name) ->
        (scope, value), to see what a branch changed."""
        return {(id(scope), name): (scope, v) for scope in self.scopes for name, v in scope.items()
                if isinstance(name, str) and isinstance(v, _ADDRESSES)}

    def restore(self, before: dict) -> None:
        for scope, name, v in [(sc, k[1], v) for k, (sc, v) in before.items()]:
            scope[name] = v

    def join(self, c: Sym, before: dict, taken: dict, other: dict, node) -> None:
        """After `if (c)`: each address a branch changed is the one of the branch the
        condition picks (`choose_address`); what cannot be said so is not followed (refused
        where a signal or buffer is taken from it)."""
        for key, (scope, old) in before.items():
            a, b = taken.get(key, (scope, old))[1], other.get(key, (scope, old))[1]
            if a is old and b is old:
                continue
            name = key[1]
            chosen = self.choose_record(c, a, b, node) if isinstance(a, Record) and isinstance(b, Record) else \
                self.choose_address(c, a, b)
            scope[name] = chosen if chosen is not None else Unknown(
                name, self.loc(node), name, f"unfollowed:{name}@{self.loc(node)}")

    def choose_record(self, c: Sym, a: Record, b: Record, node) -> Record:
        """A local struct after `if (c)`: each field the branches agree on, an address field
        they do not as `choose_address` picks it (or not followed), a number field they do
        not forgotten (read as the field of an unknown struct)."""
        out = Record(a.name, a.type, (), a.depth)
        for f in dict.fromkeys([f for f, _ in a.fields] + [f for f, _ in b.fields]):
            fa, fb = a.get(f), b.get(f)
            if fa == fb:
                out = out.with_field(f, fa)
            elif isinstance(fa, _ADDRESSES) or isinstance(fb, _ADDRESSES):
                chosen = self.choose_address(c, fa, fb)
                out = out.with_field(f, chosen if chosen is not None else Unknown(
                    f"{a.name}.{f}", self.loc(node), f, f"unfollowed:{a.name}.{f}@{self.loc(node)}"))
        return out

    def s_switch_statement(self, node) -> None:
        """`switch (x) { case A: ... }` as an if / else-if chain on x. A case's branch runs its
        statements and, while they do not end in `break`, `return` or `continue`, those of
        the cases after it (fall-through: that code is repeated in the branch); labels with
        no statements of their own share the next case's branch; `default` is the final
        else. A `break` of the switch anywhere but at the end of a case cannot be expressed
        and is refused when the switch holds a signal operation; one that does not is left
        out, as any statement the extraction cannot read, with an assumption line when it
        assigns a variable."""
        try:
            cases = self.switch_cases(node)
        except ExtractError as e:
            if self.contains_sync(node):
                raise
            assigned = sorted(self.mutated(node))
            if assigned:
                self.assume(self.loc(node), f"this switch is left out ({e.message}); it assigns "
                                            f"{', '.join(assigned)}, which the skeleton does not see change")
            return
        cnode = node.child_by_field_name("condition")
        value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
        if value is None or value.type == "declaration":
            raise self.error(cnode, "a declaration in a switch condition is not supported")
        c = self.as_int(self.eval(value), value, "COND")
        labels = [[None if v is None else self.as_int(self.eval(v), v) for v in vs] for vs, _, _, _ in cases]
        default = next((k for k, vs in enumerate(labels) if None in vs), None)
        if S.is_int(c) and not c.reads and all(v is None or S.is_int(v) for vs in labels for v in vs):
            pick = next((k for k, vs in enumerate(labels) if any(v is not None and v.args[0] == c.args[0] for v in vs)),
                        default)
            if pick is not None:
                self.exec_nodes(self.switch_run(cases, pick))
            return
        if c.reads:         # a signal read: read once, as the C++ does, and test the copy
            n = self.fresh("switch_value")
            self.local_level(n, c.level)
            self.local_values[n] = None
            self.emit(K.decl(n, c, self.loc(value)))
            c = S.name(n, c.level)
        chain = None if default is None else self.collect_nodes(self.switch_run(cases, default))
        for k in reversed(range(len(cases))):
            if k == default:
                continue
            test = None
            for v in labels[k]:
                eq = S.binop("==", c, v)
                test = eq if test is None else S.binop("||", test, eq)
            block = K.if_(test, self.loc(cases[k][1]))
            self.facts.append({c.args[0]: labels[k][0]} if c.op == "name" and len(labels[k]) == 1 else {})
            try:
                block.body = self.collect_nodes(self.switch_run(cases, k))
            finally:
                self.facts.pop()
            block.orelse = chain
            chain = [block]
        for st in chain or []:
            self.emit(st)

    def switch_cases(self, node) -> list[tuple[list, object, list, bool]]:
        """The entries of a switch: (label value nodes, None for `default`; the first label's
        node; the statements, a final `break` removed; whether they stop there, by a `break`,
        `return` or `continue`). Labels with no statements join the next entry."""
        body = node.child_by_field_name("body")
        out, pending, first = [], [], None
        for case in body.named_children:
            if case.type == "comment":
                continue
            if case.type != "case_statement":
                raise self.error(case, "a statement before the first case of a switch is not supported by the extraction")
            label = case.child_by_field_name("value")
            stmts = [c for c in case.named_children if c != label and c.type != "comment"]
            pending.append(label)
            first = first or case
            if not stmts:
                continue
            if len(stmts) == 1 and stmts[0].type == "compound_statement":
                inner = [c for c in stmts[0].named_children if c.type != "comment"]
                if inner and inner[-1].type == "break_statement":
                    stmts = inner          # `case 0: { ...; break; }`: the braces are the case's own
            stop = stmts[-1].type in ("break_statement", "return_statement", "continue_statement")
            if stmts[-1].type == "break_statement":
                stmts = stmts[:-1]
            for st in stmts:
                inner_break = self.switch_break(st)
                if inner_break is not None:
                    raise self.error(inner_break, "a break out of a switch from inside a case's control flow cannot be "
                                                  "expressed in the skeleton (only a break that ends a case can)")
            out.append((pending, first, stmts, stop))
            pending, first = [], None
        if pending:          # labels at the end with no statements: entering there does nothing
            out.append((pending, first, [], True))
        return out

    def switch_break(self, node):
        """A `break` inside `node` that leaves the enclosing switch (not a loop's or an inner
        switch's), or None."""
        if node.type == "break_statement":
            return node
        if node.type in ("for_statement", "for_range_loop", "while_statement", "do_statement", "switch_statement"):
            return None
        for c in node.named_children:
            hit = self.switch_break(c)
            if hit is not None:
                return hit
        return None

    @staticmethod
    def switch_run(cases: list, k: int) -> list:
        """The statements a switch runs when it enters at entry k: its own and, falling
        through, those of the entries after it up to the first that stops."""
        out = []
        for _, _, stmts, stop in cases[k:]:
            out.extend(stmts)
            if stop:
                break
        return out

    def exec_nodes(self, nodes: list) -> None:
        self.scopes.append({})
        try:
            for n in nodes:
                self.exec(n)
        finally:
            self.scopes.pop()

    def collect_nodes(self, nodes: list) -> list:
        self.out.append([])
        try:
            self.exec_nodes(nodes)
        except BaseException:
            self.out.pop()
            raise
        return self.out.pop()

    def exec_scoped(self, node) -> None:
        self.scopes.append({})
        try:
            self.exec(node)
        finally:
            self.scopes.pop()

    def collect(self, node, loop: bool = False) -> list:
        self.out.append([])
        self.loop_depth += loop
        try:
            self.exec_scoped(node)
        finally:
            self.loop_depth -= loop
        return self.out.pop()

    def s_while_statement(self, node) -> None:
        cnode = node.child_by_field_name("condition")
        value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
        c = self.as_int(self.eval(value), value, "COND")
        if S.is_int(c) and not c.args[0]:
            return
        block = K.while_(c, self.loc(value))
        block.body = self.collect(node.child_by_field_name("body"), loop=True)
        self.emit(block)
        self.returned_check(self.loc(node))

    def s_do_statement(self, node) -> None:
        body = node.child_by_field_name("body")
        cnode = node.child_by_field_name("condition")
        value = cnode.named_children[0] if cnode.type == "parenthesized_expression" else cnode
        block = K.while_(S.num(1), self.loc(node))
        self.out.append([])
        self.loop_depth += 1
        try:
            self.exec_scoped(body)
            c = self.as_int(self.eval(value), value, "COND")
            self.emit(K.if_(S.unop("!", c), self.loc(value), [K.jump("break", self.loc(value))]))
        finally:
            self.loop_depth -= 1
        block.body = self.out.pop()
        self.emit(block)
        self.returned_check(self.loc(node))

    def s_for_statement(self, node) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        upd = node.child_by_field_name("update")
        if init is None and cond is None and upd is None:
            block = K.while_(S.num(1), self.loc(node))
            block.body = self.collect(node.child_by_field_name("body"), loop=True)
            self.emit(block)
            self.returned_check(self.loc(node))
            return
        if init is None or upd is None:
            if self.contains_sync(node):
                raise self.error(node, "a for loop without an initializer or an update around a signal operation is not supported")
            return
        self.scopes.append({})
        try:
            var, head_init, init_reads = self.for_init(init)
            c = self.as_int(self.eval(cond), cond, "COND") if cond is not None else S.num(1)
            self.local_level(var, c.level)      # a loop variable ranges as far as its bound
            head_upd, upd_reads = self.for_update(upd, var)
            head = f"{head_init}; {S.render(c)}; {head_upd}"
            block = K.for_(var, head, self.loc(node), init_reads, c, upd_reads, tests=c.reads)
            if c.op == "bin" and c.args[1] == S.name(var):
                op, _, bound = c.args
                if op == "<":
                    self.local_values[var] = S.binop("-", bound, S.num(1))
                elif op == "<=":
                    self.local_values[var] = bound
            self.note_trips(node, var, head_init, head_upd)
            sweep = self.sweep(var, head_init, c, head_upd, init, node.child_by_field_name("body"))
            if sweep is not None:
                self.sweeps.append(sweep)
            try:
                block.body = self.collect(node.child_by_field_name("body"), loop=True)
            finally:
                if sweep is not None:
                    self.sweeps.pop()
        finally:
            self.scopes.pop()
        self.emit(block)
        self.returned_check(self.loc(node))

    def note_trips(self, node, var: str, head_init: str, head_upd: str) -> None:
        """What bounds the trips of this loop for `counters`: the loop variable (its upper bound
        is `local_values[var]`), its constant first value and its constant step, when the
        variable only changes in the head; a loop met twice with different terms: None."""
        start = re.fullmatch(rf"(?:int )?{re.escape(var)} = (\d+)", head_init)
        step = 1 if head_upd in (f"{var}++",) else None
        m = re.fullmatch(rf"{re.escape(var)} \+= (\d+)", head_upd)
        if m and int(m.group(1)) > 0:
            step = int(m.group(1))
        body, init = node.child_by_field_name("body"), node.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            ds = init.children_by_field_name("declarator")
            source_name = declarator_name(ds[0]) if len(ds) == 1 else None
        else:
            left = init.child_by_field_name("left") if init is not None else None
            source_name = left.text.decode() if left is not None and left.type == "identifier" else None
        ok = start is not None and step is not None and self.local_values.get(var) is not None and \
            source_name is not None and (body is None or source_name not in self.mutated(body))
        trips = (var, int(start.group(1)), step) if ok else None
        if node.id in self.loop_trips and self.loop_trips[node.id] != trips:
            trips = None
        self.loop_trips[node.id] = trips

    def sweep(self, var: str, head_init: str, c: Sym, head_upd: str, init, body) -> tuple[str, Sym] | None:
        """`for (int p = 0; p < n; ++p)` whose body leaves p alone: p takes every value in
        [0, n); so does the blocks' sweep `for (p = block; p < n; p += step)` (moe_combine's
        `src = blockId; src < shape.ep; src += blockNum`), the blocks of a rank together.
        (p, n), for the rank-count evidence of translation()."""
        one = head_init == f"int {var} = 0" and head_upd in (f"{var}++", f"{var} += 1", f"{var} = {var} + 1")
        strided = head_init == f"int {var} = block" and head_upd.startswith(f"{var} += ")
        if not (one or strided):
            return None
        if not (c.op == "bin" and c.args[0] == "<" and c.args[1] == S.name(var)):
            return None
        ds = init.children_by_field_name("declarator") if init.type == "declaration" else []
        cname = declarator_name(ds[0]) if ds else None
        if cname is None or cname in self.mutated(body):
            return None
        return var, c.args[2]

    def for_init(self, init) -> tuple[str, str, frozenset]:
        """The loop variable, the initializer's text and the names it reads."""
        if init.type == "declaration":
            ds = init.children_by_field_name("declarator")
            if len(ds) != 1 or ds[0].type != "init_declarator":
                raise self.error(init, "a for loop must declare one initialized loop variable")
            name = declarator_name(ds[0])
            v = self.as_int(self.eval(ds[0].child_by_field_name("value")), ds[0], name)
            n = self.fresh(name)
            self.bind(name, Local(n))
            self.local_level(n, v.level)
            self.local_values[n] = None
            return n, f"int {n} = {S.render(v)}", K.names(v)
        if init.type == "assignment_expression":
            left = init.child_by_field_name("left")
            b = self.lookup(self.text(left))
            if isinstance(b, Local):
                v = self.as_int(self.eval(init.child_by_field_name("right")), init)
                return b.name, f"{b.name} = {S.render(v)}", K.names(v)
        raise self.error(init, "this for loop initializer is not supported")

    def for_update(self, upd, var: str) -> tuple[str, frozenset]:
        """The update's text and the names it reads."""
        if upd.type == "update_expression":
            arg = upd.child_by_field_name("argument")
            b = self.lookup(self.text(arg))
            if isinstance(b, Local):
                return f"{b.name}{'++' if '++' in self.text(upd) else '--'}", K.names(b.name)
        if upd.type == "assignment_expression":
            left = upd.child_by_field_name("left")
            b = self.lookup(self.text(left))
            op = self.text(upd.child_by_field_name("operator"))
            if isinstance(b, Local) and op in ("=", "+=", "-="):
                v = self.as_int(self.eval(upd.child_by_field_name("right")), upd)
                return f"{b.name} {op} {S.render(v)}", K.names(b.name, v)
        raise self.error(upd, "this for loop update is not supported (use i++, i--, i += k or i = ...)")

    def s_break_statement(self, node) -> None:
        self.emit(K.jump("break", self.loc(node)))

    def s_continue_statement(self, node) -> None:
        self.emit(K.jump("continue", self.loc(node)))

    def s_return_statement(self, node) -> None:
        if self.ret_ctx:
            ctx = self.ret_ctx[-1]
            if ctx["nested"]:
                val = next((x for x in node.named_children if x.type != "comment"), None)
                if val is not None:
                    if "result" not in ctx:
                        raise self.error(node, f"helper {ctx['fn']} returns a value from inside its control flow: "
                                               f"not supported (only an integer or bool result is)")
                    v = self.as_int(self.eval(val), val)
                    self.local_level(ctx["result"], v.level)
                    self.emit(K.assign(ctx["result"], f"{ctx['result']} = {S.render(v)};", self.loc(node), v))
                if ctx.get("flag") and self.loop_depth > ctx["base"]:
                    self.emit(K.assign(ctx["flag"], f"{ctx['flag']} = 1;", self.loc(node)))
                self.emit(K.jump("break", self.loc(node)))
                return
        self.emit(K.ret(self.loc(node)))

    def s_labeled_statement(self, node) -> None:
        for c in node.named_children:
            if c.type != "statement_identifier":
                self.exec(c)

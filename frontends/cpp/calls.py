"""Following helper functions: argument binding, templates, early returns."""

from __future__ import annotations

from frontends.core import sym as S
from frontends.core.errors import ExtractError
from frontends.core import skeleton as K
from frontends.cpp.source import Function, declarator_name, parameters
from frontends.core.sym import Sym
from frontends.cpp.values import INT_TYPES, Local, Ptr, Unknown, clean_type
from frontends.cpp.vocabulary import MAX_INLINE_DEPTH, norm


class Calls:
    """Helper inlining (a part of Interp)."""

    def arity_ok(self, f: Function, n: int) -> bool:
        params = self.params_of(f)
        required = sum(1 for p in params if p.type == "parameter_declaration")
        return required <= n <= len(params)

    def params_of(self, f: Function):
        return parameters(f.node)

    def mutated(self, body) -> set[str]:
        key = body.id
        if key in self.mutated_cache:
            return self.mutated_cache[key]
        out: set[str] = set()
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    out.add(left.text.decode())
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    out.add(arg.text.decode())
            elif n.type == "pointer_expression" and n.child_by_field_name("operator").text == b"&":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    out.add(arg.text.decode())
            elif n.type == "call_expression":
                out |= self.ref_args(n)
            stack.extend(n.named_children)
        self.mutated_cache[key] = out
        return out

    def ref_args(self, call) -> set[str]:
        fn = call.child_by_field_name("function")
        name = norm(fn.text.decode()).split("::")[-1].split("<")[0]
        funcs = self.index.functions.get(name)
        args = call.child_by_field_name("arguments")
        if not funcs or args is None:
            return set()
        out = set()
        params = self.params_of(funcs[0])
        for p, a in zip(params, args.named_children):
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "reference_declarator" and "const" not in p.text.decode().split("&")[0].split() and a.type == "identifier":
                out.add(a.text.decode())
        return out

    def inline(self, f: Function, arg_nodes, targs, call):
        if self.depth >= MAX_INLINE_DEPTH:
            raise self.error(call, f"helper calls nested deeper than {MAX_INLINE_DEPTH} (recursion?) at {f.name}")
        for err in f.file.errors:
            if f.node.start_byte <= err.start_byte < f.node.end_byte:
                raise ExtractError(f.file.loc(err), f"syntax error: the C++ parser cannot read this part of helper {f.name}")
        values = [self.eval(a) for a in arg_nodes]
        params = self.params_of(f)
        body = f.node.child_by_field_name("body")
        mutated = self.mutated(body)
        scope: dict = {}
        tvals = self.template_values(targs)
        if f.template is not None:
            self.bind_template(f, tvals, scope)
        saved_sf = self.sf
        self.sf = f.file
        pending = []
        for i, p in enumerate(params):
            pname = declarator_name(p.child_by_field_name("declarator"))
            if pname is None:
                continue
            if i < len(values):
                v, vnode = values[i], arg_nodes[i]
            else:
                dv = p.child_by_field_name("default_value")
                v, vnode = self.eval(dv), dv
            if isinstance(v, Ptr) and f.template is not None:
                self.deduce_pointee(f, p, v, scope)
            if pname in mutated:
                if isinstance(v, Sym) or isinstance(v, Unknown):
                    pending.append((pname, v, vnode, p))
                    continue
            scope[pname] = v
        self.sf = saved_sf
        ref_locals = self.ref_bindings(f, params, arg_nodes)
        saved_scopes, self.scopes = self.scopes, [scope]
        self.sf = f.file
        self.depth += 1
        ctx = {"value": None, "nested": False, "fn": f.name}
        self.ret_ctx.append(ctx)
        try:
            for pname, v, vnode, p in pending:
                if pname in ref_locals:
                    scope[pname] = ref_locals[pname]
                    continue
                sv = self.as_int(v, vnode)
                n = self.fresh(pname)
                scope[pname] = Local(n)
                self.local_level(n, sv.level)
                self.local_values[n] = None
                self.emit(K.decl(n, sv, self.loc(p)))
            stmts = [c for c in body.named_children if c.type != "comment"]
            has_nested = self.nested_return(body, stmts)
            pure = self.pure_value(stmts) if has_nested and not self.returns_inside_loop(body) else None
            if pure is not None:
                ctx["value"] = pure
            elif has_nested:
                self.one_shot(f, body, stmts, ctx)
            else:
                for c in stmts:
                    if c.type == "return_statement" and c is stmts[-1]:
                        val = next((x for x in c.named_children if x.type != "comment"), None)
                        ctx["value"] = self.eval(val) if val is not None else None
                    else:
                        self.exec(c)
        finally:
            self.ret_ctx.pop()
            self.depth -= 1
            self.scopes = saved_scopes
            self.sf = saved_sf
        v = ctx["value"]
        return v if v is not None else Unknown(self.text(call), self.loc(call), f.name)

    def ref_bindings(self, f, params, arg_nodes) -> dict:
        out = {}
        for p, a in zip(params, arg_nodes):
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "reference_declarator" and a.type == "identifier":
                b = self.lookup(self.text(a))
                if isinstance(b, Local):
                    out[declarator_name(d)] = b
        return out

    def nested_return(self, body, stmts) -> bool:
        stack = list(body.named_children)
        while stack:
            n = stack.pop()
            if n.type == "return_statement" and not (n.parent == body and n is stmts[-1]):
                return True
            if n.type not in ("lambda_expression",):
                stack.extend(n.named_children)
        return False

    def pure_value(self, stmts: list) -> Sym | None:
        """The value of a helper body made only of declarations, `if (c) { ... return x; }`
        (with or without else) and returns, as a conditional expression: `if (b == 0)
        return 0; return (a + b - 1) / b;` is `b == 0 ? 0 : (a + b - 1) / b`. None (and
        nothing emitted) when the body does anything else: a signal operation, a loop, an
        assignment, a store, a path that ends without a return."""
        emitted = len(self.out[-1])
        self.scopes.append({})
        try:
            v = self._pure(stmts)
        except ExtractError:
            v = None
        finally:
            self.scopes.pop()
        if len(self.out[-1]) != emitted:
            del self.out[-1][emitted:]
            return None
        return v

    def _pure(self, stmts: list) -> Sym | None:
        for i, c in enumerate(stmts):
            if c.type == "comment":
                continue
            if c.type == "declaration":
                for d in c.children_by_field_name("declarator"):
                    val = d.child_by_field_name("value") if d.type == "init_declarator" else None
                    name = declarator_name(d.child_by_field_name("declarator")) if val is not None else None
                    if name is None or val.type in ("argument_list", "initializer_list"):
                        return None
                    v = self.eval(val)
                    if not isinstance(v, Sym) or v.reads:
                        return None
                    self.bind(name, v)
            elif c.type == "return_statement":
                val = next((x for x in c.named_children if x.type != "comment"), None)
                v = self.eval(val) if val is not None else None
                return v if isinstance(v, Sym) and not v.reads else None
            elif c.type == "if_statement":
                cnode = c.child_by_field_name("condition")
                value = cnode.child_by_field_name("value") if cnode.type == "condition_clause" else cnode
                if value is None or value.type == "declaration":
                    return None
                cond = self.eval(value)
                if not isinstance(cond, Sym) or cond.reads:
                    return None
                alt = c.child_by_field_name("alternative")
                if alt is not None and alt.type == "else_clause":
                    alt = next((x for x in alt.named_children if x.type != "comment"), None)
                rest = stmts[i + 1:]
                then = self._branch(c.child_by_field_name("consequence"), rest)
                other = self._branch(alt, rest) if alt is not None else self._scoped(rest)
                if then is None or other is None:
                    return None
                return S.cond(cond, then, other)
            elif c.type == "compound_statement":
                return self._branch(c, stmts[i + 1:])
            else:
                return None
        return None

    def _branch(self, node, rest: list) -> Sym | None:
        body = list(node.named_children) if node.type == "compound_statement" else [node]
        return self._scoped(body + rest)

    def _scoped(self, stmts: list) -> Sym | None:
        self.scopes.append({})
        try:
            return self._pure(stmts)
        finally:
            self.scopes.pop()

    def one_shot(self, f, body, stmts, ctx) -> None:
        """A helper with an early `return`: a one-iteration loop whose `break` is it. A helper
        that returns an integer or bool first gets a local for its result, which each
        `return x;` sets before its `break` (s_return_statement); the call's value is it."""
        rtype = f.node.child_by_field_name("type")
        rtext = clean_type(rtype.text.decode()) if rtype is not None else "void"
        declarator = f.node.child_by_field_name("declarator")
        if rtext != "void" and (rtext in INT_TYPES or rtext == "bool") and declarator is not None \
                and declarator.type == "function_declarator":
            result = self.fresh(f"{f.name}_result")
            self.emit(K.decl(result, None, self.loc(body), 'bool' if rtext == 'bool' else 'int'))
            self.local_values[result] = None
            ctx["result"] = result
        if self.returns_inside_loop(body):
            # a `return` inside the helper's own loops sets a flag and breaks; after each of
            # those loops, `if (flag) break;` carries it out to the one-iteration loop
            flag = self.fresh(f"{f.name}_returned")
            self.emit(K.decl(flag, None, self.loc(body), "bool"))
            self.local_values[flag] = None
            ctx["flag"] = flag
        n = self.fresh("once")
        block = K.for_(n, f"int {n} = 0; {n} < 1; {n}++", self.loc(body))
        ctx["nested"] = True
        self.out.append(block.body)
        self.loop_depth += 1
        ctx["base"] = self.loop_depth
        try:
            for c in stmts:
                self.exec(c)
        finally:
            self.loop_depth -= 1
            self.out.pop()
        self.emit(block)
        if "result" in ctx:
            ctx["value"] = Local(ctx["result"], rtext == "bool")

    def returned_check(self, loc) -> None:
        """After a loop inside a helper that returns from inside its loops: leave the
        enclosing loop too once the helper has returned (one_shot)."""
        ctx = self.ret_ctx[-1] if self.ret_ctx else None
        if ctx and ctx.get("flag") and self.loop_depth >= ctx["base"]:
            self.emit(K.if_(S.name(ctx["flag"]), loc, [K.jump("break", loc)]))

    def returns_inside_loop(self, body) -> bool:
        stack = [(c, False) for c in body.named_children]
        while stack:
            n, in_loop = stack.pop()
            if n.type == "return_statement" and in_loop:
                return True
            loop = in_loop or n.type in ("for_statement", "while_statement", "do_statement", "for_range_loop")
            stack.extend((c, loop) for c in n.named_children)
        return False

    def deduce_pointee(self, f: Function, param, value: Ptr, scope: dict) -> None:
        """`template <typename T> ... f(__gm__ T *p)` called with a pointer: T is its pointee,
        so that a cast `(__gm__ T *)` in the body steps by that many bytes (kept in the
        helper's scope under the key ("type", T))."""
        ty = param.child_by_field_name("type")
        d = param.child_by_field_name("declarator")
        if ty is None or d is None or d.type != "pointer_declarator" or ty.type != "type_identifier":
            return
        name = self.text(ty)
        if any(c.type == "type_parameter_declaration" and self.text(c).split()[-1] == name
               for c in f.template.named_children):
            scope[("type", name)] = value.elem

    def bind_template(self, f: Function, tvals: list, scope: dict) -> None:
        values = self.cfg.get("values", {})
        i = 0
        for p in f.template.named_children:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                i += 1
                continue
            pname = declarator_name(p.child_by_field_name("declarator"))
            if pname is None:
                continue
            if f is self.kernel and pname in values:
                scope[pname] = self.config_value(values[pname], self.sf.loc(p))
            elif i < len(tvals) and isinstance(tvals[i], Sym):
                scope[pname] = tvals[i]
            elif p.child_by_field_name("default_value") is not None:
                saved, self.sf = self.sf, f.file
                try:
                    scope[pname] = self.as_int(self.eval(p.child_by_field_name("default_value")), p)
                finally:
                    self.sf = saved
            else:
                scope[pname] = Unknown(pname, f.file.loc(p), pname, f"arg:{pname}")
            i += 1

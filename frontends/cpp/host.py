"""What the host code of the given files says about a kernel's launch arguments.

A kernel launched as `k<<<blocks, ...>>>(a0, a1, ...)` gets the values of its arguments
from the host function that launches it. Two things are read there:

- **The communicator's rank and rank count.** HCCL's `HcclCommInitRootInfo(nRanks,
  rootInfo, rank, &comm)` (and `HcclCommInitRootInfoConfig`) creates a communicator of
  `nRanks` ranks on which this process is rank `rank`; `HcclGetRankSize(comm, &n)` and
  `HcclGetRankId(comm, &r)` read them back. A host variable that reaches one of these
  positions, directly or through the parameters of helpers with bodies in the given
  files (a test harness's `ctx.Init(rank_id, n_ranks, ...)`), and is never assigned
  otherwise, *is* the rank count (or the own rank) by the API's definition.
- **Host locals**: a host variable with one initializer and no other assignment has the
  value of that initializer (`const int threshold = (n_ranks - 1) * kIters;`).

`host_bindings` gives, for the host function of a launch, the .sig value of each host
identifier it can say something about; frontends.cpp.extract evaluates the launch
arguments with them. Every launch of the kernel in the given files must pass the same
value for an argument to be taken (extract checks that).
"""

from __future__ import annotations

from dataclasses import dataclass

from frontends.cpp.source import Index, SourceFile, declarator_name
from frontends.cpp.vocabulary import norm

# HCCL host API (hccl/hccl.h): argument position -> what it is
COMM_INIT = {
    "HcclCommInitRootInfo": {0: "nranks", 2: "rank"},
    "HcclCommInitRootInfoConfig": {0: "nranks", 2: "rank"},
}
COMM_QUERY = {"HcclGetRankSize": (1, "nranks"), "HcclGetRankId": (1, "rank")}
MAX_DEPTH = 4
_CASTS = ("static_cast", "reinterpret_cast", "const_cast")


@dataclass
class HostFunction:
    name: str
    node: object
    sf: SourceFile

    def params(self) -> list[str | None]:
        decl = self.node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        if plist is None:
            return []
        return [declarator_name(p.child_by_field_name("declarator"))
                for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")]


def all_functions(index: Index) -> dict[str, list[HostFunction]]:
    """Every function with a body in the given files, methods included, by last name."""
    out: dict[str, list[HostFunction]] = {}
    for sf in index.files:
        stack = [sf.tree.root_node]
        while stack:
            n = stack.pop()
            if n.type == "function_definition" and n.child_by_field_name("body") is not None:
                name = declarator_name(n.child_by_field_name("declarator"))
                if name:
                    out.setdefault(name, []).append(HostFunction(name, n, sf))
            stack.extend(n.named_children)
    return out


def enclosing_function(node):
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node


def strip(node):
    """The expression under casts and parentheses."""
    while node is not None:
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif node.type == "call_expression" and _callee(node) in _CASTS:
            args = node.child_by_field_name("arguments")
            if args is None or args.named_child_count != 1:
                return node
            node = args.named_children[0]
        else:
            return node
    return None


def _callee(call) -> str:
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "field_expression":
        fn = fn.child_by_field_name("field")
    return norm(fn.text.decode()).split("::")[-1].split("<")[0]


def _ident(node) -> str | None:
    node = strip(node)
    return node.text.decode() if node is not None and node.type == "identifier" else None


def _address_of(node) -> str | None:
    node = strip(node)
    if node is not None and node.type == "pointer_expression" and node.child_by_field_name("operator").text == b"&":
        return _ident(node.child_by_field_name("argument"))
    return None


def _walk(node, stop_at_functions: bool = True):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in n.named_children
                     if not (stop_at_functions and c.type in ("function_definition", "lambda_expression")))


class HostReader:
    """Reads the host functions of one Index (cached per function)."""

    def __init__(self, index: Index):
        self.functions = all_functions(index)
        self._meaning: dict[tuple[int, str, int], str | None] = {}
        # the communicators the host creates, by the text of their out-pointer (`&comm`,
        # `&ctx.comm`): with more than one, which one a kernel runs on is not said here
        comms = set()
        for sf in index.files:
            for n in _walk(sf.tree.root_node, stop_at_functions=False):
                if n.type == "call_expression" and _callee(n) in COMM_INIT:
                    args = n.child_by_field_name("arguments")
                    last = args.named_children[-1] if args is not None and args.named_children else None
                    comms.add(norm(last.text.decode()) if last is not None else "")
        self.one_communicator = len(comms) <= 1

    def writes(self, body, name: str) -> list:
        """Nodes that change `name`: assignments, ++/--, `&name` (an out-parameter)."""
        out = []
        for n in _walk(body):
            if n.type == "assignment_expression" and _ident(n.child_by_field_name("left")) == name:
                out.append(n)
            elif n.type == "update_expression" and _ident(n.child_by_field_name("argument")) == name:
                out.append(n)
            elif n.type == "pointer_expression" and _address_of(n) == name:
                out.append(n)
        return out

    def meaning(self, fn_node, name: str, depth: int = 0) -> str | None:
        """"rank" / "nranks" when the variable `name` of this function reaches a position of
        the HCCL API that defines it, and is changed by nothing else; else None."""
        if not self.one_communicator:
            return None
        key = (fn_node.id, name, depth)
        if key in self._meaning:
            return self._meaning[key]
        self._meaning[key] = None            # a recursive helper proves nothing
        body = fn_node.child_by_field_name("body")
        found: set[str] = set()
        queried = set()
        for n in _walk(body):
            if n.type != "call_expression":
                continue
            callee, args = _callee(n), n.child_by_field_name("arguments")
            if args is None:
                continue
            argv = args.named_children
            if callee in COMM_QUERY:
                pos, what = COMM_QUERY[callee]
                if pos < len(argv) and _address_of(argv[pos]) == name:
                    found.add(what)
                    queried.add(argv[pos].id)
                continue
            if callee in COMM_INIT:
                for pos, what in COMM_INIT[callee].items():
                    if pos < len(argv) and _ident(argv[pos]) == name:
                        found.add(what)
                continue
            if depth >= MAX_DEPTH:
                continue
            for pos, a in enumerate(argv):
                if _ident(a) != name:
                    continue
                helpers = [h for h in self.functions.get(callee, []) if len(h.params()) == len(argv)]
                said = {self.meaning(h.node, h.params()[pos], depth + 1) for h in helpers if h.params()[pos]}
                if len(said) == 1 and None not in said:
                    found |= said
        others = [w for w in self.writes(body, name) if not any(w.id == q or _contains(w, q) for q in queried)]
        result = found.pop() if len(found) == 1 and not others else None
        self._meaning[key] = result
        return result


def _contains(node, node_id: int) -> bool:
    return any(n.id == node_id for n in _walk(node, stop_at_functions=False))


def host_bindings(reader: HostReader, launch_call) -> tuple[dict[str, str], dict[str, object]]:
    """For the host function around `launch_call`: the variables that are the rank / rank
    count (name -> "rank" | "nranks"), and the host locals initialised once and never
    changed, declared before the launch (name -> initializer node)."""
    fn = enclosing_function(launch_call)
    if fn is None:
        return {}, {}
    body = fn.child_by_field_name("body")
    meanings: dict[str, str] = {}
    names = {p for p in HostFunction("", fn, None).params() if p}
    inits: dict[str, object] = {}
    for n in _walk(body):
        if n.type == "init_declarator" and n.start_byte < launch_call.start_byte:
            nm = declarator_name(n.child_by_field_name("declarator"))
            val = n.child_by_field_name("value")
            if nm and val is not None and val.type != "argument_list" and val.type != "initializer_list":
                names.add(nm)
                if not reader.writes(body, nm):
                    inits.setdefault(nm, val)
        elif n.type == "declaration" and n.start_byte < launch_call.start_byte:
            for d in n.children_by_field_name("declarator"):
                if d.type != "init_declarator":
                    nm = declarator_name(d)
                    if nm:
                        names.add(nm)
    for nm in sorted(names):
        m = reader.meaning(fn, nm)
        if m is not None:
            meanings[nm] = m
            inits.pop(nm, None)
    return meanings, inits

"""What the host code of the given files says about a kernel's launches.

A kernel launched as `k<<<blocks, ...>>>(a0, a1, ...)` gets the values of its arguments
from the host function that launches it, and its host sequence from that function's
statements. Read here (docs/frontends.md, "The host code"):

- **The communicator's rank and rank count.** HCCL's `HcclCommInitRootInfo(nRanks,
  rootInfo, rank, &comm)` (and `HcclCommInitRootInfoConfig`) creates a communicator of
  `nRanks` ranks on which this process is rank `rank`; `HcclGetRankSize(comm, &n)` and
  `HcclGetRankId(comm, &r)` read them back. A host variable that reaches one of these
  positions, directly or through the parameters of helpers with bodies in the given
  files (a test harness's `ctx.Init(rank_id, n_ranks, ...)`), and is never assigned
  otherwise, *is* the rank count (or the own rank) by the API's definition
  (`host_bindings`).
- **Host locals**: a host variable with one initializer and no other assignment has the
  value of that initializer (`const int threshold = (n_ranks - 1) * kIters;`).
- **The host sequence** (`host_plan`): the launches and `HcclBarrier` host barriers of the
  launching function in order, counted loops unrolled; refused with a reason otherwise.
- **Template instantiations** (`instances`): the template arguments a host function
  template is instantiated with.

frontends.cpp.extract evaluates the launch arguments with these; every launch of the
kernel in the given files must pass the same value for an argument to be taken.
"""

from __future__ import annotations

from dataclasses import dataclass

from frontends.cpp.source import Index, SourceFile, declarator_name, parameters
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
        return [declarator_name(p.child_by_field_name("declarator")) for p in parameters(self.node)]


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
        self.files = index.files
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

    @staticmethod
    def writes(body, name: str) -> list:
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


# ---- the host sequence: the launches of the kernel and the host barriers between them

BARRIERS = ("HcclBarrier",)
# host calls that write device memory: between two launches they may reset a signal
DEVICE_WRITES = ("aclrtMemset", "aclrtMemsetAsync", "aclrtMemcpy", "aclrtMemcpyAsync", "memset")
MAX_HOST_STEPS = 64
# host calls that wait for the work queued on a stream (or on the device) to finish
SYNCS = ("aclrtSynchronizeStream", "aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeDevice")


@dataclass
class HostStep:
    kind: str               # "launch" | "host_barrier" (in a plan); "write" | "sync" (read on the way)
    node: object            # the call
    sf: SourceFile
    loop_values: dict       # loop variable -> its value at this step (launches in unrolled loops)


@dataclass
class HostPlan:
    """The host sequence read from the host function that launches the kernel."""
    function: str
    node: object            # that function's definition
    sf: SourceFile
    steps: list[HostStep]
    callers: int            # calls of the function in the given files


class NotRead(Exception):
    """The host code around the launches says something the host sequence cannot."""

    def __init__(self, node, why: str):
        super().__init__(why)
        self.node, self.why = node, why


def host_plan(reader: HostReader, launches: list, constant) -> tuple[HostPlan | None, tuple | None]:
    """The host sequence of `launches` ((sf, call, fn, args, mark) of every launch of the
    kernel), or (None, (sf, node, why)) when the host code cannot be read as one.
    `constant(sf, node)` gives an int for a constant host expression, else None."""
    if not launches:
        return None, None
    fns = {enclosing_function(call).id if enclosing_function(call) is not None else None for _, call, *_ in launches}
    sf0, call0 = launches[0][0], launches[0][1]
    if None in fns or len(fns) != 1:
        return None, (sf0, call0, "the kernel is launched from more than one host function")
    streams = {norm((_split_args(m.text) + ["", "", ""])[2]) for *_, m in launches}
    if len(streams) != 1:
        return None, (sf0, call0, "the launches use different streams, which may run at once")
    fn = enclosing_function(call0)
    ids = {call.id for _, call, *_ in launches}
    try:
        events = _events(reader, fn.child_by_field_name("body"), sf0, ids, constant, {})
    except NotRead as e:
        return None, (sf0, e.node, e.why)
    first = next((k for k, e in enumerate(events) if e.kind == "launch"), None)
    if first is None:
        return None, (sf0, call0, "the launch is not reached in straight-line host code")
    stream = streams.pop()
    steps, waited = [], True
    for e in events[first:]:
        if e.kind == "write":
            if any(x.kind == "launch" for x in events[events.index(e):]):
                return None, (sf0, e.node, "the host writes device memory between two launches (a reset?)")
            continue
        if e.kind == "sync":
            waited = waited or not stream or stream in _arg_texts(e.node) or _callee(e.node) == "aclrtSynchronizeDevice"
            continue
        if e.kind == "launch":
            waited = False
        elif not waited and stream not in _arg_texts(e.node):
            # the barrier must come after the kernels queued before it: on their stream, or
            # after the host has waited for that stream
            return None, (sf0, e.node, "a host barrier on another stream than the launches', "
                                       "with no wait for the launch stream before it")
        steps.append(e)
    if len(steps) > MAX_HOST_STEPS:
        return None, (sf0, call0, f"more than {MAX_HOST_STEPS} host steps")
    name = declarator_name(fn.child_by_field_name("declarator")) or ""
    callers = []
    for hf in reader.functions.values():
        for h in hf:
            for n in _walk(h.node.child_by_field_name("body")):
                if n.type == "call_expression" and _callee(n) == name:
                    callers.append(n)
    if len(callers) > 1 or any(_in_loop(c) for c in callers):
        return None, (sf0, fn, f"{name} is called more than once, so its launches repeat")
    return HostPlan(name, fn, sf0, steps, len(callers)), None


def _split_args(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "(<[{"
        depth -= ch in ")>]}"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.strip() for p in parts + [cur]]


def _arg_texts(call) -> set[str]:
    args = call.child_by_field_name("arguments")
    return {norm(a.text.decode()) for a in args.named_children} if args is not None else set()


def _in_loop(node) -> bool:
    node = node.parent
    while node is not None and node.type != "function_definition":
        if node.type in ("for_statement", "while_statement", "do_statement", "for_range_loop"):
            return True
        node = node.parent
    return False


def _is_barrier(reader: HostReader, call, depth: int = 0) -> bool:
    """`HcclBarrier(...)`, or a helper whose body always calls one: from a statement of its
    own body, not under a condition or in a loop (a barrier that may not happen is none)."""
    name = _callee(call)
    if name in BARRIERS:
        return True
    if depth >= MAX_DEPTH:
        return False
    for h in reader.functions.get(name, []):
        body = h.node.child_by_field_name("body")
        for stmt in body.named_children:
            if stmt.type == "return_statement":
                break
            if stmt.type not in ("expression_statement", "declaration"):
                continue
            if any(n.type == "call_expression" and _is_barrier(reader, n, depth + 1) for n in _walk(stmt)):
                return True
    return False


def _launches_inside(reader: HostReader, call, ids: set, depth: int = 0) -> bool:
    """Whether a call to a helper with a body reaches a launch of the kernel."""
    if depth >= MAX_DEPTH:
        return False
    for h in reader.functions.get(_callee(call), []):
        for n in _walk(h.node.child_by_field_name("body")):
            if n.type == "call_expression" and (n.id in ids or _launches_inside(reader, n, ids, depth + 1)):
                return True
    return False


def _events(reader: HostReader, node, sf, ids: set, constant, loop_values: dict) -> list[HostStep]:
    """The launches, host barriers and device writes of a host statement, in order."""
    t = node.type
    if t == "compound_statement":
        out = []
        for c in node.named_children:
            out += _events(reader, c, sf, ids, constant, loop_values)
            if c.type == "return_statement":
                break
        return out
    if t == "for_statement":
        body = node.child_by_field_name("body")
        inner = _events(reader, body, sf, ids, constant, loop_values)
        if not any(e.kind in ("launch", "host_barrier") for e in inner):
            return inner
        jump = next((n for n in _walk(body) if n.type in ("break_statement", "continue_statement", "goto_statement",
                                                           "return_statement")), None)
        if jump is not None:
            raise NotRead(jump, "a jump inside a host loop around a launch or barrier")
        var, lo, hi = _counted_loop(node, sf, constant)
        if var is None or hi - lo > MAX_HOST_STEPS:
            raise NotRead(node, "a host loop around a launch or barrier that does not count from a constant to a constant")
        out = []
        for v in range(lo, hi):
            out += _events(reader, body, sf, ids, constant, {**loop_values, var: v})
        return out
    if t in ("if_statement", "while_statement", "do_statement", "switch_statement", "for_range_loop", "try_statement"):
        inner = [e for c in node.named_children for e in _events(reader, c, sf, ids, constant, loop_values)]
        if any(e.kind in ("launch", "host_barrier") for e in inner):
            raise NotRead(node, f"a launch or host barrier under a host {t.split('_')[0]} statement")
        return [e for e in inner if e.kind == "write"]
    out = []
    for n in sorted((n for n in _walk(node) if n.type == "call_expression"), key=lambda n: n.start_byte):
        if n.id in ids:
            out.append(HostStep("launch", n, sf, dict(loop_values)))
        elif _is_barrier(reader, n):
            out.append(HostStep("host_barrier", n, sf, {}))
        elif _callee(n) in SYNCS:
            out.append(HostStep("sync", n, sf, {}))
        elif _callee(n) in DEVICE_WRITES or _is_other_launch(sf, n):
            out.append(HostStep("write", n, sf, {}))
        elif _launches_inside(reader, n, ids):
            raise NotRead(n, "the kernel is launched inside a helper called here")
    return out


def _is_other_launch(sf, call) -> bool:
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if fn is None or args is None:
        return False
    lo, hi = sf.char_offset(fn), sf.char_offset(args)
    return any(m.kind == "launch" and lo <= m.start and m.end <= hi + 1 for m in sf.marks)


def _counted_loop(node, sf, constant) -> tuple[str | None, int, int]:
    """`for (int v = A; v < B; ++v)` with constant A and B, v not changed in the body."""
    init, cond, upd = (node.child_by_field_name(k) for k in ("initializer", "condition", "update"))
    if init is None or cond is None or upd is None or init.type != "declaration":
        return None, 0, 0
    ds = [d for d in init.children_by_field_name("declarator") if d.type == "init_declarator"]
    if len(ds) != 1:
        return None, 0, 0
    var = declarator_name(ds[0].child_by_field_name("declarator"))
    lo = constant(sf, ds[0].child_by_field_name("value"))
    if cond.type != "binary_expression" or _ident(cond.child_by_field_name("left")) != var \
            or cond.child_by_field_name("operator").text not in (b"<", b"<="):
        return None, 0, 0
    hi = constant(sf, cond.child_by_field_name("right"))
    if lo is None or hi is None:
        return None, 0, 0
    hi += cond.child_by_field_name("operator").text == b"<="
    ok_update = norm(upd.text.decode()) in (f"++{var}", f"{var}++", f"{var}+=1", f"{var}={var}+1")
    body = node.child_by_field_name("body")
    if not ok_update or HostReader.writes(body, var):
        return None, 0, 0
    return var, lo, hi


# ---- template arguments of host functions: their instantiations in the given files

def template_params(fn_node) -> list[str | None]:
    """The names of the template parameters of a function template ([] for a function)."""
    parent = fn_node.parent if fn_node is not None else None
    if parent is None or parent.type != "template_declaration":
        return []
    plist = parent.child_by_field_name("parameters")
    out = []
    for p in plist.named_children if plist is not None else []:
        d = p.child_by_field_name("declarator")
        out.append(declarator_name(d) if p.type in ("parameter_declaration", "optional_parameter_declaration") else None)
    return out


def template_arg_name(a) -> str | None:
    """`R` in `<R, C>`: read as a type by the grammar, it may name a template parameter."""
    if a.type == "type_descriptor":
        ty = a.child_by_field_name("type")
        if ty is not None and ty.type == "type_identifier" and a.child_by_field_name("declarator") is None:
            return ty.text.decode()
    if a.type == "identifier":
        return a.text.decode()
    return None


def instances(reader: HostReader, fn_node, value, depth: int = 0) -> set[tuple]:
    """The template argument tuples the given files instantiate this function template
    with: explicit instantiations `template bool F<4, 8>(...);` and calls `F<4, 8>(...)`,
    through callers that pass their own template parameters on (`F<R, C>(...)` inside
    `template <int R, int C> G`). `value(sf, node)` gives a constant's int, else None;
    an argument it cannot tell is None in the tuple."""
    name = declarator_name(fn_node.child_by_field_name("declarator")) if fn_node is not None else None
    if not name or depth > MAX_DEPTH:
        return set()
    out: set[tuple] = set()
    for sf in reader.files:
        for n in _walk(sf.tree.root_node, stop_at_functions=False):
            if n.type != "template_function" or n.child_by_field_name("name") is None \
                    or n.child_by_field_name("name").text.decode() != name:
                continue
            parent = n.parent
            if parent is None or parent.type not in ("call_expression", "function_declarator"):
                continue
            if parent.type == "function_declarator" and (parent.parent is None or parent.parent.type != "template_instantiation"):
                continue
            args = n.child_by_field_name("arguments").named_children
            caller = enclosing_function(n)
            cparams = template_params(caller) if caller is not None else []
            if any(template_arg_name(a) in cparams for a in args if template_arg_name(a)):
                for outer in instances(reader, caller, value, depth + 1):
                    env = dict(zip(cparams, outer))
                    out.add(tuple(env.get(template_arg_name(a)) if template_arg_name(a) in env else value(sf, a) for a in args))
            else:
                out.add(tuple(value(sf, a) for a in args))
    return out

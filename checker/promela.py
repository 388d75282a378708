"""Promela export: the program as a SPIN model with exactly sigproof's step granularity.

Entry point: `promela(program, semantics=DEFAULT) -> str`, from the typed IR only.

Every process of the run is one Promela process: `H<r>` for the host of rank r and
`K<r>_<b>` for the kernel slot (r, b), which serves every launch of that slot. All of the
state is global (positions `hpc<r>`/`kpc<r>_<b>`, the element a tensor wait reads next,
the locals, the signals, the launch counts when the kernel reads `launch_id`), and each
visible step is one `d_step` guarded by the process's position: a TNOTIFY, one element
read of a TWAIT/TTEST (pass by pass, a failed first read blocks), a reset, a launch start
(which starts the blocks and runs their first local statements), a launch completion, a
host_barrier (one joint step of all hosts, taken by `H0`), a block_barrier (one joint step
of a rank's blocks, taken by `K<r>_0`), or one value of an `any(lo, hi)`
(one d_step per value; the export needs its width bounded statically, see `exportable`). The local statements after a
visible step run inside the same `d_step`, interpreted instruction by instruction, and
dead locals are zeroed as in sigproof's states, so SPIN (spin -o2: no dead-variable
elimination, which would drop a signal nobody reads; pan -DNOREDUCE) stores exactly
sigproof's states plus one: the initial state before `init` has run the hosts' first
local statements and started the processes.

Properties: a terminal deadlock is an invalid end state (hosts are not at an end label;
the finished state is made valid by a self-loop of H0); an `assert`, an AtomicAdd overflow
and a run-time error are `assert(sigproof_assertion)`, `assert(sigproof_overflow)` and
`assert(sigproof_error)` on always-zero hidden variables, after which the process stops
as in sigproof. Known limitations: lost_notification and dirty_exit are not exported;
a deadlock in which processes can only spin is not an invalid end state (SPIN's
non-progress search `-l` over-approximates it); locals are Promela `int` (32 bits) where
sigproof's are unbounded, so a local leaving int32 (and the int32 checks of computed Set,
AtomicAdd and comparison values) is not modelled; a local loop that runs LOCAL_LIMIT
statements within one step is taken as spinning forever.
"""

from __future__ import annotations

from model import ir
from model import analysis as A
from model.analysis import liveness
from model.semantics import DEFAULT, Semantics
from model.vocabulary import COMPARISONS

__all__ = ["promela"]

LOCAL_LIMIT = 100_000
_CMP = {c.name: c.symbol for c in COMPARISONS}
_BINARY = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">="}
_INT32_MAX = "2147483647"
_INT32_MIN = "(-2147483647 - 1)"


_DATA = (ir.Copy, ir.Access, ir.WaitEvent, ir.TestEvent, ir.Fence, ir.Load, ir.Store, ir.FetchAdd, ir.Cas,
         ir.Observe)


class NotExportable(Exception):
    """The program uses something the export does not cover (the data extension)."""


def exportable(program: ir.Program) -> str | None:
    """Why `program` cannot be exported, or None."""
    for code in (program.kernel, program.host):
        for ins in code.instrs:
            if isinstance(ins, _DATA):
                return (f"{ins.span}: the Promela export covers the base language only; "
                        f"'{ins.text}' belongs to the data extension (buffers, LOAD/STORE/FETCH_ADD/CAS, observe)")
    widths = choice_widths(program)
    for kind, code in (("kernel", program.kernel), ("host", program.host)):
        for pc, ins in enumerate(code.instrs):
            if isinstance(ins, ir.Choose) and widths[kind][pc] is None:
                return (f"{ins.span}: '{ins.text}': the Promela export needs the range of an any(lo, hi) bounded "
                        f"statically (at most {A.CAP} values, from what lo and hi can be), and this one is not")
    return None


def choice_widths(program: ir.Program) -> dict[str, dict[int, int | None]]:
    """Per code, per `any(lo, hi)`: the most values it can range over in any process (from the
    abstract interpretation of model/analysis.py), or None when that is not bounded."""
    an = A.Analysis(program)
    out: dict[str, dict[int, int | None]] = {"kernel": {}, "host": {}}
    for kind, r, b in an.contexts():
        envs, ctx = an.envs(kind, r, b)
        for pc, ins in enumerate(an.codes[kind].instrs):
            if not isinstance(ins, ir.Choose):
                continue
            out[kind].setdefault(pc, 1)
            env = envs[pc]
            if env is None or out[kind][pc] is None:
                continue
            lo, hi = A.evaluate(ins.lo, env, ctx), A.evaluate(ins.hi, env, ctx)
            if lo is A.TOP or hi is A.TOP:
                out[kind][pc] = None
            elif lo and hi:
                width = max(hi) - min(lo) + 1
                out[kind][pc] = None if width > A.CAP else max(out[kind][pc], width)
    return out


def promela(program: ir.Program, semantics: Semantics = DEFAULT) -> str:
    """The Promela text of `program` under `semantics` (deterministic: same program, same bytes)."""
    why = exportable(program)
    if why is None and semantics.lines:
        why = ("the Promela export models a Set as one store; --set-granularity line (a Set as a cache-line "
               "read and write-back) is not exported")
    if why is not None:
        raise NotExportable(why)
    return _Export(program, semantics.atomic_waits).text()


class _Proc:
    """One Promela process: its code, its names and its constants."""

    def __init__(self, kind: str, rank: int, block: int, code: ir.Code, launches: bool):
        self.kind, self.rank, self.block, self.code = kind, rank, block, code
        tag = f"{rank}" if kind == "host" else f"{rank}_{block}"
        self.name = ("H" if kind == "host" else "K") + tag
        self.pc = ("hpc" if kind == "host" else "kpc") + tag
        self.idx = ("hidx" if kind == "host" else "kidx") + tag
        self.locals = tuple(f"{'h' if kind == 'host' else 'k'}{tag}_{_ident(n)}{s}"
                            for s, n in enumerate(code.slot_names))
        self.done = len(code.instrs)
        self.spinning = self.done + 1
        self.launch_id = f"(launches[{rank}] - 1)" if launches and kind == "kernel" else "0"


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) + "_"


class _Export:
    def __init__(self, program: ir.Program, atomic_waits: bool):
        self.p = program
        self.atomic = atomic_waits
        self.R, self.B, self.E = program.nranks, program.nblocks, program.elems_per_rank
        launches = program.uses_launch_id
        self.track_launches = launches
        self.hosts = [_Proc("host", r, 0, program.host, launches) for r in range(self.R)]
        self.kernels = [_Proc("kernel", r, b, program.kernel, launches) for r in range(self.R) for b in range(self.B)]
        self.live = {"host": liveness(program.host), "kernel": liveness(program.kernel)}
        self.widths = choice_widths(program)

    # ------------------------------------------------------------ expressions

    def ex(self, e: ir.Expr, q: _Proc) -> str:
        if isinstance(e, ir.Const):
            return str(e.value) if e.value >= 0 else f"({e.value})"
        if isinstance(e, ir.Local):
            return q.locals[e.slot]
        if isinstance(e, ir.Builtin):
            return {"rank": str(q.rank), "block": str(q.block), "launch_id": q.launch_id}[e.name]
        if isinstance(e, ir.Unary):
            a = self.ex(e.operand, q)
            return f"({a} != 0)" if e.op == "bool" else f"({e.op}{a})" if e.op != "!" else f"({a} == 0)"
        if isinstance(e, ir.Binary):
            a, b = self.ex(e.left, q), self.ex(e.right, q)
            if e.op == "&&":
                return f"({a} != 0 && {b} != 0)"
            if e.op == "||":
                return f"({a} != 0 || {b} != 0)"
            if e.op in ("min", "max"):
                return f"({a} {'<' if e.op == 'min' else '>'} {b} -> {a} : {b})"
            assert e.op in _BINARY, e.op
            return f"({a} {e.op} {b})"
        if isinstance(e, ir.Select):
            return f"({self.ex(e.test, q)} != 0 -> {self.ex(e.then, q)} : {self.ex(e.orelse, q)})"
        if isinstance(e, ir.ArrayRead):  # a chain of conditional expressions over the elements
            i = self.ex(e.index, q)
            out = self.ex(e.elems[-1], q)
            for k in range(len(e.elems) - 2, -1, -1):
                out = f"({i} == {k} -> {self.ex(e.elems[k], q)} : {out})"
            return out
        raise AssertionError(f"not an exportable expression: {e!r}")

    def fault(self, e: ir.Expr | None, q: _Proc) -> str | None:
        """A Promela condition that holds when evaluating `e` raises an `error` (C's order
        of evaluation and short-circuits), or None when it never can."""
        if e is None or isinstance(e, (ir.Const, ir.Local, ir.Builtin)):
            return None
        if isinstance(e, ir.Unary):
            return self.fault(e.operand, q)
        if isinstance(e, ir.ArrayRead):
            i = self.ex(e.index, q)
            return _any(self.fault(e.index, q), f"({i} < 0 || {i} >= {len(e.elems)})")
        if isinstance(e, ir.Select):
            ft, fa, fb = self.fault(e.test, q), self.fault(e.then, q), self.fault(e.orelse, q)
            branch = None if fa is None and fb is None else \
                f"({self.ex(e.test, q)} != 0 -> {fa or '0'} : {fb or '0'})"
            return _any(ft, branch)
        assert isinstance(e, ir.Binary)
        fa, fb = self.fault(e.left, q), self.fault(e.right, q)
        a, b = self.ex(e.left, q), self.ex(e.right, q)
        if e.op == "&&":
            return _any(fa, None if fb is None else f"({a} != 0 && {fb})")
        if e.op == "||":
            return _any(fa, None if fb is None else f"({a} == 0 && {fb})")
        own = None
        if e.op in ("/", "%"):
            own = f"({b} == 0)"
        elif e.op in ("<<", ">>"):
            own = f"({b} < 0 || {b} > 63)"
        return _any(fa, fb, own)

    # ------------------------------------------------------------ views

    def view(self, v: ir.View, q: _Proc, own_only: bool):
        """(fault condition or None, element count, pos(k) -> global position, largest count)."""
        _, dims, strides, first = v.shape()
        faults: list = []
        parts = []  # (count, sub(m) -> index in the dimension, largest count)
        for j, d in enumerate(dims):
            if j >= len(v.selectors):
                parts.append((str(d), lambda m: m, d))
                continue
            sel = v.selectors[j]
            if isinstance(sel, ir.Index):
                i = self.ex(sel.expr, q)
                faults += [self.fault(sel.expr, q), f"({i} < 0 || {i} >= {d})"]
                parts.append(("1", lambda m, i=i: i, 1))
                continue
            a = self.ex(sel.start, q) if sel.start is not None else "0"
            b = self.ex(sel.stop, q) if sel.stop is not None else str(d)
            s = self.ex(sel.step, q) if sel.step is not None else "1"
            faults += [self.fault(x, q) for x in (sel.start, sel.stop, sel.step)]
            faults.append(f"({s} < 1 || {a} < 0 || {a} > {d} || {b} < 0 || {b} > {d} || {b} <= {a})")
            count = f"(({b} - {a} + {s} - 1) / {s})"
            parts.append((count, lambda m, a=a, s=s: f"({a} + {m} * {s})", d))
        if v.at is not None:
            at = self.ex(v.at, q)
            faults += [self.fault(v.at, q), f"({at} < 0 || {at} >= {self.R})"]
            if own_only:
                faults.append(f"({at} != {q.rank})")
        else:
            at = str(q.rank)
        base = (f"{at} * {self.E} + {v.signal.offset + first}" if v.at is not None
                else str(q.rank * self.E + v.signal.offset + first))
        counts = [c for c, _, _ in parts]
        largest = 1
        for _, _, n in parts:
            largest *= n

        def pos(k: str) -> str:
            terms = [base]
            for j, (c, sub, _) in enumerate(parts):
                if c == "1":
                    m = "0"
                else:
                    after = [x for x in counts[j + 1:] if x != "1"]
                    m = f"(({k}) / ({' * '.join(after)}) % {c})" if after else f"(({k}) % {c})"
                terms.append(f"{sub(m)} * {strides[j]}")
            return "(" + " + ".join(terms) + ")"

        real = [c for c in counts if c != "1"]
        count = " * ".join(real) if real else "1"
        return _any(*faults), count, pos, largest

    # ------------------------------------------------------------ code

    def text(self) -> str:
        p = self.p
        params = ", ".join(f"{n}={v}" for n, v in p.params) or "none"
        out = [f"/* sigproof Promela export of {p.name} ({p.file}); params: {params}",
               f"   ranks {self.R}, blocks {self.B}, tensor waits: {'atomic' if self.atomic else 'pass'}.",
               "   Check: spin -o2 -a FILE && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -c0",
               "   (stored states = sigproof's states + 1: the state before init has run). */", ""]
        out.append("hidden byte sigproof_assertion, sigproof_overflow, sigproof_error; /* always 0 */")
        out.append("hidden int t_v, t_p, t_n, t_k, t_steps; /* scratch within one d_step */")
        out.append(f"int sig[{max(1, self.R * self.E)}];")
        if self.track_launches:
            out.append(f"short launches[{self.R}];")
        for q in self.hosts + self.kernels:
            width = "byte" if q.spinning < 255 else "short"
            out.append(f"{width} {q.pc}; short {q.idx};")
            if q.locals:
                out.append("int " + ", ".join(q.locals) + ";")
        out.append("")
        out += self.init()
        for q in self.hosts:
            out += self.process(q)
        for q in self.kernels:
            out += self.process(q)
        return "\n".join(out) + "\n"

    def init(self) -> list[str]:
        lines = ["init {", "  atomic {"]
        for k in self.kernels:
            lines.append(f"    {k.pc} = {k.done};")
        for s in self.p.signals:
            if s.init:
                for r in range(self.R):
                    base = r * self.E + s.offset
                    lines.append(f"    t_k = 0; do :: t_k < {s.size} -> sig[{base} + t_k] = {s.init}; t_k++ "
                                 ":: else -> break od;")
        for h in self.hosts:
            lines.append(f"    {h.pc} = 0;")
            lines += _indent(self.run_locals(h), 4)
        for q in self.hosts + self.kernels:
            lines.append(f"    run {q.name}();")
        return lines + ["  }", "}", ""]

    def process(self, q: _Proc) -> list[str]:
        lines = [f"proctype {q.name}() {{"]
        lines.append("end:" if q.kind == "kernel" else "")
        lines.append("  do")
        for pc, ins in enumerate(q.code.instrs):
            if ins.visible and not isinstance(ins, (ir.HostBarrier, ir.BlockBarrier)):
                lines.append(f"  /* {_comment(ins)} */")
                lines += _indent(self.step(q, pc, ins), 2)
        if not any(ins.visible and not isinstance(ins, (ir.HostBarrier, ir.BlockBarrier)) for ins in q.code.instrs):
            lines.append("  :: false  /* no visible statement of its own */")
        if q.kind == "kernel" and q.block == 0:
            barriers = [pc for pc, ins in enumerate(q.code.instrs) if isinstance(ins, ir.BlockBarrier)]
            if barriers:
                lines.append(f"  /* block_barrier: one joint step of rank {q.rank}'s blocks */")
                lines += _indent(self.barrier(barriers, [k for k in self.kernels if k.rank == q.rank]), 2)
        if q is self.hosts[0]:
            barriers = [pc for pc, ins in enumerate(q.code.instrs) if isinstance(ins, ir.HostBarrier)]
            if barriers:
                lines.append("  /* host_barrier: one joint step of all hosts */")
                lines += _indent(self.barrier(barriers), 2)
            finished = " && ".join(f"{x.pc} == {x.done}" for x in self.hosts + self.kernels)
            lines.append("  /* the finished state is a valid end state: a self-loop (left out with spin")
            lines.append("     -DSIGPROOF_PROGRESS, so that every cycle is a non-progress cycle for pan -l) */")
            lines += ["#ifndef SIGPROOF_PROGRESS", f"  :: ({finished})", "#endif"]
        lines += ["  od", "}", ""]
        return [x for x in lines if x != ""] + [""]

    def step(self, q: _Proc, pc: int, ins) -> list[str]:
        at = f"{q.pc} == {pc}"
        after = self.run_locals(q)
        if isinstance(ins, ir.Launch):
            body = [f"{at} ->"]
            if self.track_launches:
                body.append(f"launches[{q.rank}] = launches[{q.rank}] + 1;")
            body.append(f"{q.pc} = {pc + 1};")
            for k in self.kernels:
                if k.rank == q.rank:
                    body += [f"{k.pc} = 0; {k.idx} = 0;"] + self.run_locals(k)
            return _dstep(body)
        if isinstance(ins, ir.Join):
            blocks = " && ".join(f"{k.pc} == {k.done}" for k in self.kernels if k.rank == q.rank)
            return _dstep([f"{at} && {blocks} ->", f"{q.pc} = {pc + 1};"] + after)
        if isinstance(ins, ir.Notify):
            return self.notify(q, pc, ins, after)
        if isinstance(ins, ir.Reset):
            return self.reset(q, pc, ins, after)
        if isinstance(ins, ir.Choose):
            return self.choose(q, pc, ins, after)
        return self.read(q, pc, ins, after)

    def choose(self, q: _Proc, pc: int, ins: ir.Choose, after: list[str]) -> list[str]:
        """An `any(lo, hi)`: one d_step per value lo + k (k below the static width), the
        first one also the `error` of an empty range."""
        lo, hi = self.ex(ins.lo, q), self.ex(ins.hi, q)
        fault = _any(self.fault(ins.lo, q), self.fault(ins.hi, q))
        x, stop = q.locals[ins.slot], f"{q.pc} = {q.done}"
        lines = _dstep([f"{q.pc} == {pc} ->"] + _guarded(_any(fault, f"({lo} > {hi})"), stop,
                                                         [f"{x} = {lo}; {q.pc} = {pc + 1}"]) + after)
        for k in range(1, self.widths[q.kind][pc]):
            guard = f"{q.pc} == {pc}" + (f" && !{fault}" if fault else "") + f" && {lo} + {k} <= {hi}"
            lines += _dstep([f"{guard} ->", f"{x} = {lo} + {k}; {q.pc} = {pc + 1};"] + after)
        return lines

    def notify(self, q: _Proc, pc: int, ins: ir.Notify, after: list[str]) -> list[str]:
        fault, _, pos, _ = self.view(ins.view, q, own_only=False)
        fault = _any(fault, self.fault(ins.value, q))
        stop = f"{q.pc} = {q.done}"
        effect = [f"t_v = {self.ex(ins.value, q)}; t_p = {pos('0')};"]
        if ins.op == ir.SET:
            effect.append(f"sig[t_p] = t_v; {q.pc} = {pc + 1}")
        else:
            effect += ["if",
                       f":: (t_v > 0 && sig[t_p] > {_INT32_MAX} - t_v) ||",
                       f"   (t_v < 0 && sig[t_p] < {_INT32_MIN} - t_v) ->",
                       f"   assert(sigproof_overflow); {stop}",
                       f":: else -> sig[t_p] = sig[t_p] + t_v; {q.pc} = {pc + 1}",
                       "fi"]
        return _dstep([f"{q.pc} == {pc} ->"] + _guarded(fault, stop, effect) + after)

    def reset(self, q: _Proc, pc: int, ins: ir.Reset, after: list[str]) -> list[str]:
        fault, count, pos, _ = self.view(ins.view, q, own_only=True)
        effect = [f"t_n = {count}; t_k = 0;",
                  f"do :: t_k < t_n -> sig[{pos('t_k')}] = {ins.view.signal.init}; t_k++ :: else -> break od;",
                  f"{q.pc} = {pc + 1}"]
        return _dstep([f"{q.pc} == {pc} ->"] + _guarded(fault, f"{q.pc} = {q.done}", effect) + after)

    def read(self, q: _Proc, pc: int, ins, after: list[str]) -> list[str]:
        """A TWAIT or TTEST: one element read per step, or all at once with atomic waits."""
        fault, count, pos, largest = self.view(ins.view, q, own_only=True)
        at = f"{q.pc} == {pc}"
        stop = f"{q.pc} = {q.done}"
        fault = _any(fault, self.fault(ins.value, q))
        value = self.ex(ins.value, q)
        cmp = _CMP[ins.cmp]
        is_test = isinstance(ins, ir.Test)
        dest = q.locals[ins.dest] if is_test else None
        done = (f"{dest} = 1; " if is_test else "") + f"{q.idx} = 0; {q.pc} = {pc + 1}"
        if self.atomic:
            reads = [f"sig[{pos(str(k))}] {cmp} {value}" for k in range(largest)]
            if count.isdigit():
                holds = " && ".join(reads[: int(count)])
            else:
                holds = " && ".join(f"({k} >= {count} || {r})" for k, r in enumerate(reads))
            holds = f"({holds})"
            effect = ["if", f":: {holds} -> {done}",
                      ":: else -> " + (f"{dest} = 0; {q.pc} = {pc + 1}" if is_test else "skip"), "fi"]
            guard = f"{at}" if is_test else f"{at} && ({fault or '0'} || {holds})"
            return _dstep([f"{guard} ->"] + _guarded(fault, stop, effect) + after)
        read = f"sig[{pos(q.idx)}] {cmp} {value}"
        last = "1" if count == "1" else f"{q.idx} + 1 >= {count}"
        failed = f"{dest} = 0; {q.idx} = 0; {q.pc} = {pc + 1}" if is_test else f"{q.idx} = 0"
        effect = ["if",
                  f":: {read} ->",
                  f"   if :: {last} -> {done} :: else -> {q.idx} = {q.idx} + 1 fi",
                  f":: else -> {failed}",
                  "fi"]
        if is_test:
            guard = at
        else:
            guard = f"{at} && ({fault + ' || ' if fault else ''}{q.idx} > 0 || {read})"
        return _dstep([f"{guard} ->"] + _guarded(fault, stop, effect) + after)

    def barrier(self, pcs: list[int], members: list | None = None) -> list[str]:
        members = self.hosts if members is None else members
        at = " && ".join("(" + " || ".join(f"{h.pc} == {pc}" for pc in pcs) + ")" for h in members)
        body = [f"{at} ->"]
        for h in members:
            body.append(f"{h.pc} = {h.pc} + 1;")
            body += self.run_locals(h)
        return _dstep(body)

    def run_locals(self, q: _Proc) -> list[str]:
        """The local statements from the process's position up to its next visible one
        (or its end), then the dead locals zeroed."""
        code = q.code.instrs
        stop = f"{q.pc} = {q.done}"
        local_pcs = [pc for pc, ins in enumerate(code) if not ins.visible]
        lines = []
        if local_pcs:
            lines += ["t_steps = 0;", "do"]
            for pc in local_pcs:
                lines.append(f":: t_steps < {LOCAL_LIMIT} && {q.pc} == {pc} -> t_steps++;")
                lines += _indent(self.local(q, pc, code[pc], stop), 3)
            lines += [":: else -> break", "od;"]
            is_local = " || ".join(f"{q.pc} == {pc}" for pc in local_pcs)
            lines.append(f"if :: t_steps >= {LOCAL_LIMIT} && ({is_local}) -> {q.pc} = {q.spinning} :: else -> skip fi;")
        zero = []
        live = self.live[q.kind]
        for pc, ins in enumerate(code):
            if ins.visible:
                dead = [q.locals[s] for s in range(len(q.locals)) if s not in live[pc]]
                if dead:
                    zero.append(f":: {q.pc} == {pc} -> " + "; ".join(f"{x} = 0" for x in dead))
        if q.locals:
            zero.append(f":: {q.pc} == {q.done} -> {q.idx} = 0; " + "; ".join(f"{x} = 0" for x in q.locals))
        if zero:
            lines += ["if"] + zero + [":: else -> skip", "fi;"]
        return lines + ["skip;"]

    def local(self, q: _Proc, pc: int, ins, stop: str) -> list[str]:
        nxt = f"{q.pc} = {pc + 1}"
        if isinstance(ins, ir.Assign):
            return _guarded(self.fault(ins.value, q), stop, [f"{q.locals[ins.slot]} = {self.ex(ins.value, q)}; {nxt}"])
        if isinstance(ins, ir.Jump):
            return [f"{q.pc} = {ins.target}"]
        if isinstance(ins, ir.Branch):
            body = [f"if :: {self.ex(ins.cond, q)} != 0 -> {nxt} :: else -> {q.pc} = {ins.target} fi"]
            return _guarded(self.fault(ins.cond, q), stop, body)
        if isinstance(ins, ir.Assert):
            body = [f"if :: {self.ex(ins.cond, q)} != 0 -> {nxt} :: else -> assert(sigproof_assertion); {stop} fi"]
            return _guarded(self.fault(ins.cond, q), stop, body)
        assert isinstance(ins, ir.Return), ins
        return [stop]


def _any(*conds) -> str | None:
    real = [c for c in conds if c]
    return "(" + " || ".join(real) + ")" if real else None


def _guarded(fault: str | None, stop: str, body: list[str]) -> list[str]:
    """`body`, or an `error` (the process stops) when `fault` holds."""
    if fault is None:
        return body[:-1] + [body[-1] + ";"] if not body[-1].endswith(";") else body
    return ["if", f":: {fault} -> assert(sigproof_error); {stop}", ":: else ->"] + _indent(body, 3) + ["fi;"]


def _dstep(body: list[str]) -> list[str]:
    return [":: d_step {"] + _indent(body, 4) + ["   }"]


def _indent(lines: list[str], n: int) -> list[str]:
    return [" " * n + x for x in lines]


def _comment(ins) -> str:
    return f"{type(ins).__name__} at {ins.span}: " + ins.text.replace("*/", "* /").replace("\n", " ")

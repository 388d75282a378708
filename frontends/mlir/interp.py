"""Abstract interpretation of a PTO MLIR kernel function into .sig skeleton statements.

SSA values are immutable, so a pure integer value is carried as a .sig expression and
written out where it is used. Loop-carried values (`iter_args`, `scf.while` arguments) and
the results of `scf.if` / `scf.for` / `scf.while` become .sig locals. A `TTEST` is a
statement of its own (`bool t = TTEST(..);`), so its read happens once, where the op is.
Pointers are (signal, element offset, rank); `pto.make_tensor_view` / `pto.partition_view`
make views of them. Whatever the code does not determine becomes a param (or, with
`[bounds]`, an `any(lo, hi)` choice) with an assumption at the op's file:line:col.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from frontends.core import sym as S
from frontends.core.errors import ExtractError, Loc
from frontends.core.intrinsics import mlir_role
from frontends.core import skeleton as K
from frontends.core.builder import Builder
from frontends.core.sym import FULL, NONE, PARTIAL, Sym
from frontends.mlir.source import Func, Module, Op, Region
from model.vocabulary import CMPS, NOTIFY_OPS as VOCAB_NOTIFY_OPS


CONVENTIONAL = {
    "rank": ("rank", "my_rank", "myrank", "rank_id", "rankid", "me", "local_rank", "my_pe", "pe"),
    "nranks": ("nranks", "n_ranks", "rank_size", "ranksize", "world_size", "worldsize", "num_ranks", "npes"),
    "block": ("block", "block_idx", "blockidx"),
    "nblocks": ("nblocks", "block_num", "blocknum", "num_blocks"),
}
WINDOWS = ("windows", "windowsin", "windowsout", "windows_in", "windows_out", "win_bases")
CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
        "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CMPI_CODES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
BINARY = {"addi": "+", "subi": "-", "muli": "*", "divsi": "/", "divui": "/", "remsi": "%", "remui": "%",
          "andi": "&", "ori": "|", "xori": "^", "shli": "<<", "shrsi": ">>", "shrui": ">>"}
CASTS = ("index_cast", "index_castui", "extsi", "extui", "trunci", "bitcast")
NOTIFY_OPS = {word: op.name for op in VOCAB_NOTIFY_OPS for word in op.mlir_words}
WAIT_CMPS = CMPS
# ops that move data, allocate tiles or compute on them: no signal meaning
DATA_PREFIXES = ("pto.t", "pto.comm.t", "pto.alloc", "pto.cmo.", "pto.set_", "pto.wait_", "pto.record",
                 "pto.sync", "pto.declare", "pto.initialize", "pto.mgather", "pto.mscatter", "pto.get_validshape",
                 "pto.set_validshape", "pto.store_scalar", "pto.print", "pto.trap")
MAX_DEPTH = 32
# The runtime's CommContext (pypto include/pypto/codegen/distributed/comm_layout.h, static_asserts
# on offsetof(::CommContext, ...)), in 8-byte slots: rankId and rankNum share slot 2 (bytes 16
# and 20: the low and the high 32 bits), windowsIn[] starts at slot 4 (byte 32), windowsOut[]
# at slot 68 (byte 544).
COMMCTX_RANK_SLOT = 2
COMMCTX_WINDOW_SLOTS = (4, 68)


@dataclass(frozen=True)
class Ptr:
    signal: str            # the function argument (without %)
    offset: Sym            # elements
    rank: Sym | None       # None: the own rank
    loc: Loc


@dataclass(frozen=True)
class View:
    ptr: Ptr
    shape: tuple[Sym, ...]
    strides: tuple[Sym, ...]
    offsets: tuple[Sym, ...]
    sizes: tuple[Sym, ...]


@dataclass(frozen=True)
class WinBase:
    """A 64-bit word loaded from a table: a window base address if the window idiom uses it."""
    table: str             # the table argument (without %)
    slot: Sym              # the index loaded (for a named window table: the rank)
    key: str = ""          # the SSA name of the load (for an Opaque if it is used as an integer)
    loc: Loc | None = None


@dataclass(frozen=True)
class WinDelta:
    """table[a] - table[b], in bytes / scale elements."""
    to: Sym
    frm: Sym
    table: str = ""
    scale: int = 1


@dataclass(frozen=True)
class Field:
    """A constant slot of a 64-bit table (`load_scalar %t[%c2]`), or its low / high 32 bits.

    It is runtime data unless the table is shown to be the runtime's CommContext (see
    `Interp.commctx`): then slot 2 is (rankId, rankNum).
    """
    table: str
    slot: int
    half: str              # "word", "lo" (trunci), "hi64" (shrui 32), "hi" (trunci of hi64)
    key: str
    loc: Loc


@dataclass(frozen=True)
class Opaque:
    """A value the extraction cannot follow: it becomes a param or a choice where it is used."""
    why: str
    key: str               # the SSA name
    loc: Loc


@dataclass
class SignalInfo:
    name: str
    loc: Loc
    extents: list[Sym] = field(default_factory=list)   # per access: last element index
    declared: list[Sym] = field(default_factory=list)  # offset + view size, per view
    only_zero: bool = True


@dataclass
class Site:
    kind: str
    loc: Loc
    levels: dict


class Interp(Builder):
    reserved_upper = ("NRANKS", "NBLOCKS")

    def __init__(self, module: Module, kernel: Func, cfg: dict, known: dict | None = None):
        """`known`: what an earlier run proved from the code, {origin: role} (see `proofs`)."""
        super().__init__()
        self.module, self.kernel, self.cfg = module, kernel, cfg
        self.known: dict[tuple, str] = dict(known or {})
        # where an integer name of the skeleton came from: {name: {origin}}, an origin being
        # ("arg", "%rank") or ("field", "ctx", 2, "lo")
        self.origins: dict[str, set] = {}
        # what this run proved: {origin: {(role, loc)}}; see docs/frontends.md, "What resolves fully"
        self.proofs: dict[tuple, set] = {}
        self.tables: dict[str, str] = {}   # pointer argument (without %) -> its type text
        self.named_tables: set[str] = set()  # window tables by name or config: rank r's base at slot r
        self.param_keys: dict[str, Sym] = {}
        self.signals: dict[str, SignalInfo] = {}
        self.sites: list[Site] = []
        self.depth = 0
        self.loops: dict[str, Sym] = {}  # loop variable -> its exclusive upper bound
        self.sweeps: dict[str, Sym] = {}  # loop variable of `for 0 .. n step 1` -> n
        self.bounds = {k.lstrip("%"): v for k, v in cfg.get("bounds", {}).items()}
        self.values = {k.lstrip("%"): v for k, v in cfg.get("values", {}).items()}
        self.windows = {w.lstrip("%").lower() for w in cfg.get("windows", [])} or set(WINDOWS)

    # ---------------------------------------------------------------- bookkeeping

    def fresh(self, base: str) -> str:
        return super().fresh(base.lstrip("%"))

    def param(self, key: str, hint: str, value: int, comment: str, loc: Loc, note: str) -> Sym:
        if key in self.param_keys:
            return self.param_keys[key]
        pname = self.fresh(hint.upper())
        self.params[pname] = (value, comment, loc)
        self.param_keys[key] = S.name(pname, NONE)
        self.assume(loc, note.format(param=pname), pname)
        return self.param_keys[key]

    def error(self, op_or_loc, message: str) -> ExtractError:
        loc = op_or_loc.loc if isinstance(op_or_loc, Op) else op_or_loc
        return ExtractError(loc, message, self.module.path)

    # ---------------------------------------------------------------- values

    def get(self, env: dict, name: str, op: Op):
        if name not in env:
            raise self.error(op, f"{name} is not defined before its use here")
        return env[name]

    def integer(self, v, op: Op, role: str = "value") -> Sym:
        """An integer Sym for a value; what cannot be followed becomes a param (or a choice)."""
        if isinstance(v, Sym):
            return v
        if isinstance(v, Field):
            origin = ("field", v.table, v.slot, v.half)
            if origin in self.known:
                return S.name(self.known[origin], FULL)
            sym = self.integer(Opaque("runtime data (a load from global memory)", v.key, v.loc), op, role)
            self.origins.setdefault(S.render(sym), set()).add(origin)
            return sym
        if isinstance(v, WinBase):
            return self.integer(Opaque("runtime data (a load from global memory)", v.key, v.loc), op, role)
        if isinstance(v, Opaque):
            hint = f"{v.key.lstrip('%').replace('#', '_')}_{v.loc.line}"
            if v.key.lstrip("%") in self.bounds:
                return self.choose(v)
            return self.param(f"opaque:{v.key}:{v.loc.line}", hint, 0, f"{_base(v.loc)}: assumed: {v.why}", v.loc,
                              f"{role} comes from {v.why} ({v.key}); modelled as a param {{param}} (set [bounds] "
                              f"\"{v.key}\" = [lo, hi] for any(lo, hi), or sweep it with --sweep {{param}}=LO..HI)")
        if isinstance(v, (Ptr, View)):
            raise self.error(op, "a pointer or view is used where an integer is expected")
        raise self.error(op, f"a window address is used where an integer is expected")

    def choose(self, v: Opaque) -> Sym:
        key = f"any:{v.key}:{v.loc.line}"
        if key in self.param_keys:
            return self.param_keys[key]
        lo, hi = self.bounds[v.key.lstrip("%")]
        local = self.fresh(v.key)
        self.emit(K.decl(local, None, v.loc, text=f"any({int(lo)}, {int(hi)})"))
        self.assume(v.loc, f"{v.key} comes from {v.why}; modelled as any({int(lo)}, {int(hi)}) (from [bounds])")
        sym = S.name(local, PARTIAL)
        self.param_keys[key] = sym
        return sym

    # ---------------------------------------------------------------- function arguments

    def bind_args(self, func: Func) -> dict:
        env: dict = {}
        roles = {k: [a.lstrip("%") for a in self.cfg.get(k, [])] for k in ("rank", "nranks", "block", "nblocks")}
        proven = set(self.known.values())
        for name, ty, loc in func.args:
            bare = name.lstrip("%")
            if bare.lower() in self.windows or bare in self.windows:
                env[name] = ("windows", bare)
                self.named_tables.add(bare)
                continue
            if _is_pointer(ty):
                env[name] = Ptr(self.signal(bare, loc), S.num(0), None, loc)
                self.tables[bare] = ty
                continue
            role = next((r for r, names in roles.items() if bare in names), None)
            if ("arg", name) in self.known and role in (None, self.known[("arg", name)]):
                env[name] = S.name(self.known[("arg", name)], FULL)  # shown by the code (see proofs)
                continue
            if role is not None:
                env[name] = S.name(role, PARTIAL)
                self.origins.setdefault(role, set()).add(("arg", name))
                continue
            if bare in self.values:
                env[name] = S.num(int(self.values[bare]), PARTIAL)
                continue
            conv = next((r for r, names in CONVENTIONAL.items()
                         if bare.lower() in names and not roles[r] and r not in proven), None)
            if conv is not None:
                env[name] = S.name(conv, PARTIAL)
                self.origins.setdefault(conv, set()).add(("arg", name))
                self.assume(loc, f"took {name} as {'the own rank' if conv == 'rank' else conv} (a conventional "
                                 f"name; set {conv} = \"{bare}\" in sigproof.toml otherwise)")
                continue
            if bare in self.bounds:
                env[name] = Opaque("a kernel argument", name, loc)
                continue
            pname = self.fresh(bare.upper())
            self.params[pname] = (0, f"{_base(loc)}: assumed: kernel argument {name} of unknown value", loc)
            self.runtime_params[pname] = loc
            self.assume(loc, f"kernel argument {name} has no known value; modelled as a param {pname} = 0 "
                             f"(set [values] {bare} = N, or sweep it with --sweep {pname}=LO..HI)", pname)
            env[name] = S.name(pname, NONE)
            self.origins.setdefault(pname, set()).add(("arg", name))
        return env

    def signal(self, bare: str, loc: Loc) -> str:
        if bare not in self.signals:
            self.signals[bare] = SignalInfo(self.fresh(bare.removesuffix("_ptr") or bare), loc)
        return bare

    # ---------------------------------------------------------------- running the kernel

    def run(self) -> list:
        env = self.bind_args(self.kernel)
        self.region(self.kernel.body, env, [], top=True)
        return self.out[0]

    def region(self, region: Region, env: dict, args: list, top: bool = False):
        """Run the first block of a region; returns the terminator op (yield/condition/return) or None."""
        if not region.blocks:
            return None, env
        if len(region.blocks) > 1:
            raise self.error(region.loc, "a region with several blocks (unstructured control flow, cf.br) is not supported")
        block = region.blocks[0]
        env = dict(env)
        for (name, _), value in zip(block.args, args):
            env[name] = value
        for k, op in enumerate(block.ops):
            last = k == len(block.ops) - 1
            if op.name in ("scf.yield", "scf.condition") or (last and op.name in ("return", "func.return")):
                return op, env
            self.op(op, env, top)
        return None, env

    def op(self, op: Op, env: dict, top: bool) -> None:
        name = op.name
        short = name.rsplit(".", 1)[-1]
        intrinsic = mlir_role(name)
        if intrinsic is not None and intrinsic.role in ("notify", "wait", "test"):
            self.signal_op(op, env, intrinsic.statement)
        elif name == "arith.constant":
            env[op.results[0]] = self.constant(op)
        elif name.startswith("arith."):
            self.arith(op, env, short)
        elif name == "scf.for":
            self.for_op(op, env)
        elif name == "scf.if":
            self.if_op(op, env)
        elif name == "scf.while":
            self.while_op(op, env)
        elif name in ("pto.make_tensor_view", "pto.partition_view", "pto.addptr", "pto.castptr"):
            self.address(op, env, short)
        elif intrinsic is not None and intrinsic.role in ("block_index", "block_count"):
            env[op.results[0]] = S.name(intrinsic.statement)
        elif name == "pto.load_scalar":
            self.load(op, env)
        elif intrinsic is not None and intrinsic.role == "pipe_barrier":
            self.emit(K.comment("pipe_barrier(PIPE_ALL);", op.loc))
        elif intrinsic is not None and intrinsic.role == "fence":
            self.emit(K.comment("// TODO(dsb): " + name, op.loc))
            self.assume(op.loc, f"{name} (a GM fence) is not modelled yet; kept as a comment")
        elif name in ("func.call", "call"):
            self.call(op, env)
        elif name in ("return", "func.return"):
            self.emit(K.ret(op.loc))
        else:
            self.other(op, env)

    def other(self, op: Op, env: dict) -> None:
        touched = [u for u in op.operands if isinstance(env.get(u), (Ptr, View))]
        if touched and not op.name.startswith(DATA_PREFIXES):
            sig = self.pointer(env[touched[0]]).signal
            self.assume(op.loc, f"{op.name} on signal {self.signals[sig].name} is not modelled (not a TNOTIFY/TWAIT/TTEST)")
        for r in op.results:
            env[r] = Opaque(f"the result of {op.name}", r, op.loc)
        if op.regions:
            self.assume(op.loc, f"the regions of {op.name} are not followed")

    # ---------------------------------------------------------------- arith

    def constant(self, op: Op):
        for t in op.tokens:
            if t.kind == "bool_literal":
                return S.num(1 if t.text == "true" else 0)
            if t.kind == "integer_literal":
                return S.num(int(t.text, 0))
        value = op.attrs().get("value")
        if value is not None:
            text = value.text.decode().split(":")[0].strip()
            if text in ("true", "false"):
                return S.num(int(text == "true"))
            try:
                return S.num(int(text, 0))
            except ValueError:
                pass
        return Opaque("a non-integer constant", op.results[0], op.loc)

    def arith(self, op: Op, env: dict, short: str) -> None:
        ins = [self.get(env, u, op) for u in op.operands]
        res = op.results[0] if op.results else None
        arity = 2 if short in BINARY or short in ("cmpi", "minsi", "minui", "maxsi", "maxui", "ceildivsi", "ceildivui") \
            else 3 if short == "select" else 1 if short in CASTS else None
        if arity is not None and len(ins) != arity:
            raise self.error(op, f"{op.name} takes {arity} operand{'s' if arity > 1 else ''}, not {len(ins)}")
        if res is None:
            return
        field = self.field_arith(short, ins, op)
        if field is not None:
            env[res] = field
            return
        if any(isinstance(v, Opaque) for v in ins) and short not in CASTS:
            ins = [self.integer(v, op) if isinstance(v, Opaque) else v for v in ins]
        if short in CASTS and len(ins) == 1:
            env[res] = ins[0]
        elif short == "subi" and all(isinstance(v, WinBase) for v in ins) and ins[0].table == ins[1].table:
            env[res] = WinDelta(ins[0].slot, ins[1].slot, ins[0].table)
        elif short in ("divsi", "divui", "shrui", "shrsi") and isinstance(ins[0], WinDelta) and isinstance(ins[1], Sym) \
                and S.is_int(ins[1]):
            k = ins[1].args[0] if short.startswith("div") else 1 << ins[1].args[0]
            env[res] = WinDelta(ins[0].to, ins[0].frm, ins[0].table, ins[0].scale * k)
        elif short in BINARY and len(ins) == 2:
            a, b = (self.integer(v, op) for v in ins)
            if short == "xori" and _is_i1(op):
                env[res] = S.binop("!=", a, b) if not (S.is_int(b) and b.args[0] == 1) else S.unop("!", a)
            elif short in ("andi", "ori") and _is_i1(op):
                env[res] = S.binop("&&" if short == "andi" else "||", a, b)
            else:
                env[res] = S.binop(BINARY[short], a, b)
        elif short in ("minsi", "minui", "maxsi", "maxui") and len(ins) == 2:
            env[res] = S.call(short[:3], self.integer(ins[0], op), self.integer(ins[1], op))
        elif short in ("ceildivsi", "ceildivui") and len(ins) == 2:
            a, b = self.integer(ins[0], op), self.integer(ins[1], op)
            env[res] = S.binop("/", S.binop("-", S.binop("+", a, b), S.num(1)), b)
        elif short == "cmpi" and len(ins) == 2:
            pred = next((w for w in op.words() if w in CMPI), None)
            if pred is None:
                code = op.attrs().get("predicate")
                number = code.text.decode().split(":")[0].strip() if code is not None else ""
                pred = CMPI_CODES[int(number)] if number.isdigit() and int(number) < len(CMPI_CODES) else None
            if pred is None:
                raise self.error(op, "arith.cmpi without a predicate (eq, ne, slt, ...)")
            env[res] = S.binop(CMPI[pred], self.integer(ins[0], op), self.integer(ins[1], op))
        elif short == "select" and len(ins) == 3:
            env[res] = S.cond(*(self.integer(v, op) for v in ins))
        else:
            env[res] = Opaque(f"the result of {op.name}", res, op.loc)

    def field_arith(self, short: str, ins: list, op: Op):
        """The halves of a table slot: trunci (low 32 bits), shrui by 32 (high), casts; None otherwise."""
        if not ins or not isinstance(ins[0], Field):
            return None
        f = ins[0]
        if short in CASTS and len(ins) == 1:
            if short == "trunci" and _to_i32(op):
                half = {"word": "lo", "hi64": "hi"}.get(f.half)
                return Field(f.table, f.slot, half, f.key, f.loc) if half else None
            return f if short in ("index_cast", "index_castui", "extsi", "extui", "bitcast") and f.half != "word" \
                else None
        if short in ("shrui", "shrsi") and f.half == "word" and len(ins) == 2 and isinstance(ins[1], Sym) \
                and S.is_int(ins[1]) and ins[1].args[0] == 32:
            return Field(f.table, f.slot, "hi64", f.key, f.loc)
        return None

    def window_idiom(self, off: WinDelta, op: Op) -> Sym:
        """The rank whose copy `addptr %local, (table[to] - table[frm]) / 4` addresses; records what it proves.

        The difference of two window bases added to a pointer into the own window reaches rank
        p's copy only when the base subtracted is the own rank's: the idiom means `frm` is the
        own rank. In a window table (by name or config) rank r's base is slot r; in another
        64-bit table only at the CommContext's window slots (4 + r, 68 + r). A subtracted slot
        that is not one value of its own plus that first slot proves nothing.
        """
        lin_to, lin_frm = S.linear(off.to), S.linear(off.frm)
        base = lin_frm.get((), 0) if lin_frm is not None else 0
        rest = {m: c for m, c in (lin_frm or {}).items() if m != ()}
        if base not in ((0,) if off.table in self.named_tables else COMMCTX_WINDOW_SLOTS):
            rest, base = {}, 0
        peer = off.to
        if base and lin_to is not None:
            lin_to = dict(lin_to)
            lin_to[()] = lin_to.get((), 0) - base
            peer = S.from_linear({m: c for m, c in lin_to.items() if c}, off.to.level)
        if len(rest) == 1 and list(rest.values()) == [1] and len(next(iter(rest))) == 1 \
                and not next(iter(rest))[0].startswith("("):
            own = next(iter(rest))[0]
            if own == "rank":
                self.rank_count_evidence(peer, op)
            if own == "rank" and off.frm.level == FULL:
                return peer
            for origin in self.origins.get(own, ()):
                self.proofs.setdefault(origin, set()).add(("rank", op.loc))
                if origin[0] == "field" and origin[2] == COMMCTX_RANK_SLOT and origin[3] == "lo" \
                        and base in COMMCTX_WINDOW_SLOTS:
                    # rankId at slot 2 and the windows at slot 4 (or 68): the table is the CommContext
                    hi = ("field", origin[1], COMMCTX_RANK_SLOT, "hi")
                    self.proofs.setdefault(hi, set()).add(("nranks", op.loc))
            if own == "rank":
                return peer  # the configured or conventional own rank: as sure as its source
        self.assume(op.loc, f"the window subtracted here ({S.render(off.frm)}) is taken for the own rank's")
        return S.with_level(peer, PARTIAL)

    def rank_count_evidence(self, peer: Sym, op: Op) -> None:
        """At a window idiom from the own rank: a peer that is the variable of a sweep
        `scf.for %p = 0 to %n step 1`, or the ring step `(rank + k) % %n`, shows that the
        kernel addresses ranks 0 .. n-1 as its peers: %n is taken as the rank count (the
        same rule as the C++ frontend; docs/frontends.md, "What resolves fully")."""
        n = self.sweeps.get(peer.args[0]) if peer.op == "name" else None
        if n is None:
            n = S.ring_step(peer, "rank")
        if n is None or n.op != "name" or n.level == FULL:
            return
        for origin in self.origins.get(n.args[0], ()):
            if origin[0] == "arg":
                self.proofs.setdefault(origin, set()).add(("nranks", op.loc))

    # ---------------------------------------------------------------- addresses

    def pointer(self, v) -> Ptr:
        return v.ptr if isinstance(v, View) else v

    def address(self, op: Op, env: dict, short: str) -> None:
        src = self.get(env, op.operands[0], op)
        if isinstance(src, tuple) or isinstance(src, (Sym, Opaque)) and short != "addptr":
            raise self.error(op, f"{op.name} of {op.operands[0]}, which is not a signal pointer argument")
        if short == "castptr":
            env[op.results[0]] = src
            return
        if short == "addptr":
            off = self.get(env, op.operands[1], op)
            if not isinstance(src, Ptr):
                raise self.error(op, f"pto.addptr of {op.operands[0]}, which is not a pointer argument")
            if isinstance(off, WinDelta):
                if off.scale != 4:
                    raise self.error(op, f"a window offset scaled by {off.scale}: expected bytes / 4 for int32 signals")
                env[op.results[0]] = Ptr(src.signal, src.offset, self.window_idiom(off, op), src.loc)
            else:
                env[op.results[0]] = Ptr(src.signal, S.binop("+", src.offset, self.integer(off, op, "the offset")),
                                         src.rank, src.loc)
            return
        groups = _bracket_groups(op)
        ints = [[self.integer(self.get(env, u, op), op, "a view bound") for u in g] for g in groups]
        if short == "make_tensor_view":
            if not isinstance(src, Ptr):
                raise self.error(op, "pto.make_tensor_view of a value that is not a pointer")
            shape, strides = (ints + [[], []])[:2]
            if not strides:
                strides = _row_major(shape)
            env[op.results[0]] = View(src, tuple(shape), tuple(strides), tuple(S.num(0) for _ in shape), tuple(shape))
        else:  # partition_view
            if not isinstance(src, View):
                raise self.error(op, "pto.partition_view of a value that is not a tensor view")
            offsets, sizes = (ints + [[], []])[:2]
            if len(offsets) != len(src.strides) or len(sizes) != len(src.strides):
                raise self.error(op, "pto.partition_view: offsets and sizes need one entry per dimension of the view")
            base = [S.binop("+", o0, o) for o0, o in zip(src.offsets, offsets)]
            env[op.results[0]] = View(src.ptr, src.shape, src.strides, tuple(base), tuple(sizes))

    def load(self, op: Op, env: dict) -> None:
        src = env.get(op.operands[0]) if op.operands else None
        if isinstance(src, tuple) and src and src[0] == "windows" and len(op.operands) > 1:
            env[op.results[0]] = WinBase(src[1], self.integer(self.get(env, op.operands[1], op), op, "the window's rank"),
                                         op.results[0], op.loc)
            return
        if isinstance(src, Ptr) and src.rank is None and S.is_int(src.offset) and src.offset.args[0] == 0 \
                and _elem(self.tables.get(src.signal, "")) in ("i64", "ui64") and len(op.operands) > 1:
            # a 64-bit table: window bases if the window idiom uses them, else runtime data
            index = self.get(env, op.operands[1], op)
            if isinstance(index, Sym) and S.is_int(index):
                env[op.results[0]] = Field(src.signal, index.args[0], "word", op.results[0], op.loc)
                return
            env[op.results[0]] = WinBase(src.signal, self.integer(index, op, "a table index"), op.results[0], op.loc)
            return
        if isinstance(src, (Ptr, View)):
            self.assume(op.loc, f"a plain load of signal {self.signals[self.pointer(src).signal].name} is not a "
                                f"TWAIT/TTEST; its value is runtime data here")
        env[op.results[0]] = Opaque("runtime data (a load from global memory)", op.results[0], op.loc)

    def reference(self, view, op: Op, kind: str) -> tuple[str, frozenset, dict]:
        """`NAME[sel] @ r` for a signal view, the names it reads, its resolution levels."""
        """`sig[index] @ rank` (or a slice for TWAIT/TTEST) for a pointer or view operand."""
        if isinstance(view, Ptr):
            view = View(view, (S.num(1),), (S.num(1),), (S.num(0),), (S.num(1),))
        if not isinstance(view, View):
            raise self.error(op, f"{kind} of a value that is not a signal view (pto.partition_view / make_tensor_view)")
        ptr = view.ptr
        info = self.signals[ptr.signal]
        start = ptr.offset
        for o, st in zip(view.offsets, view.strides):
            start = S.binop("+", start, S.binop("*", o, st))
        wide = [(n, st) for n, st in zip(view.sizes, view.strides) if not (S.is_int(n) and n.args[0] == 1)]
        level = start.level
        if not wide:
            text = f"{info.name}[{S.render(start)}]"
            last = start
        elif len(wide) == 1:
            n, st = wide[0]
            end = S.binop("+", start, S.binop("*", n, st))
            stride = "" if S.is_int(st) and st.args[0] == 1 else f":{S.render(st)}"
            text = f"{info.name}[{S.render(start)}:{S.render(end)}{stride}]"
            last = S.binop("-", end, st)
            level = min(level, n.level, st.level)
        else:
            raise self.error(op, f"{kind} of a view with several dimensions wider than 1 is not supported: "
                                 "take a 1-D partition_view")
        reads = K.names(info.name, start, *(x for d in wide for x in d))
        if kind == "TNOTIFY" and wide:
            self.assume(op.loc, f"TNOTIFY of a view with more than one element writes element 0 only; modelled so")
            text, last = f"{info.name}[{S.render(start)}]", start
        info.extents.append(last)
        if not (S.is_int(last) and last.args[0] == 0):
            info.only_zero = False
        total = ptr.offset
        for n, st in zip(view.shape, view.strides):
            total = S.binop("+", total, S.binop("*", S.binop("-", n, S.num(1)), st))
        info.declared.append(total)
        rank = ptr.rank
        if rank is not None and not _is_own_rank(rank):
            text += f" @ {S.render(rank)}"
        levels = {"signal": FULL, "index": level, "peer": rank.level if rank is not None else FULL}
        return text, K.names(reads, rank), levels

    # ---------------------------------------------------------------- TNOTIFY / TWAIT / TTEST

    def signal_op(self, op: Op, env: dict, kind: str) -> None:
        if len(op.operands) < 2:
            raise self.error(op, f"{op.name} needs a signal and a value operand")
        ref, reads, levels = self.reference(self.get(env, op.operands[0], op), op, kind)
        value = self.integer(self.get(env, op.operands[1], op), op, "the value")
        word, opcmp_level = self.mode(op, kind)
        levels.update(value=value.level, opcmp=opcmp_level)
        self.sites.append(Site(kind, op.loc, levels))
        call = f"{kind}({ref}, {S.render(value)}, {word})"
        if kind == "TTEST":
            if not op.results:
                self.emit(K.sync(f"bool {self.fresh('tested')} = {call};", op.loc, reads, value))
                return
            local = self.fresh(op.results[0])
            self.emit(K.sync(f"bool {local} = {call};", op.loc, reads, value, defines=local))
            env[op.results[0]] = S.name(local, min(levels.values()))
        else:
            self.emit(K.sync(call + ";", op.loc, reads, value))

    def mode(self, op: Op, kind: str) -> tuple[str, int]:
        key = ("notifyOp", "op", "notify_op") if kind == "TNOTIFY" else ("cmp", "waitCmp", "cmpOp")
        attrs = op.attrs()
        node = next((attrs[k] for k in key if k in attrs), None)
        if node is None:
            what = "notifyOp = #pto<notify_op set|atomic_add>" if kind == "TNOTIFY" else "cmp = #pto<wait_cmp eq|ge|..>"
            raise self.error(op, f"{op.name} without its mode attribute ({what})")
        word = _attr_word(node)
        if kind == "TNOTIFY":
            got = NOTIFY_OPS.get(word.lower().replace("_", ""))
        else:
            got = word.upper() if word.upper() in WAIT_CMPS else None
        if got is None:
            raise self.error(op, f"{op.name}: unknown mode {word!r} (expected "
                                 f"{'Set or AtomicAdd' if kind == 'TNOTIFY' else ', '.join(WAIT_CMPS)})")
        return got, FULL

    # ---------------------------------------------------------------- control flow

    def nested(self, region: Region, env: dict, args: list):
        self.out.append([])
        term, inner = self.region(region, env, args)
        return self.out.pop(), term, inner

    def carried(self, op: Op, names: list[str], inits: list, env: dict) -> list[str]:
        """Locals for loop-carried values, declared before the loop with their initial values."""
        out = []
        for name, init in zip(names, inits):
            local = self.fresh(name)
            value = self.integer(init, op, "a loop-carried value")
            self.emit(K.decl(local, value, op.loc))
            out.append(local)
        return out

    def assign_all(self, locals_: list[str], values: list, op: Op, body: list) -> None:
        syms = [self.integer(v, op) for v in values]
        if len(locals_) > 1:  # a parallel assignment: through temporaries
            temps = [self.fresh(f"{l}_next") for l in locals_]
            for t, s in zip(temps, syms):
                body.append(K.decl(t, s, op.loc))
            syms = [S.name(t) for t in temps]
        for l, s in zip(locals_, syms):
            if S.render(s) != l:
                body.append(K.assign(l, f"{l} = {S.render(s)};", op.loc, s))

    def for_op(self, op: Op, env: dict) -> None:
        u = op.operands
        if len(u) < 4:
            raise self.error(op, "scf.for: expected %i = %lb to %ub step %step")
        iv, lb, ub, step = u[0], *(self.integer(self.get(env, x, op), op, "a loop bound") for x in u[1:4])
        carried_names, inits = u[4::2], [self.get(env, x, op) for x in u[5::2]]
        locals_ = self.carried(op, carried_names, inits, env)
        var = self.fresh(iv)
        self.loops[var] = ub
        if S.is_int(lb) and lb.args[0] == 0 and S.is_int(step) and step.args[0] == 1:
            self.sweeps[var] = ub
        bound = {iv: S.name(var, min(lb.level, ub.level, step.level))}
        bound.update({n: S.name(l) for n, l in zip(carried_names, locals_)})
        self.out.append([])
        term, inner = self.region(op.regions[0], {**env, **bound}, [])
        body = self.out.pop()
        if term is not None and term.name == "scf.yield" and locals_:
            self.assign_all(locals_, [self.get(inner, x, term) for x in term.operands], term, body)
        if S.is_int(step) and step.args[0] == 1:
            inc = f"{var}++"
        elif S.is_int(step) and step.args[0] > 0:
            inc = f"{var} += {step.args[0]}"
        else:
            inc = f"{var} += {S.render(step)}"
            self.assume(op.loc, f"the step of this loop ({S.render(step)}) is taken to be positive")
        head = f"int {var} = {S.render(lb)}; {var} < {S.render(ub)}; {inc}"
        self.emit(K.for_(var, head, op.loc, lb, ub, step, body=body))
        for r, l in zip(op.results, locals_):
            env[r] = S.name(l)

    def if_op(self, op: Op, env: dict) -> None:
        c = self.integer(self.get(env, op.operands[0], op), op, "a condition")
        locals_ = []
        for r in op.results:
            local = self.fresh(r)
            self.emit(K.decl(local, None, op.loc))
            locals_.append(local)
        branches = []
        for region in op.regions[:2]:
            body, term, inner = self.nested(region, env, [])
            if term is not None and term.name == "scf.yield" and locals_:
                self.assign_all(locals_, [self.get(inner, x, term) for x in term.operands], term, body)
            branches.append(body)
        if S.is_int(c):  # decided at extraction time
            for st in branches[0 if c.args[0] else 1] if len(branches) > 1 or c.args[0] else []:
                self.emit(st)
        else:
            then, orelse = branches[0], branches[1] if len(branches) > 1 else None
            self.emit(K.if_(c, op.loc, then, orelse or None))
        for r, l in zip(op.results, locals_):
            env[r] = S.name(l)

    def while_op(self, op: Op, env: dict) -> None:
        u = op.operands
        names, inits = u[0::2], [self.get(env, x, op) for x in u[1::2]]
        if len(op.regions) != 2:
            raise self.error(op, "scf.while needs a before region and a do region")
        locals_ = self.carried(op, names, inits, env)
        results = []
        for r in op.results:
            local = self.fresh(r)
            self.emit(K.decl(local, None, op.loc))
            results.append(local)
        header = {n: S.name(l) for n, l in zip(names, locals_)}  # the custom form names them in the header
        before, cond, inner = self.nested(op.regions[0], {**env, **header}, [S.name(l) for l in locals_])
        if cond is None or cond.name != "scf.condition":
            raise self.error(op, "the before region of scf.while must end in scf.condition")
        c = self.integer(self.get(inner, cond.operands[0], cond), cond, "the loop condition")
        forwarded = [self.get(inner, x, cond) for x in cond.operands[1:]]
        exit_body: list = []
        self.assign_all(results, forwarded, cond, exit_body)
        exit_body.append(K.jump("break", cond.loc))
        before.append(K.if_(_not(c), cond.loc, exit_body))
        after, term, inner2 = self.nested(op.regions[1], env, forwarded)
        if term is not None and term.name == "scf.yield" and locals_:
            self.assign_all(locals_, [self.get(inner2, x, term) for x in term.operands], term, after)
        self.emit(K.while_(("true", frozenset()), op.loc, before + after))
        for r, l in zip(op.results, results):
            env[r] = S.name(l)

    # ---------------------------------------------------------------- calls

    def call(self, op: Op, env: dict) -> None:
        callee = next((t.text[1:] for t in op.tokens if t.kind == "symbol_ref_id"), None)
        func = self.module.funcs.get(callee) if callee else None
        args = [self.get(env, u, op) for u in op.operands]
        if func is None or func.body is None or self.depth >= MAX_DEPTH:
            if any(isinstance(a, (Ptr, View)) for a in args):
                self.assume(op.loc, f"the call of @{callee} receives a signal but its body is not in the file; not followed")
            for r in op.results:
                env[r] = Opaque(f"the result of @{callee}, whose body is not followed", r, op.loc)
            return
        self.depth += 1
        inner = {name: a for (name, _, _), a in zip(func.args, args)}
        term, inner = self.region(func.body, inner, [])
        self.depth -= 1
        if term is not None:
            for r, x in zip(op.results, term.operands):
                env[r] = self.get(inner, x, term)
            if op.results and len(term.operands) < len(op.results):
                raise self.error(op, f"@{callee} returns fewer values than the call expects")


# ---------------------------------------------------------------- helpers

def _base(loc: Loc) -> str:
    from pathlib import Path
    return f"{Path(loc.file).name}:{loc.line}:{loc.col}"


def _is_pointer(ty: str) -> bool:
    t = ty.replace(" ", "")
    return t.startswith(("!pto.ptr<", "!pto.memref<", "memref<", "!pto.tensor_view<", "!pto.global")) or \
        t.startswith("!llvm.ptr")


def _elem(ty: str) -> str:
    """The element type of a pointer type text: i64 of !pto.ptr<i64> or !pto.ptr<i64, gm>."""
    inner = ty.replace(" ", "").partition("<")[2].rstrip(">")
    return inner.split(",")[0].split("x")[-1]


def _to_i32(op: Op) -> bool:
    types = [t.text.strip() for t in op.tokens if t.kind == "type"]
    return bool(types) and types[-1] == "i32"


def _is_i1(op: Op) -> bool:
    return any(t.kind == "type" and t.text.strip() == "i1" for t in op.tokens)


def _not(c: Sym) -> Sym:
    if c.op == "un" and c.args[0] == "!":
        return c.args[1]
    return S.unop("!", c)


def _is_own_rank(s: Sym) -> bool:
    return s.op == "name" and s.args[0] == "rank"


def _row_major(shape: list[Sym]) -> list[Sym]:
    out, acc = [], S.num(1)
    for n in reversed(shape):
        out.insert(0, acc)
        acc = S.binop("*", acc, n)
    return out


def _bracket_groups(op: Op) -> list[list[str]]:
    """The value lists in `[...]` of an op (shape = [..], strides = [..] / offsets, sizes)."""
    groups, cur = [], None
    for t in op.tokens:
        if t.text == "[":
            cur = []
        elif t.text == "]" and cur is not None:
            groups.append(cur)
            cur = None
        elif t.kind == "value_use" and cur is not None:
            cur.append(t.text)
    return groups


def _attr_word(node) -> str:
    """The last bare word inside an attribute value: `set` of #pto<notify_op set>, `EQ` of #pto.cmp<EQ>."""
    words, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type in ("bare_id", "dialect_ident") and n.parent is not None and n.parent.type == "pretty_dialect_item_body":
            words.append((n.start_byte, n.text.decode().strip()))
        stack.extend(n.children)
    if not words:
        return node.text.decode().strip()
    return max(words)[1]

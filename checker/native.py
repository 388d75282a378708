"""The compiled search: the explorer's loop in C (checker/native_engine.c) over a transition
table that the model fills in. Entry point: `explore_native`; `why_not(system, ...)` says why
it does not apply (None when it does).

The C loop stores states as int32 vectors ([entry id per process] [signals] [launch counts]
[lost-notification marks]) in an exact store and takes the steps of the rows `System.transition` gives for (process,
entry, launch count): a read, a Set or AtomicAdd, a reset, a launch, a join. Rows are made
when the loop first meets a process entry (a round trip to Python per row, not per state).
A state with a step that no row describes (a fault, events, a choice, an enabled joint
barrier, an AtomicAdd that overflows, a Set or reset that makes an Overwrite event) is
expanded here by `System.successors`, and its
successors go back to the loop. The bookkeeping is explore.py's, in the same order, so the
two engines give the same graph state for state and the same findings
(tests/checker/test_native.py compares them on every spec and on random protocols).

The C source is compiled once per machine with the system's C compiler (cc, or $CC) into
a cache folder ($SIGPROOF_NATIVE_DIR, else $XDG_CACHE_HOME/sigproof, else ~/.cache/sigproof)
and loaded with ctypes. It holds no spec: no user text is ever compiled. Without a compiler
the explorer takes every step in Python (same verdicts, slower).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import time
from array import array
from pathlib import Path

from checker.explore import Exploration, finished, rss_bytes, run
from checker.result import Stop
from model.system import BLOCKED, LocalStepLimit, State

_SOURCE = Path(__file__).with_name("native_engine.c")
_FLAGS = ("-O2", "-std=c99", "-shared", "-fPIC")
K_SPIN, K_JOINT_HOST, K_JOINT_BLOCK, K_READ, K_NOTIFY, K_RESET, K_LAUNCH, K_JOIN, K_PY = range(9)
R_DONE, R_NEED_ROW, R_SLOW, R_ZERO, R_BUDGET, R_MAXED, R_NOMEM = range(7)
_BUDGET = 256  # expansions between two looks at the clock


def _cache_folder() -> Path:
    if os.environ.get("SIGPROOF_NATIVE_DIR"):
        return Path(os.environ["SIGPROOF_NATIVE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sigproof"


@functools.cache
def _library():
    """The loaded engine, or the reason there is none (a string)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return "no C compiler (cc or $CC) on this machine"
    source = _SOURCE.read_bytes()
    tag = hashlib.sha256(source + repr((cc, _FLAGS, platform.machine(), platform.system())).encode()).hexdigest()[:16]
    try:
        folder = _cache_folder()
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="sigproof-native-"))
    lib = folder / f"engine-{tag}.so"
    if not lib.exists():
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
        os.close(fd)
        try:
            done = subprocess.run([cc, *_FLAGS, "-o", tmp, str(_SOURCE)], capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                return f"the C compiler failed: {done.stderr.strip()[:200]}"
            os.replace(tmp, lib)  # atomic: parallel runs see the whole library or none
        except (OSError, subprocess.SubprocessError) as e:
            return f"the C compiler could not run: {e}"
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    try:
        so = ctypes.CDLL(str(lib))
    except OSError as e:
        return f"the compiled engine could not be loaded: {e}"
    i32, i64, ptr, p32 = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32)
    pu64 = ctypes.POINTER(ctypes.c_uint64)
    sig = {
        "eng_new": ([i32, i32, i32, i32, i32, i32, i32, i64, p32, i32], ptr),
        "eng_marks": ([ptr, p32, p32, p32, p32, pu64, i64, pu64], i32),
        "eng_entries": ([ptr, i32, p32, p32], i32),
        "eng_free": ([ptr], None),
        "eng_add_row": ([ptr, i32, i32, i32, p32, p32, i32], i64),
        "eng_initial": ([ptr, p32], i64),
        "eng_slow_add": ([ptr, i32, p32, i32, p32], i64),
        "eng_slow_end": ([ptr, i32, i32, i32], None),
        "eng_state": ([ptr, i64, p32], None),
        "eng_find": ([ptr, p32], i64),
        "eng_run": ([ptr, i64, ctypes.POINTER(i64)], i32),
        "eng_len": ([ptr, i32], i64),
        "eng_array": ([ptr, i32], p32),
        "eng_final": ([ptr], ctypes.POINTER(ctypes.c_uint8)),
        "eng_used": ([ptr], ctypes.POINTER(ctypes.c_uint8)),
        "eng_release": ([ptr], None),
        "eng_store_bytes": ([ptr], i64),
        "eng_quiet": ([ptr], None),
    }
    for name, (args, res) in sig.items():
        fn = getattr(so, name)
        fn.argtypes, fn.restype = args, res
    return so


def why_not(system, *, reduce=None, symmetry=None, store: str = "exact", judge=None) -> str | None:
    """Why the compiled search does not run this search (None: it does)."""
    if reduce is not None or symmetry is not None:
        return "a reduced search (partial-order or symmetry) runs in Python"
    if store != "exact":
        return "the fingerprint store runs in Python"
    if not system.tabulable:
        return "data statements and line-granular Sets run in Python"
    if system.G:
        why = _marks_fit(system)
        if why:
            return why
    if judge is not None and not getattr(judge, "dead_ends_only", False):
        return "this judge reads every expanded state"
    lib = _library()
    return lib if isinstance(lib, str) else None


_CHUNK = 8  # words per chunk of the C store (CHUNK in native_engine.c)
_MARK_BITS = 31  # a mark is kept in a non-negative int32
_RANK_SLOTS = 64  # a rank's ghost slots, as the bits of one uint64 per (process, pc)


def _marks_fit(system) -> str | None:
    """Why the lost-notification marks of this program do not fit the engine's vectors (None:
    they do). A mark has a bit per reader: the host, then B per launch ahead of the rank's
    current one, and a notification can be at most (most launches + 1) ahead."""
    if any(hi - lo > _RANK_SLOTS for lo, hi in system.marks.ranges):
        return f"more than {_RANK_SLOTS} lost-notification slots on one rank run in Python"
    bounds = [system.analysis.launch_bound(r) for r in range(system.R)]
    if any(b is None for b in bounds):
        return "lost-notification marks with no bound on the launches run in Python"
    if (max(bounds, default=0) + 2) * system.B >= _MARK_BITS:
        return "lost-notification marks wider than 31 bits (launches x blocks) run in Python"
    return None


class _Codec:
    """States <-> int32 vectors: an id per distinct process entry (0: finished), then the signals,
    the launch counts and the lost-notification marks as they are."""

    def __init__(self, system):
        self.P, self.S = system.nprocs, system.R * system.E
        self.T = system.R if system.track_launches else 0
        self.G = system.G
        self.W = self.P + self.S + self.T + self.G
        self.ids: dict = {None: 0}
        self.entries: list = [None]
        self.pushed = 0  # entries the engine knows (their pc and whether they read on)
        self.vec = ctypes.c_int32 * self.W

    def sync(self, lib, engine) -> None:
        """Tell the engine the pc of each entry id it has not seen (the marks read them)."""
        new = self.entries[self.pushed:]
        if not new:
            return
        pcs = [0 if e is None else e[0] for e in new]
        live = [int(e is not None and e[1] >= 0) for e in new]
        if lib.eng_entries(engine, len(new), (ctypes.c_int32 * len(new))(*pcs), (ctypes.c_int32 * len(new))(*live)) < 0:
            raise MemoryError
        self.pushed = len(self.entries)

    def id(self, entry) -> int:
        k = self.ids.get(entry)
        if k is None:
            k = self.ids[entry] = len(self.entries)
            self.entries.append(entry)
        return k

    def encode(self, state):
        ids = self.ids
        out = [ids[p] if p in ids else self.id(p) for p in state.procs]
        out += state.signals
        out += state.launches
        out += state.ghost
        return self.vec.from_buffer(array("i", out))  # 5x faster than vec(*out) at 1,000 words

    def decode(self, vec) -> State:
        P, S, T = self.P, self.S, self.T
        entries = self.entries
        return State(tuple(entries[k] for k in vec[:P]), tuple(vec[P:P + S]), tuple(vec[P + S + T:]),
                     tuple(vec[P + S:P + S + T]), ())


class NativeStore:
    """The C engine's exact store, as explore.py's stores read (kind, len, state, find, nbytes)."""

    kind = "exact"

    def __init__(self, lib, engine, codec: _Codec):
        self._lib, self._engine, self._codec = lib, engine, codec

    def __len__(self) -> int:
        return self._lib.eng_len(self._engine, 5)

    def key(self, state):
        return self._codec.encode(state)

    def state(self, index: int) -> State:
        out = self._codec.vec()
        self._lib.eng_state(self._engine, index, out)
        return self._codec.decode(out)

    def find(self, key) -> int:
        if any(v >= len(self._codec.entries) for v in key[: self._codec.P]):
            return -1
        return self._lib.eng_find(self._engine, key)

    def nbytes(self) -> int:
        return self._lib.eng_store_bytes(self._engine)

    def collision_probability(self) -> float:
        return 0.0

    def __del__(self):
        if getattr(self, "_engine", None):
            self._lib.eng_free(self._engine)
            self._engine = None


def _row(system, codec: _Codec, i: int, entry, launch: int):
    """(row, extra) for the C table: process i at `entry`, its rank at `launch`."""
    t = system.transition(i, entry, launch)
    if t is None:
        return (K_PY, 0, 0, 0, 0, 0), ()
    kind = t[0]
    if kind == "spin":
        return (K_SPIN, 0, 0, 0, 0, 0), ()
    if kind == "joint":
        return (K_JOINT_HOST if t[1] == "host" else K_JOINT_BLOCK, 0, 0, 0, 0, 0), ()
    if kind == "read":
        _, pos, value, cmp, true, false = t
        return (K_READ, pos, value, cmp, codec.id(true), -1 if false is BLOCKED else codec.id(false)), ()
    if kind == "notify":
        _, pos, value, is_set, nxt = t
        return (K_NOTIFY, pos, value, int(is_set), codec.id(nxt), 0), ()
    if kind == "reset":
        _, positions, init, nxt = t
        return (K_RESET, 0, len(positions), init, codec.id(nxt), 0), positions
    if kind == "launch":
        _, nxt, starts = t
        return (K_LAUNCH, 0, 0, 0, codec.id(nxt), i), tuple(codec.id(s) for s in starts)
    if kind == "join":
        _, lo, hi, nxt = t
        return (K_JOIN, lo, hi, 0, codec.id(nxt), 0), ()
    raise AssertionError(f"unknown transition {t!r}")


def _store_order(system, codec: _Codec) -> list[int]:
    """The order the C store keeps a state's words in: rank by rank (its host's and blocks'
    entries, its signals, its launch count, its marks), padded with zeros (-1) to whole chunks.
    A step touches one or two ranks, so it changes few chunks and few subtrees of the store's
    tree (native_engine.c), which then stay shared between states."""
    P, S, T, R, B, E = codec.P, codec.S, codec.T, system.R, system.B, system.E
    ranges = system.marks.ranges if codec.G else [(0, 0)] * R
    order = []
    for r in range(R):
        order += [r] + list(range(R + r * B, R + (r + 1) * B)) + list(range(P + r * E, P + (r + 1) * E))
        order += [P + S + r] if T else []
        order += list(range(P + S + T + ranges[r][0], P + S + T + ranges[r][1]))
    assert sorted(order) == list(range(codec.W))
    return order + [-1] * (-len(order) % _CHUNK or (0 if order else _CHUNK))


def _give_marks(lib, engine, system) -> int:
    """Hand the engine model/ghost.py's tables, each process's over its own rank's slots."""
    R, B = system.R, system.B
    slot_of = [-1] * (R * system.E)
    for pos, g in system.ghost_slot.items():
        slot_of[pos] = g
    ranges = system.marks.ranges
    offsets, masks, start = [], [], []
    for k in range(system.nprocs):
        r, b = (k, 0) if k < R else divmod(k - R, B)
        lo, hi = ranges[r]
        per_pc = [(m >> lo) & ((1 << (hi - lo)) - 1) for m in system.ghost_reads[(k < R, r, b)]]
        offsets.append(len(masks))
        masks += per_pc
        start.append(per_pc[0] if k >= R and per_pc else 0)
    i32, u64 = ctypes.c_int32, ctypes.c_uint64
    return lib.eng_marks(engine, (i32 * len(slot_of))(*slot_of), (i32 * R)(*(lo for lo, _ in ranges)),
                         (i32 * R)(*(hi for _, hi in ranges)), (i32 * len(offsets))(*offsets),
                         (u64 * max(1, len(masks)))(*masks), len(masks), (u64 * len(start))(*start))


def explore_native(system, judge, **options) -> Exploration:
    """explore.explore for a search `why_not` accepts: the same Exploration, the same calls of
    the judge (its `expanded` only for states with no step: the judge says it reads no other)."""
    return run(exploring_native(system, judge, **options))


def exploring_native(system, judge, *, order: str = "bfs", max_states: int | None = None,
                     deadline: float | None = None, max_memory: int | None = None, progress=None,
                     watch=None):
    """explore_native as a generator (explore.exploring): after every slice of _BUDGET
    expansions of the C loop it yields the work done so far (stored states, and 20 for each
    state expanded in Python), which checker/race.py weighs against the reduced search's."""
    start = time.monotonic()
    lib = _library()
    codec = _Codec(system)
    P, W = codec.P, codec.W
    perm = _store_order(system, codec)
    engine = lib.eng_new(P, codec.S, codec.T, codec.G, system.R, system.B, int(order != "bfs"),
                         -1 if max_states is None else max_states, (ctypes.c_int32 * len(perm))(*perm), len(perm))
    if not engine or (codec.G and _give_marks(lib, engine, system) < 0):
        raise MemoryError
    store = NativeStore(lib, engine, codec)
    init, init_events = system.initial()
    lib.eng_initial(engine, codec.encode(init))
    ex = Exploration(store=store, system=system, initial=init, parent=array("i"), label=array("i"),
                     succ=array("i"), order=array("i"), count=array("i"), final=bytearray(1), key_of=store.key)
    executed: set = set()  # id() of the instructions the slow path's enabled steps take
    row_instr: list = []  # per row: the instruction its step takes
    info = (ctypes.c_int64 * 3)()
    isnew = ctypes.c_int32()
    stop = None
    rounds = slow = 0
    quiet = False  # Overwrites taken in C (the judge no longer reads them)
    if judge.initial(init, init_events):
        stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
    try:
        while stop is None:
            codec.sync(lib, engine)
            code = lib.eng_run(engine, _BUDGET, info)
            if code == R_DONE:
                break
            if code == R_BUDGET:
                rounds += 1
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    stop = Stop("timeout", "")
                elif max_memory is not None and rounds % 16 == 0:
                    rss = rss_bytes()
                    ex.peak_bytes = max(ex.peak_bytes, rss)
                    if rss > max_memory:
                        stop = Stop("memory", f"memory limit of {max_memory // 2**20} MiB reached")
                if progress is not None and rounds % 4 == 0:
                    progress(len(store), lib.eng_len(engine, 6), now - start)
                if stop is None:  # the work so far: a state expanded in Python costs about 20 here
                    yield len(store) + 20 * slow
            elif code == R_NEED_ROW:
                i, e, launch = info[0], info[1], info[2]
                instr = system.code_of(i).instrs[codec.entries[e][0]]
                row, extra = _row(system, codec, i, codec.entries[e], launch)
                buf = (ctypes.c_int32 * max(1, len(extra)))(*extra)
                if lib.eng_add_row(engine, i, e, launch, (ctypes.c_int32 * 6)(*row), buf, len(extra)) < 0:
                    raise MemoryError
                row_instr.append(instr)
            elif code == R_ZERO:
                s = info[0]
                if judge.expanded(s, store.state(s), 0):
                    stop = Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
            elif code == R_SLOW:
                slow += 1
                stop = _slow(lib, engine, system, judge, codec, store, info[0], isnew, executed, max_states)
                if codec.G and not quiet and not getattr(judge, "judges_overwrites", True):
                    quiet = True
                    lib.eng_quiet(engine)
            elif code == R_MAXED:
                stop = Stop("max_states", f"state limit of {max_states} reached")
            else:
                raise MemoryError
    except LocalStepLimit as e:
        stop = Stop("local_steps", str(e))
    except KeyboardInterrupt:
        stop = Stop("interrupted", "interrupted (Ctrl-C)")
    except MemoryError:
        stop = Stop("memory", "out of memory")
    ex.stop = stop
    for k, target in enumerate((ex.parent, ex.label, ex.succ, ex.order, ex.count)):
        n = lib.eng_len(engine, k)
        if n:
            target.frombytes(ctypes.string_at(lib.eng_array(engine, k), 4 * n))
    ex.final = bytearray(ctypes.string_at(lib.eng_final(engine), len(store)))
    ex.transitions = lib.eng_len(engine, 6)
    used = ctypes.string_at(lib.eng_used(engine), len(row_instr)) if row_instr else b""
    executed.update(id(row_instr[r]) for r, u in enumerate(used) if u)
    lib.eng_release(engine)
    ex.executed = executed if watch is None else {id(i) for i in watch} & executed
    ex.extra["engine"] = "native"
    ex.extra["python_states"] = slow  # states expanded by System.successors
    return finished(ex, start)


def _slow(lib, engine, system, judge, codec: _Codec, store: NativeStore, s: int, isnew, executed: set, max_states):
    """Expand state s in Python (explore.py's loop body, for one state); a Stop or None."""
    state = store.state(s)
    steps = system.successors(state)
    executed.update(id(step.instr) for step in steps)
    for step in steps:
        t = lib.eng_slow_add(engine, s, codec.encode(step.next), step.label, ctypes.byref(isnew))
        if t == -2:
            return Stop("max_states", f"state limit of {max_states} reached")
        if t < 0:
            raise MemoryError
        if step.events and judge.step(s, state, step, t):
            return Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
    lib.eng_slow_end(engine, s, len(steps), int(not steps and system.is_final(state)))
    if judge.expanded(s, state, len(steps)):
        return Stop("fail_fast", "stopped at the first unexpected violation (--fail-fast)")
    return None

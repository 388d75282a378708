"""The visited-state stores of the explorer: packed states, exact or as 64-bit fingerprints.

Entry points: `StateCodec` (a State as a short fixed-width byte string and back) and
`make_store("exact" | "fingerprint", codec)`. A store maps a packed state to its index
(0, 1, 2, ... in the order of discovery): `add(key) -> (index, new)`, `find(key) -> index`
or -1, `len(store)`.

Packing. A State (model/system.py) is a table of process entries, a signal vector, the
ghost marks, the launch counts and the happens-before clocks. The distinct values of each
part are few next to the states (a process has a handful of distinct (pc, idx, locals)
entries; the signal vectors of a run number in the thousands where the states number in
the millions), so the codec interns them: a packed state is one id per process entry (1, 2
or 4 bytes: the width grows when the entry table does) and two 32-bit ids, one for the
signal vector and one for (ghost, launches, hb). A signal vector is itself kept as the ids
of its chunks (`chunk` elements each: the explorer cuts it per rank, and a rank's elements
take few distinct values even where the vectors are many), 4 bytes per chunk, not as the
vector; long ghost marks likewise. Decoding gives back an equal State built from the interned parts. The ids depend on
the order in which parts were first seen, so a packed state means something only to the
codec of its own run. Parts are found by object id before they are hashed (the model
shares one object per distinct process entry; a signal vector kept whole is found by id when
it is the one the codec keeps, a chunked one when the codec decoded it lately and still
holds it, which the successors of a decoded state share; by value otherwise); the codec keeps those objects alive while it knows their ids,
so an object id it knows is never reused.

ExactStore keeps every packed state (one bytearray, fixed width) with an open-addressing
index of 32-bit slots over it: about width + 8 bytes per state, and no state is ever
confused with another. FingerprintStore keeps only a 64-bit BLAKE2b digest of each packed
state (8 bytes, plus 8 of index slots): two distinct states with the same digest are taken
as one, so a state (and all that only it leads to) may be missed. `collision_probability`
bounds the chance of that (docs/trust.md, "Fingerprint store").
"""

from __future__ import annotations

import struct
from array import array
from functools import partial
from itertools import chain
from hashlib import blake2b
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from model.system import State

__all__ = ["StateCodec", "ExactStore", "FingerprintStore", "make_store", "STORES"]

STORES = ("exact", "fingerprint")
_WIDTHS = ("B", "H", "I")  # entry ids: 1, 2, then 4 bytes
_EMPTY = -1
_MIN_SLOTS = 1 << 10
MAX_ALIASES = 1 << 16  # objects the codec keeps alive to look them up by object id
RECENT_ELEMENTS = 1 << 14  # elements of the decoded tuples (per kind) the codec holds (and knows by id)
_NOTHING = ((), (), ())  # no ghost, launch counts or clocks (the common case, not hashed)


class StateCodec:
    """States <-> packed byte strings of one run (interned parts, see the module docstring).
    `wide=True` fixes 4-byte entry ids from the start, so a key never changes width (the
    fingerprint store needs that: it cannot re-pack what it no longer holds). `chunk`: the
    signal vector is interned in chunks of that many elements, `ghost_chunk` the ghost marks
    (0: whole; the marks then with the launch counts and clocks)."""

    def __init__(self, nprocs: int, wide: bool = False, chunk: int = 0, ghost_chunk: int = 0):
        from model.system import State  # here: the command line reads STORES without loading the model

        self._new_state = partial(tuple.__new__, State)  # State(*fields) without the Python-level __new__
        self.nprocs = nprocs
        self._entry_id: dict = {None: 0}
        self._entries: list = [None]
        self._by_id: dict = {id(None): 0}  # object id -> entry id, for the objects in _kept (and None)
        self._kept: list = []  # the objects whose ids those hold, kept alive so that no other object gets them
        self._signals = _Vectors(chunk)
        self._ghosts = _Vectors(ghost_chunk) if ghost_chunk else None  # None: the marks interned with the rest
        self._rest_id: dict = {}
        self._rests: list = []
        self.generation = 0  # bumped when the entry width grows (keys packed before must be re-packed)
        self._width = 2 if wide else 0
        self._struct = self._make(self._width)
        self._old: list[struct.Struct] = [self._struct]  # the struct of each generation

    def _make(self, w: int) -> struct.Struct:
        return struct.Struct(f"<{self.nprocs}{_WIDTHS[w]}II")

    @property
    def size(self) -> int:
        """Bytes per packed state."""
        return self._struct.size

    def _entry(self, p) -> int:
        k = self._entry_id[p] = len(self._entries)
        self._entries.append(p)
        if k >= 1 << (8 << self._width) and self._width < 2:
            self._width += 1
            self._struct = self._make(self._width)
            self._old.append(self._struct)
            self.generation += 1
        return k

    def pack(self, state) -> bytes:
        # Most entries and signal vectors are the very objects the model keeps in its memo
        # tables: they are looked up by object id first (no tuple hashing), by value otherwise.
        # An object id is remembered only for an object kept alive here, so it stays its own.
        procs = state[0]
        try:
            e = list(map(self._by_id.__getitem__, map(id, procs)))
        except KeyError:
            e = [self._alias(p) for p in procs]
        s = self._signals.id_of(state[1])
        ghost = state[2]
        if self._ghosts is not None and ghost:  # (an id, 0 included, is never taken for "no marks")
            rest = (self._ghosts.id_of(ghost), state[3], state[4])
        else:
            rest = (ghost, state[3], state[4]) if ghost or state[3] or state[4] else _NOTHING
        r = self._rest_id.get(rest)
        if r is None:
            r = self._rest_id[rest] = len(self._rests)
            self._rests.append(rest)
        return self._struct.pack(*e, s, r)

    def _alias(self, p) -> int:
        k = self._by_id.get(id(p))
        if k is None:
            k = self._entry_id.get(p)
            if k is None:
                k = self._entry(p)
            if len(self._kept) < MAX_ALIASES:
                self._by_id[id(p)] = k
                self._kept.append(p)
        return k

    def unpack(self, key: bytes, generation: int | None = None) -> State:
        fields = (self._struct if generation is None else self._old[generation]).unpack(key)
        n = self.nprocs
        entries = self._entries
        ghost, launches, hb = self._rests[fields[n + 1]]
        if ghost.__class__ is int:
            ghost = self._ghosts.vector(ghost)
        return self._new_state((tuple(map(entries.__getitem__, fields[:n])), self._signals.vector(fields[n]), ghost,
                                launches, hb))


class _Vectors:
    """Tuples of one length (signal vectors, ghost marks) <-> 32-bit ids. With `chunk` 0 a
    tuple is kept whole, and known by object id for good. Otherwise it is kept as the ids of
    its chunks (`chunk` elements each; the last runs to the end, so any length decodes
    exactly); the tuples decoded lately (RECENT_ELEMENTS elements' worth) are held and known
    by object id, which the successors of a decoded state share."""

    def __init__(self, chunk: int):
        self._chunk = chunk
        self._slices: list | None = None  # the chunks of a tuple (made at the first one)
        self._by_id: dict = {}  # object id -> tuple id, for the tuples held (whole: all; chunked: _recent)
        self._recent: dict = {}  # tuple id -> the tuple, for those decoded lately (oldest first)
        self._chunk_id: dict = {}  # a chunk -> its id
        self._chunks: list = []
        self._id: dict = {}  # a tuple's chunk ids (bytes) -> its id (chunk 0: the tuple -> its id)
        self._all: list = []  # tuple id -> its chunk ids (bytes) (chunk 0: the tuple)

    def id_of(self, vec: tuple) -> int:
        k = self._by_id.get(id(vec))
        if k is not None:
            return k
        if not self._chunk:  # kept as it is, and known by id for good
            k = self._id.get(vec)
            if k is None:
                k = self._id[vec] = len(self._all)
                self._all.append(vec)
                self._by_id[id(vec)] = k
            return k
        slices = self._slices
        if slices is None:
            starts = list(range(0, len(vec), self._chunk)) or [0]
            slices = self._slices = [slice(a, b) for a, b in zip(starts, starts[1:] + [None])]
        chunk_id = self._chunk_id
        try:
            ids = array("I", map(chunk_id.__getitem__, map(vec.__getitem__, slices)))
        except KeyError:
            ids = array("I")
            for part in map(vec.__getitem__, slices):
                c = chunk_id.get(part)
                if c is None:
                    c = chunk_id[part] = len(self._chunks)
                    self._chunks.append(part)
                ids.append(c)
        key = ids.tobytes()
        k = self._id.get(key)
        if k is None:
            k = self._id[key] = len(self._all)
            self._all.append(key)
        return k

    def vector(self, k: int) -> tuple:
        """Tuple `k`, rebuilt from its chunks; the latest few are held and known by id."""
        if not self._chunk:
            return self._all[k]
        recent = self._recent
        vec = recent.pop(k, None)
        if vec is None:
            ids = array("I")
            ids.frombytes(self._all[k])
            vec = tuple(chain.from_iterable(map(self._chunks.__getitem__, ids)))
            self._by_id[id(vec)] = k
            if len(recent) * len(vec) >= RECENT_ELEMENTS and len(recent) >= 4:
                old = recent.pop(next(iter(recent)))
                del self._by_id[id(old)]
        recent[k] = vec
        return vec


class ExactStore:
    """Every packed state, in one bytearray of fixed-width records, indexed by hash."""

    kind = "exact"

    def __init__(self, codec: StateCodec):
        self.codec = codec
        self._generation = codec.generation
        self._width = codec.size
        self._keys = bytearray()
        self._n = 0
        self._mask = _MIN_SLOTS - 1
        self._slots = array("i", [_EMPTY]) * _MIN_SLOTS

    def __len__(self) -> int:
        return self._n

    def key(self, index: int) -> bytes:
        w = self._width
        return bytes(self._keys[index * w: index * w + w])

    def state(self, index: int):
        return self.codec.unpack(self.key(index))

    def find(self, key: bytes) -> int:
        if self.codec.generation != self._generation:
            self._repack()
        w = self._width
        keys, slots, mask = self._keys, self._slots, self._mask
        h = hash(key) & mask
        while True:
            j = slots[h]
            if j == _EMPTY:
                return -1
            a = j * w
            if keys[a: a + w] == key:
                return j
            h = (h + 1) & mask

    def add(self, key: bytes) -> tuple[int, bool]:
        """(index, True) for a state not stored before (now stored), else (its index, False)."""
        if self.codec.generation != self._generation:
            self._repack()
        w = self._width
        keys, slots, mask = self._keys, self._slots, self._mask
        h = hash(key) & mask
        while True:
            j = slots[h]
            if j == _EMPTY:
                break
            a = j * w
            if keys[a: a + w] == key:
                return j, False
            h = (h + 1) & mask
        n = self._n
        slots[h] = n
        keys += key
        self._n = n + 1
        if 2 * self._n > mask:
            self._grow(2 * (mask + 1))
        return n, True

    def _grow(self, size: int) -> None:
        mask = size - 1
        slots = array("i", [_EMPTY]) * size
        keys, w = self._keys, self._width
        for j in range(self._n):
            h = hash(bytes(keys[j * w: j * w + w])) & mask
            while slots[h] != _EMPTY:
                h = (h + 1) & mask
            slots[h] = j
        self._mask, self._slots = mask, slots

    def _repack(self) -> None:
        """The codec's entry ids grew wider: re-pack every stored state (rare: the first time a
        run sees its 256th or 65,536th distinct process entry)."""
        codec, w = self.codec, self._width
        old = codec._old[self._generation]
        new = codec._struct
        keys = bytearray()
        for j in range(self._n):
            keys += new.pack(*old.unpack(self._keys[j * w: j * w + w]))
        self._keys, self._width, self._generation = keys, new.size, codec.generation
        self._grow(self._mask + 1)

    def nbytes(self) -> int:
        return len(self._keys) + self._slots.itemsize * len(self._slots)

    def collision_probability(self) -> float:
        return 0.0


class FingerprintStore:
    """A 64-bit fingerprint (BLAKE2b of the packed state) per state, indexed by itself."""

    kind = "fingerprint"
    BITS = 64

    def __init__(self, codec: StateCodec):
        self.codec = codec
        self._fps = array("Q")
        self._mask = _MIN_SLOTS - 1
        self._slots = array("i", [_EMPTY]) * _MIN_SLOTS

    def __len__(self) -> int:
        return len(self._fps)

    @staticmethod
    def fingerprint(key: bytes) -> int:
        return int.from_bytes(blake2b(key, digest_size=8).digest(), "little")

    def find(self, key: bytes) -> int:
        fp = self.fingerprint(key)
        fps, slots, mask = self._fps, self._slots, self._mask
        h = fp & mask
        while True:
            j = slots[h]
            if j == _EMPTY or fps[j] == fp:
                return j
            h = (h + 1) & mask

    def add(self, key: bytes) -> tuple[int, bool]:
        fp = self.fingerprint(key)
        fps, slots, mask = self._fps, self._slots, self._mask
        h = fp & mask
        while True:
            j = slots[h]
            if j == _EMPTY:
                break
            if fps[j] == fp:
                return j, False
            h = (h + 1) & mask
        n = len(fps)
        slots[h] = n
        fps.append(fp)
        if 2 * (n + 1) > mask:
            self._grow(2 * (mask + 1))
        return n, True

    def _grow(self, size: int) -> None:
        mask = size - 1
        slots = array("i", [_EMPTY]) * size
        for j, fp in enumerate(self._fps):
            h = fp & mask
            while slots[h] != _EMPTY:
                h = (h + 1) & mask
            slots[h] = j
        self._mask, self._slots = mask, slots

    def nbytes(self) -> int:
        return self._fps.itemsize * len(self._fps) + self._slots.itemsize * len(self._slots)

    def collision_probability(self) -> float:
        """An upper bound on the probability that two of the distinct states reached had the same
        fingerprint (n(n-1)/2 pairs, each equal with probability 2**-64): the only way this
        store can have missed a state. docs/trust.md derives it."""
        return collision_bound(len(self._fps), self.BITS)


def collision_bound(n: int, bits: int = 64) -> float:
    """P(some two of n distinct keys share a `bits`-bit hash) <= n(n-1)/2 * 2**-bits, capped at 1."""
    return min(1.0, n * (n - 1) / 2 / 2.0**bits)


def make_store(kind: str, nprocs: int, chunk: int = 0, ghost_chunk: int = 0):
    """A fresh store and its codec (signal vectors interned in chunks of `chunk` elements, ghost
    marks in chunks of `ghost_chunk`; 0: whole)."""
    if kind == "exact":
        return ExactStore(StateCodec(nprocs, chunk=chunk, ghost_chunk=ghost_chunk))
    if kind == "fingerprint":
        return FingerprintStore(StateCodec(nprocs, wide=True, chunk=chunk, ghost_chunk=ghost_chunk))
    raise ValueError(f"unknown store {kind!r} (one of {', '.join(STORES)})")

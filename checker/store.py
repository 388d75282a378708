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
vector. Decoding gives back an equal State built from the interned parts. The ids depend on
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

from model.system import State

_new_state = partial(tuple.__new__, State)  # State(*fields) without the Python-level __new__

__all__ = ["StateCodec", "ExactStore", "FingerprintStore", "make_store", "STORES"]

STORES = ("exact", "fingerprint")
_WIDTHS = ("B", "H", "I")  # entry ids: 1, 2, then 4 bytes
_EMPTY = -1
_MIN_SLOTS = 1 << 10
MAX_ALIASES = 1 << 16  # objects the codec keeps alive to look them up by object id
RECENT_ELEMENTS = 1 << 16  # signal elements of the decoded vectors the codec holds (and knows by id)
_NOTHING = ((), (), ())  # no ghost, launch counts or clocks (the common case, not hashed)


class StateCodec:
    """States <-> packed byte strings of one run (interned parts, see the module docstring).
    `wide=True` fixes 4-byte entry ids from the start, so a key never changes width (the
    fingerprint store needs that: it cannot re-pack what it no longer holds). `chunk`: the
    signal vector is interned in chunks of that many elements (0: whole)."""

    def __init__(self, nprocs: int, wide: bool = False, chunk: int = 0):
        self.nprocs = nprocs
        self._chunk = chunk
        self._slices: list | None = None  # the chunks of a vector (made at the first vector)
        self._entry_id: dict = {None: 0}
        self._entries: list = [None]
        self._by_id: dict = {id(None): 0}  # object id -> entry id, for the objects in _kept (and None)
        self._sig_by_id: dict = {}  # object id -> signal vector id, for the vectors in _recent
        self._recent: dict = {}  # signal vector id -> the vector, for those decoded lately (oldest first)
        self._kept: list = []  # the objects whose ids those hold, kept alive so that no other object gets them
        self._chunk_id: dict = {}  # a chunk of a signal vector -> its id
        self._chunks: list = []
        self._sig_id: dict = {}  # a signal vector's chunk ids (bytes) -> its id (chunk 0: the vector -> its id)
        self._sigs: list = []  # signal vector id -> its chunk ids (bytes) (chunk 0: the vector)
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
        sig = state[1]
        s = self._sig_by_id.get(id(sig))
        if s is None:
            if self._chunk:
                s = self._vector(sig)
            else:  # whole vectors: kept as they are, and known by id for good
                s = self._sig_id.get(sig)
                if s is None:
                    s = self._sig_id[sig] = len(self._sigs)
                    self._sigs.append(sig)
                    self._sig_by_id[id(sig)] = s
        rest = (state[2], state[3], state[4]) if state[2] or state[3] or state[4] else _NOTHING
        r = self._rest_id.get(rest)
        if r is None:
            r = self._rest_id[rest] = len(self._rests)
            self._rests.append(rest)
        return self._struct.pack(*e, s, r)

    def _vector(self, sig: tuple) -> int:
        """The id of a signal vector, by value (its chunks interned)."""
        slices = self._slices
        if slices is None:
            # the last chunk runs to the end: the chunks of any vector give back exactly that vector
            starts = list(range(0, len(sig), self._chunk or len(sig) or 1)) or [0]
            slices = self._slices = [slice(a, b) for a, b in zip(starts, starts[1:] + [None])]
        chunk_id = self._chunk_id
        try:
            ids = array("I", map(chunk_id.__getitem__, map(sig.__getitem__, slices)))
        except KeyError:
            ids = array("I")
            for part in map(sig.__getitem__, slices):
                k = chunk_id.get(part)
                if k is None:
                    k = chunk_id[part] = len(self._chunks)
                    self._chunks.append(part)
                ids.append(k)
        key = ids.tobytes()
        s = self._sig_id.get(key)
        if s is None:
            s = self._sig_id[key] = len(self._sigs)
            self._sigs.append(key)
        return s

    def _signals(self, s: int) -> tuple:
        """Signal vector `s`, rebuilt from its chunks; the latest few are held and known by id."""
        if not self._chunk:
            return self._sigs[s]
        recent = self._recent
        sig = recent.pop(s, None)
        if sig is None:
            ids = array("I")
            ids.frombytes(self._sigs[s])
            sig = tuple(chain.from_iterable(map(self._chunks.__getitem__, ids)))
            self._sig_by_id[id(sig)] = s
            if len(recent) * len(sig) >= RECENT_ELEMENTS and len(recent) >= 4:
                old = recent.pop(next(iter(recent)))
                del self._sig_by_id[id(old)]
        recent[s] = sig
        return sig

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
        return _new_state((tuple(map(entries.__getitem__, fields[:n])), self._signals(fields[n]), ghost, launches, hb))


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


def make_store(kind: str, nprocs: int, chunk: int = 0):
    """A fresh store and its codec (signal vectors interned in chunks of `chunk` elements)."""
    if kind == "exact":
        return ExactStore(StateCodec(nprocs, chunk=chunk))
    if kind == "fingerprint":
        return FingerprintStore(StateCodec(nprocs, wide=True, chunk=chunk))
    raise ValueError(f"unknown store {kind!r} (one of {', '.join(STORES)})")

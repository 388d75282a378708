"""Abstract values of C++ expressions: what the interpreter knows about each one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from frontends.core.errors import Loc
from frontends.core.sym import Sym
from model.vocabulary import CMPS as VOCAB_CMPS, OPS as VOCAB_OPS


@dataclass(frozen=True)
class Ptr:
    """An address inside a signal's symmetric buffer, on the own rank or on rank `rank`."""

    base: str                     # the root the signal is named after (C++ text)
    offset: Sym                   # in bytes from the start of the buffer
    rank: Sym | None              # None: the own rank
    elem: int                     # bytes per +1 of pointer arithmetic
    level: int
    plain: bool = False           # its plain loads and stores are signal operations
    origin: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Elem:
    """The int32 cell `*p` / `p[i]` (an lvalue)."""

    ptr: Ptr


@dataclass(frozen=True)
class Offset:
    """`ptr - windowsIn[me]`: a signal's byte offset inside the symmetric window."""

    base: str
    offset: Sym
    level: int
    plain: bool = False
    origin: Loc | None = field(default=None, compare=False)
    table: str = ""               # the window table the base came from
    own: Sym | None = field(default=None, compare=False)   # `me`, when ptr is a local pointer


@dataclass(frozen=True)
class Window:
    """`windowsIn[pe]`: the base address of rank pe's symmetric window."""

    rank: Sym
    table: str = ""               # which table (C++ path): the idiom needs the same one twice


@dataclass(frozen=True)
class Shift:
    """`(tbl[to] - tbl[frm]) / div`, two entries of one own-rank table of 64-bit addresses: the
    distance from window frm to window to, in units of div bytes (pypto's CommContext idiom,
    `ptr + (windowsIn[pe] - windowsIn[me]) / sizeof(*ptr)`). `value` is the same expression as
    a plain integer, for any other use."""

    table: str
    to: Sym
    frm: Sym
    div: int
    value: Sym


@dataclass(frozen=True)
class Windows:
    """The per-rank window base array itself."""

    table: str = ""


@dataclass(frozen=True)
class View:
    """A Signal / Signal2D / int32 GlobalTensor: elements `ptr + sum(i_k * strides[k])`."""

    ptr: Ptr
    shape: tuple[Sym, ...]
    strides: tuple[Sym, ...]      # in elements
    dsize: int = 4                # bytes per element (a data GlobalTensor may hold half, float, ...)
    data: bool = False            # the element type is not int32: data only, never a signal
    dynamic: bool = False         # a runtime Shape: the extent is not known from the code
    site: Loc | None = field(default=None, compare=False)  # where a data tensor was constructed


@dataclass(frozen=True)
class Enum:
    kind: str                     # op or cmp
    name: str                     # Set AtomicAdd EQ NE GT GE LT LE
    level: int


@dataclass(frozen=True)
class Unknown:
    """A value the code does not determine (runtime data, an unfollowed call)."""

    text: str
    loc: Loc = field(compare=False)
    hint: str = "VALUE"
    key: str = ""                 # same key: same param
    pointer: bool = False


@dataclass(frozen=True)
class Struct:
    path: str
    type: str | None


@dataclass(frozen=True)
class Record:
    """A local variable of a struct type the files define (`Ctx c{ptr, ctx, ...};`, `Ctx c;
    c.ptr = ...;`, a helper's `return c;`): the values of the fields the code set (`depth`:
    the loops around its declaration). An address field set in a loop it is declared outside
    of holds an Unknown; a number field set so, or to a value that may change meaning, and
    a field never set are read as any field of an unknown struct is."""

    name: str
    type: str
    fields: tuple = ()            # ((field, value), ...)
    depth: int = 0                # loops around the declaration

    def get(self, field_name: str):
        return next((v for f, v in self.fields if f == field_name), None)

    def with_field(self, field_name: str, value) -> "Record":
        rest = tuple((f, v) for f, v in self.fields if f != field_name)
        return Record(self.name, self.type, rest if value is None else rest + ((field_name, value),), self.depth)


@dataclass(frozen=True)
class LocalArray:
    """A C++ local `int a[N] = {...}` that became a .sig local array."""

    name: str
    size: int


@dataclass(frozen=True)
class Local:
    """A C++ variable that became a .sig local."""

    name: str
    is_bool: bool = False


OPS = VOCAB_OPS  # in pto-isa's enum order: an enum value is its index
CMPS = VOCAB_CMPS

_SIZES = {
    1: ("int8_t", "uint8_t", "char", "bool", "unsigned char", "signed char"),
    2: ("int16_t", "uint16_t", "half", "bfloat16_t", "short", "unsigned short"),
    4: ("int32_t", "uint32_t", "int", "unsigned", "unsigned int", "float", "signed"),
    8: ("int64_t", "uint64_t", "size_t", "long", "long long", "unsigned long", "double",
        "uintptr_t", "intptr_t", "ptrdiff_t", "unsigned long long", "uint64", "int64"),
}
SIZE_OF = {t: n for n, ts in _SIZES.items() for t in ts}
INT_TYPES = {t for n, ts in _SIZES.items() for t in ts if t not in ("half", "bfloat16_t", "float", "double")}
INT32_TYPES = {"int32_t", "uint32_t", "int", "unsigned", "unsigned int", "signed"}


def clean_type(t: str) -> str:
    """A type's text without qualifiers and namespaces: `const std::int32_t` -> `int32_t`."""
    t = re.sub(r"\b(const|volatile|constexpr|static|inline|__restrict__|__restrict|restrict|struct|class|typename)\b", " ", t)
    t = re.sub(r"\b[A-Za-z_]\w*::", "", t)
    return " ".join(t.replace("&", " ").split())


def pointee(t: str) -> tuple[str, int] | None:
    """For a pointer type: (pointee, its size in bytes); GM_ADDR is a byte pointer."""
    t = clean_type(t)
    if t in ("GM_ADDR",):
        return "uint8_t", 1
    if t.endswith("*"):
        base = t.rstrip("* ").strip()
        return base, SIZE_OF.get(base, 4)
    return None

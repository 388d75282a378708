"""What a program means, as one frozen value: the options that change the transition system.

`Semantics` travels with everything that depends on it: `System` takes it, every `Result`
records it, the JSON document (`results[].semantics`), the result cache key and the
certificate carry it, and `replay`, `graph`, `export --promela` and `--explain-symmetry` take
it from the result they are given. Search knobs (store, partial-order reduction, symmetry,
limits) are not semantics: they never change a verdict, only its cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

TENSOR_WAITS = ("pass", "atomic")  # a tensor TWAIT passes element by element (hardware), or all in one step
MEMORY_MODELS = ("pto", "sc")  # whether a TNOTIFY orders the unfenced data writes before it
SET_GRANULARITIES = ("word", "line")  # a Set as one store, or as a cache-line read + write-back

_CHOICES = {"tensor_wait": TENSOR_WAITS, "memory_model": MEMORY_MODELS, "set_granularity": SET_GRANULARITIES}


class SemanticsError(ValueError):
    """A semantics record with an unknown key or value."""


@dataclass(frozen=True)
class Semantics:
    tensor_wait: str = "pass"
    memory_model: str = "pto"
    set_granularity: str = "word"

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in _CHOICES[f.name]:
                raise SemanticsError(f"{f.name} must be one of {', '.join(_CHOICES[f.name])}, not {value!r}")

    @property
    def atomic_waits(self) -> bool:
        return self.tensor_wait == "atomic"

    @property
    def lines(self) -> bool:
        return self.set_granularity == "line"

    def to_data(self) -> dict[str, str]:
        """The JSON object of `results[].semantics` (every key, in declaration order)."""
        return asdict(self)

    @classmethod
    def from_data(cls, data) -> "Semantics":
        """The inverse of `to_data`; missing keys take their defaults (output of older versions)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise SemanticsError("semantics must be an object")
        unknown = sorted(set(data) - set(_CHOICES))
        if unknown:
            raise SemanticsError(f"unknown semantics key(s): {', '.join(unknown)}")
        return cls(**data)

    def flags(self) -> list[str]:
        """The command-line flags that select this semantics (none for the defaults)."""
        out = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                out += [f"--{f.name.replace('_', '-')}", value]
        return out

    def describe(self) -> str:
        """`tensor_wait=pass, memory_model=pto, set_granularity=word`."""
        return ", ".join(f"{k}={v}" for k, v in self.to_data().items())


DEFAULT = Semantics()

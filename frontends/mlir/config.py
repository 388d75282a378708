"""The MLIR extraction's configuration: `sigproof.toml` beside the kernel and `// sigproof:` pragmas.

The same files and pragma lines as for C++ (frontends.cpp.config), with the keys that make
sense for MLIR: names are SSA names of the kernel's arguments (`%rank` or `rank`), values
are integers. Unknown keys are errors, so a typo is never silently ignored.
"""

from __future__ import annotations

from frontends.core.config import Schema
from frontends.core.errors import ExtractError, Loc

KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "kernel": ((str,), "name of the kernel function (func.func @NAME)"),
    "together": ((bool,), "check the file's kernels with signal operations as one protocol"),
    "protocol": ((str,), "protocol name of the skeleton"),
    "ranks": ((int,), "number of ranks (value of param NRANKS)"),
    "blocks": ((int,), "blocks per rank (value of param NBLOCKS)"),
    "rank": ((str, list), "kernel arguments that carry the own rank"),
    "nranks": ((str, list), "kernel arguments that carry the rank count"),
    "block": ((str, list), "kernel arguments that carry the block index"),
    "nblocks": ((str, list), "kernel arguments that carry the block count"),
    "windows": ((str, list), "kernel arguments that hold the per-rank window base table"),
    "host": ((list,), "host sequence: launch, reset SIG, host_barrier"),
    "signals": ((dict,), "signal sizes: ARGUMENT = N"),
    "values": ((dict,), "values of kernel arguments: ARGUMENT = N"),
    "bounds": ((dict,), "runtime data: SSA name or argument -> [lo, hi], modelled as any(lo, hi)"),
    "check": ((str, list), "extra .sig checks, e.g. clean_exit"),
    "pragmas": ((bool,), "read // sigproof: pragmas (default true; API only)"),
}
LIST_KEYS = ("rank", "nranks", "block", "nblocks", "windows", "check")


def _values(cfg: dict, where: Loc | None, file: str) -> None:
    for key in ("signals", "values"):
        for k, v in cfg.get(key, {}).items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ExtractError(where, f"config {key}.{k} must be an integer, not {v!r}", file)
    for k, v in cfg.get("bounds", {}).items():
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
                and v[0] <= v[1]):
            raise ExtractError(where, f"config bounds.{k} must be [lo, hi] with integers lo <= hi, not {v!r}", file)


SCHEMA = Schema(KEYS, LIST_KEYS, what=" for an MLIR kernel", extra=_values)
validate, from_file = SCHEMA.validate, SCHEMA.from_file


def resolve(given: dict | None, kernel_path: str, pragmas: list[tuple[str, Loc]]) -> dict:
    return SCHEMA.resolve(given, kernel_path, pragmas)[0]

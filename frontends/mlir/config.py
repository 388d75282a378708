"""The MLIR extraction's configuration: `sigproof.toml` beside the kernel and `// sigproof:` pragmas.

The same files and pragma lines as for C++ (frontends.cpp.config), with the keys that make
sense for MLIR: names are SSA names of the kernel's arguments (`%rank` or `rank`), values
are integers. Unknown keys are errors, so a typo is never silently ignored.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from frontends.cpp.errors import ExtractError, Loc

KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "kernel": ((str,), "name of the kernel function (func.func @NAME)"),
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


def validate(cfg: dict, where: Loc | None, file: str) -> dict:
    for key, value in cfg.items():
        if key not in KEYS:
            raise ExtractError(where, f"unknown config key {key!r} for an MLIR kernel (known: {', '.join(sorted(KEYS))})", file)
        types = KEYS[key][0]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise ExtractError(where, f"config key {key!r} takes {KEYS[key][1]}, not {value!r}", file)
    for key in ("signals", "values"):
        for k, v in cfg.get(key, {}).items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ExtractError(where, f"config {key}.{k} must be an integer, not {v!r}", file)
    for k, v in cfg.get("bounds", {}).items():
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
                and v[0] <= v[1]):
            raise ExtractError(where, f"config bounds.{k} must be [lo, hi] with integers lo <= hi, not {v!r}", file)
    out = dict(cfg)
    for key in LIST_KEYS:
        if isinstance(out.get(key), str):
            out[key] = [out[key]]
    return out


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = {**out[k], **v} if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def from_file(path: Path) -> dict:
    shown = path.as_posix()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ExtractError(None, f"cannot read {shown}: {e.strerror}", shown) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ExtractError(None, f"bad TOML: {e}", shown) from None
    return validate(data.get("extract", data), Loc(shown, 1, 1, 1, 1), shown)


def resolve(given: dict | None, kernel_path: str, pragmas: list[tuple[str, Loc]]) -> dict:
    if given is None:
        toml = Path(kernel_path).parent / "sigproof.toml"
        top = from_file(toml) if toml.is_file() else {}
    else:
        top = validate(dict(given), None, "<config>")
    if top.get("pragmas", True) is False:
        return top
    cfg: dict = {}
    for line, loc in pragmas:
        try:
            one = tomllib.loads(line)
        except tomllib.TOMLDecodeError as e:
            raise ExtractError(loc, f"bad sigproof pragma ({e}); write `// sigproof: key = value`") from None
        cfg = _merge(cfg, validate(one, loc, loc.file))
    return _merge(cfg, top)

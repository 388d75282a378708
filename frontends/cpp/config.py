"""The extraction's configuration: `sigproof.toml` beside the kernel and `// sigproof:` pragmas.

A pragma is one TOML line after `// sigproof:` (`// sigproof: ranks = 4`,
`// sigproof: signals.flags = "nranks"`). Values from the TOML file (or from the dict
given to `extract`) win over pragmas. Unknown keys are errors, so a typo is never
silently ignored.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from frontends.cpp.errors import ExtractError, Loc

# key -> (type(s) accepted, meaning); docs/frontends.md describes each with an example
KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "kernel": ((str,), "name of the kernel function"),
    "protocol": ((str,), "protocol name of the skeleton"),
    "ranks": ((int,), "number of ranks (value of param NRANKS)"),
    "blocks": ((int,), "blocks per rank (value of param NBLOCKS)"),
    "rank": ((str, list), "C++ expressions that mean the own rank"),
    "nranks": ((str, list), "C++ expressions that mean the rank count"),
    "block": ((str, list), "C++ expressions that mean the block index"),
    "nblocks": ((str, list), "C++ expressions that mean the block count"),
    "windows": ((str, list), "names of per-rank window base arrays (windowsIn[pe])"),
    "host": ((list,), "host sequence: launch, reset SIG, host_barrier"),
    "signals": ((dict,), "signal sizes: NAME = size or [dims] (ints or C++ expressions)"),
    "plain_signals": ((str, list), "pointers whose plain loads and stores are signals"),
    "values": ((dict,), "values of kernel arguments and template parameters"),
    "runtime": ((dict,), "C++ expression text -> C++ expression for runtime data"),
    "bounds": ((dict,), "C++ expression text -> [lo, hi] for runtime data"),
    "ops": ((dict,), "C++ expression text -> Set/AtomicAdd/EQ/.. for runtime op/cmp"),
    "check": ((str, list), "extra .sig checks, e.g. clean_exit"),
    "pragmas": ((bool,), "read // sigproof: pragmas (default true; API only)"),
}

LIST_KEYS = ("rank", "nranks", "block", "nblocks", "windows", "plain_signals", "check")


def _validate(cfg: dict, where: Loc | None, file: str) -> dict:
    for key, value in cfg.items():
        if key not in KEYS:
            known = ", ".join(sorted(KEYS))
            raise ExtractError(where, f"unknown config key {key!r} (known: {known})", file)
        types = KEYS[key][0]
        if isinstance(value, bool) and bool not in types:
            raise ExtractError(where, f"config key {key!r} takes {KEYS[key][1]}", file)
        if not isinstance(value, types):
            raise ExtractError(where, f"config key {key!r} takes {KEYS[key][1]}, not {value!r}", file)
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


def from_pragmas(pragmas: list[tuple[str, Loc]]) -> dict:
    cfg: dict = {}
    for line, loc in pragmas:
        try:
            one = tomllib.loads(line)
        except tomllib.TOMLDecodeError as e:
            raise ExtractError(loc, f"bad sigproof pragma ({e}); write `// sigproof: key = value`") from None
        cfg = _merge(cfg, _validate(one, loc, loc.file))
    return cfg


def from_file(path: Path) -> dict:
    shown = path.as_posix()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ExtractError(None, f"cannot read {shown}: {e.strerror}", shown) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ExtractError(None, f"bad TOML: {e}", shown) from None
    return _validate(data.get("extract", data), Loc(shown, 1, 1, 1, 1), shown)


def resolve(given: dict | None, kernel_path: str, pragmas: list[tuple[str, Loc]]) -> tuple[dict, str | None]:
    """The config in force and where it came from (the TOML path, or None)."""
    source = None
    if given is None:
        toml = Path(kernel_path).parent / "sigproof.toml"
        top = from_file(toml) if toml.is_file() else {}
        source = toml.as_posix() if toml.is_file() else None
    else:
        top = _validate(dict(given), None, "<config>")
    if top.get("pragmas", True) is False:
        return top, source
    return _merge(from_pragmas(pragmas), top), source

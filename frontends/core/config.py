"""What every frontend's configuration shares: a `sigproof.toml` beside the kernel (or a dict
given to `extract`) and `// sigproof:` pragma lines, checked against the frontend's keys.
Entry point: `Schema`; frontends/cpp/config.py and frontends/mlir/config.py each declare one.

A pragma is one TOML line after `// sigproof:`. Values from the TOML file (or the dict) win
over pragmas. Unknown keys are errors, so a typo is never silently ignored.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Callable

from frontends.core.errors import ExtractError, Loc


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = {**out[k], **v} if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


class Schema:
    """The keys one frontend accepts: key -> (type(s), meaning); `list_keys` may also be given
    as one string; `extra(cfg, where, file)` checks the values further."""

    def __init__(self, keys: dict, list_keys: tuple, *, what: str = "",
                 extra: Callable[[dict, Loc | None, str], None] | None = None):
        self.keys, self.list_keys, self.what, self.extra = keys, list_keys, what, extra

    def validate(self, cfg: dict, where: Loc | None, file: str) -> dict:
        for key, value in cfg.items():
            if key not in self.keys:
                known = ", ".join(sorted(self.keys))
                raise ExtractError(where, f"unknown config key {key!r}{self.what} (known: {known})", file)
            types, meaning = self.keys[key]
            if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
                raise ExtractError(where, f"config key {key!r} takes {meaning}, not {value!r}", file)
        if self.extra is not None:
            self.extra(cfg, where, file)
        out = dict(cfg)
        for key in self.list_keys:
            if isinstance(out.get(key), str):
                out[key] = [out[key]]
        return out

    def from_pragmas(self, pragmas: list[tuple[str, Loc]]) -> dict:
        cfg: dict = {}
        for line, loc in pragmas:
            try:
                one = tomllib.loads(line)
            except tomllib.TOMLDecodeError as e:
                raise ExtractError(loc, f"bad sigproof pragma ({e}); write `// sigproof: key = value`") from None
            cfg = _merge(cfg, self.validate(one, loc, loc.file))
        return cfg

    def from_file(self, path: Path) -> dict:
        shown = path.as_posix()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise ExtractError(None, f"cannot read {shown}: {e.strerror}", shown) from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ExtractError(None, f"bad TOML: {e}", shown) from None
        return self.validate(data.get("extract", data), Loc(shown, 1, 1, 1, 1), shown)

    def resolve(self, given: dict | None, kernel_path: str, pragmas: list[tuple[str, Loc]]) -> tuple[dict, str | None]:
        """The config in force and where it came from (the TOML path beside the kernel, or None)."""
        source = None
        if given is None:
            toml = Path(kernel_path).parent / "sigproof.toml"
            top = self.from_file(toml) if toml.is_file() else {}
            source = toml.as_posix() if toml.is_file() else None
        else:
            top = self.validate(dict(given), None, "<config>")
        if top.get("pragmas", True) is False:
            return top, source
        return _merge(self.from_pragmas(pragmas), top), source

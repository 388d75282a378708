"""A result cache on disk for `sigproof check --cache DIR`. Entry point: `Cache(folder)`.

A result is stored under the sha256 of everything that decides it: the spec text and the
name it was checked under, every param value, every Option but those that only add data
(`state_digest`), the sigproof version and a digest of the installed checker's own source
(model/ and checker/), so that a code change never serves a stale verdict. Runs that a
time, memory or Ctrl-C limit stopped are not stored: they might go otherwise next time.
Known limitation: entries are never evicted; delete the folder to empty it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from checker.records import RecordError, result_from_data, result_to_data
from checker.result import Result

KEY_FORMAT = 1
NOT_KEYED = frozenset({"state_digest"})
NOT_STORED = frozenset({"timeout", "memory", "interrupted"})


def version() -> str:
    from checker import __version__

    return __version__


@functools.cache
def code_digest() -> str:
    """sha256 over the paths and bytes of every .py, .lark and .c file of the installed model/ and checker/."""
    import checker
    import model

    h = hashlib.sha256()
    for package in (model, checker):
        root = Path(package.__file__).resolve().parent
        for f in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".lark", ".c") and p.is_file()):
            rel = f"{package.__name__}/{f.relative_to(root).as_posix()}"
            h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def key_options(options) -> dict:
    return {k: v for k, v in sorted(dataclasses.asdict(options).items()) if k not in NOT_KEYED}


def cache_key(source: str, name: str, params: dict, options, *, sigproof_version: str | None = None,
              code: str | None = None) -> str:
    doc = {"format": KEY_FORMAT, "spec": name, "source": source, "params": sorted(params.items()),
           "options": key_options(options), "version": sigproof_version or version(), "code": code or code_digest()}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class Cache:
    def __init__(self, folder):
        self.folder = Path(folder)
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def load(self, program, name: str, source: str, options) -> Result | None:
        path = self._path(cache_key(source, name, dict(program.params), options))
        try:
            result = result_from_data(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, RecordError, KeyError, TypeError):  # absent or unreadable: check again
            self.misses += 1
            return None
        if options.state_digest and result.stats.state_digest is None:
            self.misses += 1
            return None
        self.hits += 1
        return dataclasses.replace(result, cached=True)

    def store(self, program, name: str, source: str, options, result: Result) -> None:
        if result.error is not None or (result.stop is not None and result.stop.reason in NOT_STORED):
            return
        path = self._path(cache_key(source, name, dict(program.params), options))
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(result_to_data(dataclasses.replace(result, cached=False)), sort_keys=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")  # atomic: parallel CI jobs may share it
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.replace(tmp, path)

"""Certificates of what a check proved: `certificate` writes one, `verify` re-runs it.

A certificate names each spec (or kernel) by path and sha256, with its params, the options and sigproof
version, and what the check found: status, violated and expected properties, the state and
transition counts, an order-independent digest of the explored states and the statements no
step executed (compared only when the certificate records them). A seal (sha256 of
the rest) catches an edited file; re-running the checks catches everything else. A kernel's
check also names the sha256 of the skeleton its extraction gave and the extraction's
assumptions; verifying extracts it again (with the sigproof.toml beside it) and compares. Paths are
as sigproof was given them: verify from the same folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import IO

from checker.cache import code_digest, key_options, version
from checker.check import Options, check_program, read_spec
from checker.result import Result
from model import SpecErrors, compile_spec, parse
from model.semantics import Semantics, SemanticsError

FORMAT = 1
COMPARED = ("status", "violated", "expected", "stop_reason", "states", "transitions", "state_digest", "error",
            "semantics", "unreached", "skeleton_sha256", "assumptions")
NEWER = frozenset({"unreached", "skeleton_sha256", "assumptions"})  # compared only when the certificate has them


class CertificateError(Exception):
    """A file that is not a certificate sigproof can verify (exit status 2)."""


def _sha256_file(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def entry(result: Result, sha256: str | None, skeleton: str | None = None) -> dict:
    """A check as the certificate states it; a kernel's also names the digest of the skeleton
    its extraction gave (`skeleton`, its text) and the extraction's assumptions."""
    kernel = {} if result.assumptions is None else {
        "skeleton_sha256": None if skeleton is None else hashlib.sha256(skeleton.encode()).hexdigest(),
        "assumptions": [a.text for a in result.assumptions]}
    return {**kernel, "spec": result.spec, "sha256": sha256, "params": dict(result.params), "status": result.status,
            "violated": result.violated, "expected": list(result.expected),
            "stop_reason": result.stop.reason if result.stop else None, "states": result.stats.states,
            "transitions": result.stats.transitions, "state_digest": result.stats.state_digest,
            "error": result.error, "semantics": result.semantics.to_data(),
            "unreached": None if result.unreached is None else [u.text for u in result.unreached]}


def _seal(doc: dict) -> str:
    body = {k: v for k, v in doc.items() if k != "seal"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _file_of(spec: str) -> str:
    """The file a result's spec name stands for (`file.cpp:Kernel`: one of a file's kernels)."""
    from checker.kernels import split_name

    return split_name(spec)[0].as_posix()


def _digest(spec: str) -> str | None:
    """The sha256 of the file a result names; of kernels checked together (`a.cpp+b.cpp`), the
    sha256 of their files' digests in order (None when one cannot be read)."""
    from checker.kernels import together_members

    members = together_members(spec)
    if not members:
        return _sha256_file(_file_of(spec))
    digests = [_sha256_file(path.as_posix()) for path, _ in members]
    return None if None in digests else hashlib.sha256("\n".join(digests).encode()).hexdigest()


def _kernel_tasks(name: str, params: dict):
    """(tasks, origins, assumptions) of a kernel result's name, extracted again: one kernel
    (`file.cpp`, `file.cpp:Kernel`) or kernels checked together (`a.cpp+b.cpp`); None for a spec."""
    from checker.kernels import is_kernel, kernel_tasks, split_name, together_members, together_tasks

    members = together_members(name)
    if members:
        return together_tasks(members, params)
    path, kernel = split_name(name)
    return kernel_tasks(path, params, kernel=kernel) if is_kernel(path) else None


def certificate(results: list[Result], options: Options) -> dict:
    doc = {"sigproof_certificate": FORMAT, "version": version(), "checker_digest": code_digest(),
           "options": key_options(options),
           "checks": [entry(r, _digest(r.spec), _skeleton(r)) for r in results]}
    doc["seal"] = _seal(doc)
    return doc


def write(results: list[Result], options: Options, out: IO[str]) -> None:
    json.dump(certificate(results, options), out, indent=2, sort_keys=True)
    out.write("\n")


def load(path: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise CertificateError(f"{path}: cannot read: {e.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise CertificateError(f"{path}: not a JSON file") from None
    if not isinstance(doc, dict) or doc.get("sigproof_certificate") != FORMAT:
        raise CertificateError(f"{path}: not a sigproof certificate (format {FORMAT})")
    if not isinstance(doc.get("checks"), list) or not isinstance(doc.get("options"), dict):
        raise CertificateError(f"{path}: the certificate has no checks or options")
    return doc


def _options(doc: dict) -> Options:
    known = {f.name for f in dataclasses.fields(Options)}
    unknown = sorted(set(doc["options"]) - known)
    if unknown:
        raise CertificateError(f"the certificate uses options this sigproof does not have: {', '.join(unknown)}")
    try:
        semantics = Semantics.from_data(doc["options"].get("semantics"))
    except (SemanticsError, TypeError) as e:
        raise CertificateError(f"the certificate's semantics: {e}") from None
    return Options(**{**doc["options"], "semantics": semantics, "state_digest": True})


def _skeleton(result: Result) -> str | None:
    """A kernel result's skeleton text, extracted again (None for a spec, or when it fails)."""
    if result.assumptions is None:
        return None
    got = _kernel_tasks(result.spec, dict(result.params))
    tasks = got[0] if got is not None else []
    return tasks[0][0].source if tasks and isinstance(tasks[0], tuple) else None


def recheck(item: dict, options: Options) -> dict:
    """The entry that checking `item`'s spec (or kernel) and params again gives."""
    name = item.get("spec")
    if not isinstance(name, str) or not isinstance(item.get("params"), dict):
        raise CertificateError("a check in the certificate has no spec path or params")
    params = dict(item["params"])
    from checker.kernels import cited

    got = _kernel_tasks(name, params)
    if got is not None:  # extracted again with the sigproof.toml beside it (`file.cpp:Kernel`, `a.cpp+b.cpp`)
        tasks, origins, assumptions = got
        task = tasks[0]
        if isinstance(task, Result):
            return entry(task, _digest(name))
        result = cited(check_program(task[0], task[1], options), origins, assumptions)
        return entry(result, _digest(name), task[0].source)
    try:
        source = read_spec(Path(name))
        program = compile_spec(parse(source, name), params)
    except SpecErrors as e:
        return entry(Result(name, params, error=e.render()), _sha256_file(name))
    return entry(check_program(program, name, options), _sha256_file(name))


def verify(doc: dict) -> list[str]:
    """What differs between the certificate and a fresh run (empty: it reproduces exactly)."""
    problems = []
    if doc.get("seal") != _seal(doc):
        problems.append("the seal does not match the contents: the certificate was edited after it was written")
    if doc.get("version") != version():
        problems.append(f"version: the certificate says {doc.get('version')}, this is sigproof {version()}")
    options = _options(doc)
    for item in doc["checks"]:
        if not isinstance(item, dict):
            raise CertificateError("a check in the certificate is not an object")
        fresh = recheck(item, options)
        params = " ".join(f"{k}={v}" for k, v in item["params"].items())
        where = f"{item['spec']}" + (f" [{params}]" if params else "")
        if item.get("sha256") != fresh["sha256"]:
            problems.append(f"{where}: the spec file changed (sha256 {item.get('sha256')} in the certificate, "
                            f"{fresh['sha256']} now)")
        for k in COMPARED:
            if k in NEWER and k not in item:
                continue
            if item.get(k) != fresh[k]:
                problems.append(f"{where}: {k}: the certificate says {json.dumps(item.get(k))}, "
                                f"the check gives {json.dumps(fresh[k])}")
    return problems

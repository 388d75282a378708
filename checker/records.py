"""Results as JSON data and back, losslessly: `result_to_data`, `result_from_data`.

Unlike the JSON report (checker/report.py), which is a view for people and scripts, this is
a storage format: every record is written with its class name and every field, so a loaded
Result renders byte for byte as the original did. Used by the result cache and certificates.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from checker import result as R
from model.errors import Span
from model.semantics import Semantics

FORMAT = 1
_CLASSES = {c.__name__: c for c in (Span, R.ProcessRef, R.ElementRef, R.Write, R.Read, R.Started, R.Joined,
                                    R.BarrierPassed, R.Overwrote, R.Faulted, R.TraceStep, R.StuckProcess,
                                    R.DirtyElement, R.Violation, R.Stop, R.Stats, R.Result, R.DataAccess, R.Raced,
                                    R.LineCached, R.AccessRef, R.RaceFacts, R.Returned, R.Chose, R.BlocksPassed,
                                    R.Unreached, Semantics)}


class RecordError(ValueError):
    """Stored data that is not a result record."""


def result_to_data(result: R.Result) -> dict:
    return {"format": FORMAT, "result": _encode(result)}


def result_from_data(data: dict) -> R.Result:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError("not a stored result of this format")
    result = _decode(data.get("result"))
    if not isinstance(result, R.Result):
        raise RecordError("the stored record is not a Result")
    return result


def _encode(x):
    if is_dataclass(x):
        out = {"@": type(x).__name__}
        for f in fields(x):
            out[f.name] = _encode(getattr(x, f.name))
        return out
    if isinstance(x, (tuple, list)):
        return [_encode(y) for y in x]
    if isinstance(x, dict):
        return {"@": "dict", "items": [[k, _encode(v)] for k, v in x.items()]}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise TypeError(f"cannot store a {type(x).__name__}")


def _decode(x):
    if isinstance(x, list):
        return tuple(_decode(y) for y in x)
    if isinstance(x, dict):
        name = x.get("@")
        if name == "dict":
            return {k: _decode(v) for k, v in x["items"]}
        cls = _CLASSES.get(name)
        if cls is None:
            raise RecordError(f"unknown record {name!r}")
        kwargs = {f.name: _decode(x[f.name]) for f in fields(cls) if f.name in x}
        if cls is R.Result:
            kwargs["violations"] = list(kwargs.get("violations", ()))
        try:
            return cls(**kwargs)
        except TypeError as e:
            raise RecordError(str(e)) from None
    return x

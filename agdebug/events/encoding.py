"""Records as one line of JSON each, fast: the trace writer encodes every event with this.

The text is exactly ``json.dumps(record.to_dict(), separators=(",", ":"))``. Python's JSON
encoder costs several microseconds per event (a callback and a dict per nested record, an
encoder set up per call), and a watched program publishes about five events per op. Here
each record class gets one f-string, written from its fields and type hints the first
time the class is encoded (as ``dataclasses`` writes ``__init__``): one call builds the
whole line. Strings go through json's own C escaping; a field type it does not know is
handed to the JSON encoder, so nothing is ever written differently.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from json.encoder import encode_basestring_ascii as _string

__all__ = ["optional_of", "to_json"]


def to_json(record) -> str:
    """``record`` (an event or a record inside one) as compact JSON."""
    encode = ENCODERS.get(type(record))
    if encode is None:
        encode = _encoder(type(record))
    return encode(record)


ENCODERS: dict = {}   # record class -> its encoder (the recorder reads it directly)


def _encoder(cls):
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"Object of type {cls.__name__} is not JSON serializable")
    hints = typing.get_type_hints(cls)
    parts = []
    kind = getattr(cls, "kind", None)   # events write their kind first, as to_dict does
    if isinstance(kind, str):
        parts.append(_literal(f'"kind":{_string(kind)}'))
    for f in dataclasses.fields(cls):
        parts.append(_literal(f"{_string(f.name)}:") + _field(hints[f.name], f.name))
    text = "def encode(r):\n    return f'{{" + ",".join(parts) + "}}'\n"
    scope = dict(_HELPERS)
    exec(text, scope)  # noqa: S102 - text written here from the class's own fields
    encode = ENCODERS[cls] = scope["encode"]
    return encode


def _literal(text: str) -> str:
    """JSON text as an f-string's literal part (names and kinds: no quote or backslash)."""
    if "'" in text or "\\" in text:
        raise ValueError(f"cannot write {text!r} into an encoder")   # (a class's own names)
    return text.replace("{", "{{").replace("}", "}}")


def _field(hint, name: str) -> str:
    """The f-string part that writes field ``name`` of type ``hint`` (expressions use
    double quotes: the generated f-string is in single quotes)."""
    value = f"r.{name}"
    one = _one(hint)
    if one is not None:
        return f"{{{one}({value})}}"
    item = _one(_tuple_item(hint))
    if item is not None:
        return f'[{{",".join(map({item}, {value}))}}]'
    return f"{{_json({value})}}"


def _one(hint) -> str | None:
    """The helper (by its name in the generated text) that writes one ``hint``, if any."""
    if hint in _PLAIN:
        return _PLAIN[hint]
    if dataclasses.is_dataclass(hint):
        return "_nested"
    inner = optional_of(hint)
    if dataclasses.is_dataclass(inner):
        return "_record_or_null"
    if inner is float:
        return "_number"
    if _tuple_item(inner) is int:
        return "_ints_or_null"
    if _tuple_item(hint) is None and typing.get_origin(hint) is tuple:
        return "_pair" if typing.get_args(hint) in ((int, int), (str, str)) else None
    return None


def _tuple_item(hint):
    """``X`` for ``tuple[X, ...]``, else None."""
    if typing.get_origin(hint) is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
    return None


def optional_of(hint):
    """``X`` for ``X | None``, else None."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0]
    return None


def _number(value) -> str:
    """A float as json writes it (NaN, Infinity), or None as null."""
    if value is None:
        return "null"
    if type(value) is float:
        if value != value:
            return "NaN"
        if value in (_INF, -_INF):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    return _json(value)


def _nested(record) -> str:
    """A record inside an event, written once: a watcher reuses a tensor's summary while it
    holds (an op's output is the next op's input), so its text is kept beside it."""
    kept = _WRITTEN.get(id(record))
    if kept is not None and kept[0] is record:
        return kept[1]
    text = to_json(record)
    if len(_WRITTEN) >= 4096:   # bounded: old entries are just dropped
        _WRITTEN.clear()
    _WRITTEN[id(record)] = (record, text)   # (holding the record keeps its id unique)
    return text


_WRITTEN: dict = {}


def _record_or_null(value) -> str:
    return "null" if value is None else _nested(value)


def _ints_or_null(value) -> str:
    return "null" if value is None else "[" + ",".join(map(_int, value)) + "]"


def _pair(value) -> str:
    """A pair of ints or of strings (an edge, an attribute): the common nested tuples."""
    if len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int:
            return f"[{a},{b}]"
        if type(a) is str and type(b) is str:
            return f"[{_string(a)},{_string(b)}]"
    return _json(value)


def _as_dict(record) -> dict:
    """What the JSON encoder calls for a record inside a value no hint describes."""
    if not dataclasses.is_dataclass(record):
        raise TypeError(f"Object of type {type(record).__name__} is not JSON serializable")
    kind = getattr(record, "kind", None)
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    return {"kind": kind, **values} if isinstance(kind, str) else values


_INF = float("inf")
_int = int.__repr__
_json = json.JSONEncoder(separators=(",", ":"), default=_as_dict).encode
_PLAIN = {int: "_int", str: "_string", float: "_number", bool: "_BOOL.__getitem__"}
_HELPERS = {"_int": _int, "_string": _string, "_number": _number, "_json": _json,
            "_BOOL": {True: "true", False: "false"}, "_nested": _nested,
            "_record_or_null": _record_or_null, "_ints_or_null": _ints_or_null, "_pair": _pair}

"""Regular expressions for the JSON agdebug writes, and builders that trust what matched.

A trace line or an index item as agdebug's own writers make it (compact, every field in
order, nothing else) is checked in one pass of a regular expression, in C: each field then
has its type, each integer fits 64 bits, each tensor summary's name is a short printable
label. What matched is built without checking each field again, several times quicker. Any
other text (an older version's lines, a hand-edited or damaged file) is read the checked
way (``records.decode``), which also says what is wrong.

>>> import re
>>> from agdebug.events.records import NodeFreed
>>> shape = re.compile(pattern(NodeFreed, kind="node_freed"))
>>> bool(shape.fullmatch('{"kind":"node_freed","seq":4,"thread":0,"node":2,"by":"gc"}'))
True
>>> bool(shape.fullmatch('{"kind":"node_freed","seq":4,"thread":0,"node":"2","by":"gc"}'))
False
"""

from __future__ import annotations

import dataclasses
import typing
from functools import lru_cache

from .encoding import optional_of
from .names import MAX_NAME

__all__ = ["BOOL", "INT", "NAME", "STR", "builder", "event_builder", "listed", "pattern"]

# Possessive quantifiers and atomic groups throughout: this grammar never needs to
# backtrack (an integer ends at a non-digit, a string at its quote), and not keeping
# places to go back to makes matching a third quicker.


def listed(item: str) -> str:
    """A JSON list of ``item``s."""
    return rf"\[(?>{item}(?>,{item})*+)?+\]"


INT = r"-?+(?>0|[1-9][0-9]{0,17}+)"   # at most 18 digits: within int64
_PLAIN = r'[^"\\\x00-\x1f]*+'
STR = rf'"{_PLAIN}(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{{4}}){_PLAIN})*+"'   # any JSON string
NAME = rf'"[ !#-\[\]-~]{{0,{MAX_NAME}}}+"'   # printable ASCII, unescaped: a label
BOOL = r"(?:true|false)"
_FLOAT = rf"(?:{INT}(?>\.[0-9]++)?+(?>[eE][-+]?+[0-9]++)?+|NaN|-?+Infinity)"
_SCALARS = {int: INT, str: STR, bool: BOOL, float: _FLOAT}


def pattern(tp, kind: str | None = None, labels: frozenset = frozenset()) -> str:
    """The regular expression of the JSON agdebug writes for a value of type ``tp`` (a
    record class, ``tuple[int, ...]``, ``str | None``...); ``kind``: a record written with
    its event kind first; ``labels``: the ``(record class, field)`` strings that are names
    (a short printable label: ``NAME``)."""
    if tp in _SCALARS:
        return _SCALARS[tp]
    inner = optional_of(tp)
    if inner is not None:
        return f"(?:null|{pattern(inner, labels=labels)})"
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return listed(pattern(args[0], labels=labels))
        return r"\[" + ",".join(pattern(a, labels=labels) for a in args) + r"\]"
    if not dataclasses.is_dataclass(tp):
        raise TypeError(f"no JSON shape for {tp!r}")
    hints = typing.get_type_hints(tp)
    parts = [f'"kind":"{kind}"'] if kind is not None else []
    text = r"\{" + ",".join(parts)
    for i, f in enumerate(dataclasses.fields(tp)):
        value = NAME if (tp, f.name) in labels else pattern(hints[f.name], labels=labels)
        field = f'{"," if i or parts else ""}"{f.name}":{value}'
        # A field with a default may be absent (lines from before it was added).
        defaulted = f.default is not dataclasses.MISSING or \
            f.default_factory is not dataclasses.MISSING
        text += f"(?:{field})?+" if defaulted else field
    return text + r"\}"


@lru_cache(maxsize=None)
def builder(tp, checks: tuple = (), make=None):
    """JSON data of ``pattern(tp)``'s shape -> the value (``None`` when the data is the
    value already: a scalar). ``checks``: ``(record class, check(values by name))`` pairs,
    run on what the pattern cannot check (fields that depend on each other); ``make(cls)``:
    what builds a ``cls`` quickest (called as ``cls`` is: ``records.builder``)."""
    if tp in _SCALARS:
        return float if tp is float else None   # (a float field may hold an integer)
    inner = optional_of(tp)
    if inner is not None:
        build = builder(inner, checks, make)
        return None if build is None else lambda v: None if v is None else build(v)
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = builder(args[0], checks, make)
            return tuple if item is None else lambda v: tuple(map(item, v))
        items = [builder(a, checks, make) for a in args]
        return lambda v: tuple([b(x) if b else x for b, x in zip(items, v)])
    return _record_builder(tp, checks, make)


def _record_builder(cls, checks: tuple, make, skip: int = 0):
    """A record from its JSON object (``skip``: leading keys that are not fields, an
    event's kind). An object without every field (an older version's line leaves out
    those added since, which have defaults) is built by name."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    builds = tuple(builder(hints[n], checks, make) for n in names)
    by_name = dict(zip(names, builds))
    check = dict(checks).get(cls)
    new = cls if make is None else make(cls)
    keyword = [(i, f.name) for i, f in enumerate(fields) if f.kw_only]
    if len(keyword) > 1:
        raise TypeError(f"{cls.__name__}: one keyword-only field at most")
    at, keyword = keyword[0] if keyword else (None, None)   # (an event's ``thread``)

    def build(data: dict) -> object:
        values = list(data.values())
        if len(values) != len(names) + skip:
            named = {k: v if by_name[k] is None else by_name[k](v)
                     for k, v in list(data.items())[skip:]}
            if check is not None:
                check(named)
            return new(**named)
        del values[:skip]
        values = [v if b is None else b(v) for b, v in zip(builds, values)]
        if check is not None:
            check(dict(zip(names, values)))
        if at is None:
            return new(*values)
        return new(*values[:at], *values[at + 1:], **{keyword: values[at]})
    return build


@lru_cache(maxsize=None)
def event_builder(cls, checks: tuple = (), make=None):
    """``builder`` for an event class: its JSON object starts with its kind."""
    return _record_builder(cls, checks, make, skip=1)

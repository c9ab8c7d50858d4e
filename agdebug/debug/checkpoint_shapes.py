"""The usual shapes of an index's node items, as regular expressions over their JSON.

A cold seek decodes a thousand node versions. Checking each field in Python cost two thirds
of that; an item whose text matches one of these patterns (in C, in one pass) has every
field of the type ``checkpoints.NodeReader`` wants, every integer within int64 and every
summary name a short printable label, so it is built without further checks. Anything else
(a rarer shape, or a damaged file) goes the field-by-field way, which also says what is
wrong. Summary numbers are still looked up in their table, which bounds them.

>>> bool(OWN.fullmatch(b'[3,"done",0,[7,null],[1],[],[],[],1,"","",[false]]'))
True
>>> bool(OWN.fullmatch(b'[3,"gone",0,[],[],[],[],[],1,"","",[]]'))   # not a status
False
>>> bool(SUMMARY.fullmatch(b'[1,[4],"float32","cpu",16,null,"x"]'))
True
>>> bool(SUMMARY.fullmatch(b'[1,[4],"float32","cpu",16,null,"\\\\u001b[31m"]'))   # escaped
False
"""

from __future__ import annotations

import re

from ..events.json_shapes import BOOL as _BOOL
from ..events.json_shapes import INT as _INT
from ..events.json_shapes import NAME as _NAME
from ..events.json_shapes import STR as _STR
from ..events.json_shapes import listed as _listed
from .state import STATUSES

__all__ = ["OWN", "SHARED", "SUMMARY"]

_REF = rf"(?:{_INT}|null)"
_STATUS = "(?:" + "|".join(f'"{s}"' for s in STATUSES) + ")"
_PAIR = rf"\[{_INT},{_INT}\]"
_ATTR = rf"\[{_STR},{_STR}\]"
_SAVED = rf"\[{_STR},{_INT},{_listed(_INT)},{_STR},{_INT},{_BOOL},{_INT}\]"   # (SavedView's)

# A version's own fields (checkpoints._OWN, after the number of its shared part).
OWN = re.compile(
    rf"\[{_INT},{_STATUS},{_INT},{_listed(_REF)},{_listed(_INT)},{_listed(_REF)},"
    rf"{_listed(_REF)},{_listed(_STR)},{_INT},{_STR},{_STR},{_listed(_BOOL)}\]".encode())
# What a node's versions share (checkpoints._SHARED).
SHARED = re.compile(
    rf"\[{_INT},{_STR},{_STR},{_listed(_PAIR)},{_listed(_REF)},{_listed(_INT)},"
    rf"{_listed(_SAVED)},{_listed(_ATTR)},{_REF},{_INT},{_STR},{_STR},{_STR}\]".encode())
# A tensor summary with no statistics (records.TensorSummary's fields in order).
SUMMARY = re.compile(
    rf"\[{_INT},{_listed(_INT)},{_STR},{_STR},{_INT},null,{_NAME}\]".encode())

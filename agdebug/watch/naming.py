"""The names a user gave torch tensors, by agdebug's probe's rules, so both engines agree.

An op's outputs are named after the assignment target of the user's line making them
(``y = x * w``) when the op computes that whole value; through ``torch.nn`` code (a
module, ``F.relu``) only when each library frame returns what it computes, and when one
assigns it first (``out = module(out)`` in ``Sequential``), the call's last such op wins,
named once the user's code goes on. A leaf made to require grad is named after its line;
a module's parameters and buffers by their attribute path (``0.weight``) when their
AccumulateGrad is made inside the module's call. Ids and strings only: nothing is kept.
"""

from __future__ import annotations

import sys

from ..events import names as _names

__all__ = ["call_kind", "forget", "is_parameter", "name_leaves", "name_of", "name_outputs",
           "name_parameters", "name_pending"]

_NAMES: dict[int, str] = {}   # tensor id -> what the user called it
_PARAMETERS: set[int] = set()   # ids named by a module's attribute path
_pending = None   # ((frame id, instruction), output ids, names) of a library call's last op


_FRAMES: dict = {}   # (code, instruction offset) -> the names it assigns


def _frame_names(frame) -> tuple:
    """``names.frame_names``, remembered from one watch to the next by the running code
    object (the probe's tables are read again for each recording: a watch toggled on and
    off around each step would parse the same statements each time)."""
    key = (frame.f_code, frame.f_lasti)
    names = _FRAMES.get(key)
    if names is None:
        if len(_FRAMES) >= 4096:
            _FRAMES.clear()
        names = _FRAMES[key] = _names.frame_names(frame)
    return names


def name_of(tid: int) -> str:
    return _NAMES.get(tid, "")


def _name(tid: int, name: str) -> None:
    if len(_NAMES) >= 65536:   # bounded, as the probe's: a long run's oldest names go
        _NAMES.clear()
        _PARAMETERS.clear()
    _NAMES[tid] = name


def call_kind(library: list) -> str:
    """"whole", "part" or "maybe", as ``probe._call_kind`` decides it."""
    kind = "whole"
    for frame in library:
        names = _frame_names(frame)
        if not names:
            return "part"
        if names is not _names.RETURNED:
            kind = "maybe"
    return kind


def name_outputs(frame, library, ids: list) -> None:
    """Name the outputs (``ids``) of an op the user's code at ``frame`` made."""
    global _pending
    if _pending is not None and _pending[0] != (id(frame), frame.f_lasti):
        name_pending()
    names = _frame_names(frame)
    if names is _names.RETURNED:   # a user's ``return``: the caller's to name, as the probe
        names = ()
    if not library:   # the commonest: ``y = x * w`` in the user's own code
        if names:
            _name_all(ids, names)
        return
    kind = call_kind(library)
    if not names or kind == "part":
        return
    if kind == "whole":
        _name_all(ids, names)
    else:
        _pending = ((id(frame), frame.f_lasti), ids, names)


def name_pending() -> None:
    global _pending
    pending, _pending = _pending, None
    if pending is not None:
        _name_all(pending[1], pending[2])


def _name_all(ids: list, names: tuple) -> None:
    if len(names) == len(ids):   # ``y = x * w``; ``a, b = x.unbind()``
        for tid, name in zip(ids, names):
            _name(tid, name)
    elif len(names) == 1:        # ``parts = x.unbind()``: ``parts[0]``, ``parts[1]``
        for i, tid in enumerate(ids):
            _name(tid, f"{names[0]}[{i}]"[:_names.MAX_NAME])


def name_leaves(frame, ids: list) -> None:
    """Leaves made to require grad at ``frame`` (``x = torch.ones(2, requires_grad=True)``)."""
    names = _frame_names(frame) if frame is not None else ()
    if len(names) == 1 and names is not _names.RETURNED:
        for tid in ids:
            if tid not in _PARAMETERS:
                _name(tid, names[0])


def name_parameters(tensor_id) -> None:
    """Name the parameters and buffers of the outermost module being called on the stack
    by their attribute paths, as ``named_parameters()`` gives them (``tensor_id``: the
    watcher's, passed in: ``tensors`` imports this module)."""
    module, outermost, module_file = None, None, _module_file()
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_call_impl" and code.co_filename == module_file:
            module, outermost = frame.f_locals.get("self", module), frame
        frame = frame.f_back
    if module is None:
        return
    caller = outermost.f_back   # past torch's ``_wrapped_call_impl``: the user's frame
    while caller is not None and caller.f_code.co_filename == module_file:
        caller = caller.f_back
    for name, t in _names.parameter_names(module, caller):
        tid = tensor_id(t)
        _name(tid, name)
        _PARAMETERS.add(tid)


def is_parameter(tid: int) -> bool:
    return tid in _PARAMETERS


def _module_file() -> str:
    import torch.nn.modules.module as module
    return module.__file__


def forget() -> None:
    """A watch ended: a call's last op waiting for its name is not named (names stay: a
    tensor keeps its id from one watch to the next)."""
    global _pending
    _pending = None

"""Torch tensors as event summaries: ids we assign, shapes, dtypes, sizes; the user's line.

Nothing here keeps a tensor: an id is stored on the tensor itself (an attribute), and a
summary holds plain data. Values (preview, statistics) are read only when a subscriber
asked for them (``WATCH.values``): on a GPU that is a device sync.
"""

from __future__ import annotations

import os
import sys

from ..events import probe
from ..events import records as r
from ..events.bus import WATCH
from .naming import name_of

__all__ = ["line_of", "summaries", "summarize", "tensor_id", "user_frame", "user_line"]

_ID = "_agdebug_id"
_TensorSummary = r.builder(r.TensorSummary)


def tensor_id(t) -> int:
    """Our stable id of torch tensor ``t`` (given on first sight, from agdebug's counter)."""
    tid = t.__dict__.get(_ID)
    if tid is None:
        tid = probe.new_tensor_id()   # one counter: ids never clash with agdebug tensors
        setattr(t, _ID, tid)
    return tid


def summarize(t) -> r.TensorSummary | None:
    """``t``'s summary (``None`` for ``None`` or a non-tensor); no device sync."""
    if t is None or not hasattr(t, "grad_fn"):
        return None
    if WATCH.values:
        return _summary(t, tensor_id(t), _stats(t))
    tid = tensor_id(t)
    # A tensor is usually summarised again a step later (an op's output is the next op's
    # input; a gradient leaves one node and enters the next): its last summary is reused
    # while all it says still holds (``.data =`` can change a tensor's shape, dtype, device).
    last = _SHARED.get(tid)
    if last is not None:
        summary, dtype = last
        if (t.dtype is dtype and t.shape == summary.shape and t.is_cpu
                and summary.name == name_of(tid)):
            return summary
    summary = _summary(t, tid, None)
    if summary.device == "cpu":
        if len(_SHARED) >= 4096:   # bounded: ids never repeat, old entries are just dropped
            _SHARED.clear()
        _SHARED[tid] = (summary, t.dtype)
    return summary


_SHARED: dict = {}   # tensor id -> (its last summary without values, its torch dtype)


def _summary(t, tid: int, stats) -> r.TensorSummary:
    return _TensorSummary(tid, tuple(t.shape), dtype_name(t.dtype), device_name(t),
                          t.nbytes, stats, name_of(tid))


_DTYPES: dict = {}
_DEVICES: dict = {}


def dtype_name(dtype) -> str:
    """``float32`` for torch.float32 (agdebug's names are torch's, without the module)."""
    name = _DTYPES.get(dtype)
    if name is None:
        name = _DTYPES[dtype] = str(dtype).removeprefix("torch.")
    return name


def device_name(t) -> str:
    if t.is_cpu:
        return "cpu"
    # ``t.device`` builds an object and ``str`` formats it: once per device index and type
    key = (t.get_device(), t.is_cuda)
    name = _DEVICES.get(key)
    if name is None:
        name = _DEVICES[key] = str(t.device)
    return name


def summaries(tensors) -> tuple:
    return tuple([summarize(t) for t in tensors])


def _stats(t) -> r.Stats:
    # Values were asked for: they cost a copy to the host (a sync on a GPU).
    data = t.detach().cpu().resolve_conj().resolve_neg().numpy()
    return probe.stats(data)


_TORCH = os.path.dirname(sys.modules["torch"].__file__) + os.sep if "torch" in sys.modules \
    else None
_LINES: dict = {}
_KINDS: dict = {}   # file name -> whether it is the user's (not agdebug's, not torch's)


def user_line() -> str:
    """``file.py:12: y = x * w``: the first frame on the stack outside agdebug and torch."""
    return line_of(user_frame(sys._getframe(1))[0])


def user_frame(frame) -> tuple:
    """The first user frame from ``frame`` on, and the ``torch.nn`` frames passed on the way
    (None when there were none): the library calls that may make several nodes."""
    library = None
    while frame is not None:
        name = frame.f_code.co_filename
        user = _KINDS.get(name)
        if user is None:
            user = _KINDS[name] = _is_user(name)
        if user:
            return frame, library
        if user is _LIBRARY:
            library = [frame] if library is None else [*library, frame]
        frame = frame.f_back
    return None, library


def line_of(frame) -> str:
    if frame is None:
        return ""
    key = (frame.f_code.co_filename, frame.f_lineno)
    line = _LINES.get(key)
    if line is None:
        if len(_LINES) >= 4096:   # bounded, as the probe's
            _LINES.clear()
        line = _LINES[key] = probe.format_line(*key)
    return line


# ``_KINDS``'s value for torch.nn's own files (false: not the user's, but a library call)
_LIBRARY = 0


def _is_user(name: str):
    torch_dir = _TORCH or os.path.dirname(sys.modules["torch"].__file__) + os.sep
    if name.startswith(torch_dir):
        nn = torch_dir + "nn" + os.sep
        # (Module.__call__'s machinery is not a library call: as agdebug's engine's own)
        library = name.startswith(nn) and not name.startswith(nn + "modules" + os.sep +
                                                                "module.py")
        return _LIBRARY if library else False
    if name.startswith("<frozen"):
        return False
    return probe.is_user_file(name)


def forget_lines() -> None:
    """A later watch rereads source lines (the files may have changed)."""
    _LINES.clear()
    _KINDS.clear()

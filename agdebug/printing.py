"""torch's tensor repr, ``tensor([1., 2.], requires_grad=True)``, and ``set_printoptions``.

The rules are torch's (``torch/_tensor_str.py``): one format for the whole tensor, chosen
from its non-zero finite values (integers as ``3.``, scientific when the largest is 1e8 or
more, or over 1000 times the smallest, or a non-integer below 1e-4), every element padded
to the widest; past ``threshold`` elements only ``edgeitems`` at each edge of each dimension
are shown, around ``...``; lines break at ``linewidth``; suffixes that do not fit the last
line go on their own.

>>> import agdebug as ag
>>> ag.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
>>> set_printoptions(precision=2)
>>> ag.tensor([1.0, 2.5])
tensor([1.00, 2.50])
>>> set_printoptions(profile="default")
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import backend

__all__ = ["set_printoptions", "tensor_repr"]

_DEFAULT_DTYPES = {np.dtype(np.int64), np.dtype(np.bool_)}   # with the default float


@dataclass
class _Options:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = _Options()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """torch.set_printoptions: a profile ("default", "short", "full") first, then each
    option given; ``sci_mode`` is always set (None: chosen per tensor), as in torch."""
    if profile in _PROFILES:
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def tensor_repr(t) -> str:
    array = backend.move_array(t._data, backend.CPU)
    prefix = "tensor("
    suffixes = []
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    if array.size == 0:
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype != backend.DEFAULT_FLOAT.np:
            suffixes.append(f"dtype={backend.get_dtype(array.dtype)!r}")
        body = "[]"
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype not in _DEFAULT_DTYPES and array.dtype != backend.DEFAULT_FLOAT.np:
            suffixes.append(f"dtype={backend.get_dtype(array.dtype)!r}")
        body = _tensor_str(array, len(prefix))
    if t._grad_fn is not None:
        # torch prints C++ nodes unqualified: <CopySlices>, not <torch::autograd::CopySlices>
        suffixes.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, len(prefix))


def _with_suffixes(text: str, suffixes: list, indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def _tensor_str(array: np.ndarray, indent: int) -> str:
    summarize = array.size > OPTIONS.threshold
    if array.dtype == np.float16:
        array = array.astype(np.float32)   # torch formats half values as floats
    shown = _summarized(array) if summarize else array
    return _nested(array, indent, summarize, _Formatter(shown))


def _summarized(array: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (they alone choose the format)."""
    edge = OPTIONS.edgeitems
    if array.ndim == 0:
        return array
    if array.ndim == 1:
        # (torch's quirk, kept: with edgeitems 0, ``[-0:]`` is every element)
        return np.concatenate([array[:edge], array[-edge:]]) if len(array) > 2 * edge \
            else array
    if not edge:
        return array[tuple(slice(0, 0) for _ in array.shape)]
    rows = list(range(edge)) + list(range(len(array) - edge, len(array))) \
        if len(array) > 2 * edge else range(len(array))
    return np.stack([_summarized(array[i]) for i in rows])


class _Formatter:
    """One format for every element, chosen from the elements shown."""

    def __init__(self, array: np.ndarray):
        self.floating = array.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = array.reshape(-1)
        if not self.floating:
            self.width = max([1, *(len(str(v)) for v in flat.tolist())])
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return   # (torch returns before reading sci_mode here)
        self._choose(finite)

    def _choose(self, finite: np.ndarray) -> None:
        values = finite.astype(np.float64)
        low, high = np.abs(values).min(), np.abs(values).max()
        self.int_mode = bool(np.all(values == np.ceil(values)))
        self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4) \
            if OPTIONS.sci_mode is None else OPTIONS.sci_mode
        precision = OPTIONS.precision
        if self.sci_mode:
            texts = (f"{v:.{precision}e}" for v in finite.tolist())
        elif self.int_mode:
            texts = (f"{v:.0f}." for v in finite.tolist())
        else:
            texts = (f"{v:.{precision}f}" for v in finite.tolist())
        self.width = max(self.width, *(len(text) for text in texts))

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{OPTIONS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{OPTIONS.precision}f}"
        return text.rjust(self.width)


def _nested(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector(array, indent, summarize, formatter)
    edge = OPTIONS.edgeitems
    if summarize and len(array) > 2 * edge:
        rows = [_nested(array[i], indent + 1, summarize, formatter) for i in range(edge)]
        rows += ["..."] + [_nested(array[i], indent + 1, summarize, formatter)
                           for i in range(len(array) - edge, len(array))]
    else:
        rows = [_nested(row, indent + 1, summarize, formatter) for row in array]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _vector(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    per_line = max(1, math.floor((OPTIONS.linewidth - indent) / (formatter.width + 2)))
    edge = OPTIONS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(array) > 2 * edge:
        items = [formatter.format(v) for v in array[:edge].tolist()] + [" ..."] + [
            formatter.format(v) for v in array[-edge:].tolist()]
    else:
        items = [formatter.format(v) for v in array.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"

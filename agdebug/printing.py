"""torch's tensor repr: ``tensor([1., 2.], requires_grad=True)``."""

from __future__ import annotations

import numpy as np

from . import backend

_DEFAULT_DTYPES = {np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_)}


def tensor_repr(t) -> str:
    array = backend.move_array(t._data, backend.CPU)
    prefix = "tensor("
    body = _format(array, prefix)
    suffix = []
    dev = t.device
    if dev.type != "cpu":
        suffix.append(f"device='{dev}'")
    if array.dtype not in _DEFAULT_DTYPES or array.size == 0 and array.dtype != np.float32:
        suffix.append(f"dtype={backend.get_dtype(array.dtype)!r}")
    if t._grad_fn is not None:
        # torch prints C++ nodes unqualified: <CopySlices>, not <torch::autograd::CopySlices>
        suffix.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    if array.size == 0 and array.ndim != 1:
        suffix.insert(0, f"size={tuple(array.shape)}")
    return prefix + body + "".join(", " + s for s in suffix) + ")"


def _format(array: np.ndarray, prefix: str) -> str:
    if array.dtype == np.bool_:
        width = 5 if not array.all() else 4   # torch pads True to the width of False
        formatter = {"bool": lambda v: ("True" if v else "False").rjust(width)}
        return np.array2string(array, separator=", ", prefix=prefix, formatter=formatter)
    if array.dtype.kind == "f":
        return _format_float(array, prefix)
    return np.array2string(array, separator=", ", prefix=prefix, threshold=1000, edgeitems=3)


def _format_float(array: np.ndarray, prefix: str) -> str:
    finite = (array[np.isfinite(array)] if array.size else array).astype(np.float64)
    sci = False
    if finite.size:
        big, small = np.abs(finite).max(), np.abs(finite[finite != 0]).min() if (
            finite != 0).any() else 0.0
        sci = big >= 1e8 or (small and big / small > 1000.0) or (small and small < 1e-4)
    integral = finite.size and bool(np.all(finite == np.round(finite))) and not sci
    if integral:
        one = _integral
    elif sci:
        one = "{:.4e}".format
    else:
        one = _fixed
    sample = finite.reshape(-1)[:1000] if finite.size <= 1000 else np.concatenate(
        [finite.reshape(-1)[:500], finite.reshape(-1)[-500:]])
    # torch sizes columns by the finite values; nan and inf are printed as they are.
    width = max((len(one(v)) for v in sample), default=0)
    fmt = {"float_kind": lambda v: one(v).rjust(width)}
    text = np.array2string(array, separator=", ", prefix=prefix, formatter=fmt,
                           threshold=1000, edgeitems=3, max_line_width=80)
    return text


def _integral(v: float) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.0f}."


def _fixed(v: float) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.4f}"

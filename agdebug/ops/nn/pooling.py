"""Pooling: max_pool2d, avg_pool2d, adaptive_avg_pool2d and their double-backward nodes,
with torch's checks of kernel, stride, padding and dilation."""

from __future__ import annotations

import math

import numpy as np

from ..core import tie_order
from ..core.registry import defop
from ..core.gradients import input_shape
from ..core.checks import c_div
from .convolution import _crop, _offsets, _pad, _padded_size, _unwindow, _windows


# ----------------------------------------------------------------------------- pooling

def check_pool_pads(kernel, stride, padding, dilation) -> None:
    """The checks of torch's ``pooling_output_shape``, dim by dim, in its words (C division:
    a kernel of 0 passes here, to be refused by the shape check that follows)."""
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > c_div((k - 1) * d + 1, 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")


def pool_out_size(size, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """torch's pooling output size along each spatial dim (with ceil_mode, a last window
    must start inside the input or its left padding)."""
    out = []
    for length, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        span = length + 2 * p - d * (k - 1) - 1
        n = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (n - 1) * s >= length + p:
            n -= 1
        out.append(n)
    return tuple(out)


def _pool_padding(size, out, kernel, stride, padding, dilation) -> tuple:
    """(low, high) per spatial dim: ``padding`` plus what ceil_mode's last window needs."""
    pads = []
    for n, o, k, s, p, d in zip(size, out, kernel, stride, padding, dilation):
        pads += [p, p + max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p))]
    return tuple(pads)


def max_pool(xp, x, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """(values, indices) of a max pool over the last ``len(kernel)`` dims (2 or 3); each
    index is the maximum's place in its input plane (or volume) read as one row."""
    size = x.shape[-len(kernel):]
    out = pool_out_size(size, kernel, stride, padding, dilation, ceil_mode)
    pads = _pool_padding(size, out, kernel, stride, padding, dilation)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = _pad(xp, x, pads, fill)
    if x.dtype.kind in "fiu" and all(out):
        return _scan_windows(xp, padded, kernel, stride, dilation, padding, size, out)
    return _gather_windows(xp, padded, kernel, stride, dilation, padding, size, out)


def _gather_windows(xp, padded, kernel, stride, dilation, padding, size, out) -> tuple:
    """``max_pool``'s values and indices from the window array, by ``pooled_max`` (any
    dtype, any sizes)."""
    dims = len(kernel)
    lead = padded.shape[:-dims]
    cols = _windows(xp, padded, kernel, stride, dilation, out)
    cols = cols.reshape(lead + (math.prod(kernel),) + out)   # not -1: a batch may be empty
    axis = -dims - 1
    best = tie_order.pooled_max(xp, cols, axis)
    values = xp.take_along_axis(cols, xp.expand_dims(best, axis), axis=axis).squeeze(axis)
    indices = 0
    for d in range(dims):   # the window's start plus the maximum's offset in it, per dim
        offset = best // math.prod(kernel[d + 1:]) % kernel[d]
        start = (xp.arange(out[d]) * stride[d]).reshape((-1,) + (1,) * (dims - 1 - d))
        indices = indices * size[d] + (start + offset * dilation[d] - padding[d])
    return values, indices.astype(np.int64)


def _scan_windows(xp, padded, kernel, stride, dilation, padding, size, out) -> tuple:
    """``max_pool``'s values and indices by torch's own loop, one kernel offset at a time
    over strided views of ``padded`` (no window array, no argmax along a middle axis): a
    value is taken when ``val > max || isnan(val)``, so the first of tied maxima and the last
    NaN, exactly what ``pooled_max`` picks. Each index is the window's start plus the
    offset's place in the plane: a constant per offset, added to the starts at the end."""
    dims = len(kernel)
    row = [math.prod(size[d + 1:]) for d in range(dims)]   # a step along dim d, in the plane
    starts = 0
    for d in range(dims):
        start = xp.arange(out[d]) * stride[d] - padding[d]
        starts = starts + start.reshape((-1,) + (1,) * (dims - 1 - d)) * row[d]
    floats = padded.dtype.kind == "f"
    values = indices = None
    for place, spans in _offsets(kernel, stride, dilation, out):
        window = padded[spans]   # (place: Ellipsis, the kernel offset per dim, then slices)
        offset = sum(o * dilation[d] * row[d] for d, o in enumerate(place[1:1 + dims]))
        if values is None:
            values = window.copy()
            indices = xp.full(window.shape, offset, dtype=np.int64)
            continue
        take = xp.greater(window, values)
        if floats:
            xp.logical_or(take, xp.isnan(window), out=take)
        xp.copyto(values, window, where=take)
        xp.copyto(indices, offset, where=take)
    indices += starts
    return values, indices


@defop("max_pool2d", node="MaxPool2DWithIndicesBackward0", saves=("x", "indices"),
       extras=("indices",), saved_as={"indices": "result1"})
def max_pool2d(xp, x, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1),
               ceil_mode=False):
    return max_pool(xp, x, kernel_size, stride, padding, dilation, ceil_mode)


@max_pool2d.vjp
def max_pool2d_vjp(ctx, grad):
    return (max_pool2d_scatter(grad, ctx.indices, input_hw=tuple(input_shape(ctx, 0)[-2:])),)


@defop("max_pool2d_scatter", node="MaxPool2DWithIndicesBackwardBackward0", saves=("indices",))
def max_pool2d_scatter(xp, g, indices, input_hw=(1, 1)):
    lead = g.shape[:-2]
    planes, size = int(np.prod(lead)), input_hw[0] * input_hw[1]
    flat = indices.reshape(planes, -1) + (xp.arange(planes) * size).reshape(-1, 1)
    out = xp.bincount(flat.reshape(-1), weights=g.reshape(-1), minlength=planes * size)
    return out.astype(g.dtype).reshape(lead + tuple(input_hw))


@max_pool2d_scatter.vjp
def max_pool2d_scatter_vjp(ctx, grad):
    # torch's max_pool_double_backward: flatten the image, gather, view as the pooled shape.
    indices = ctx.indices
    flat = tuple(indices.shape[:-2]) + (-1,)
    picked = max_pool2d_gather(grad.reshape(flat), indices.reshape(flat))
    return picked.reshape(tuple(indices.shape)), None


@defop("max_pool2d_gather", node="GatherBackward0", saves=("x", "indices"),
       saved_as={"indices": "index"})
def max_pool2d_gather(xp, x, indices):
    """torch's ``x.gather(-1, indices)`` of flattened planes (..., H * W)."""
    return xp.take_along_axis(x, indices, axis=-1)


@max_pool2d_gather.vjp
def max_pool2d_gather_vjp(ctx, grad):
    indices, shape = ctx.indices, input_shape(ctx, 0)
    rows = tuple(indices.shape[:-1]) + (1, -1)   # each plane as one row of the scatter
    image = max_pool2d_scatter(grad.reshape(rows), indices.reshape(rows),
                               input_hw=(1, shape[-1]))
    return image.reshape(tuple(shape)), None


def _avg_divisor(xp, size, out, dtype, kernel, stride, padding, count_include_pad,
                 divisor_override):
    """Each window's divisor: its cells inside the input (and the padding, if counted)."""
    if divisor_override:
        return divisor_override
    ones = (1,) * len(kernel)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    counted = xp.zeros(_padded_size(size, pads), dtype)
    if count_include_pad:
        counted[tuple(slice(0, n + 2 * p) for n, p in zip(size, padding))] = 1
    else:
        counted[tuple(slice(p, p + n) for n, p in zip(size, padding))] = 1
    return _windows(xp, counted, kernel, stride, ones, out).sum(axis=tuple(range(len(kernel))))


def avg_pool(xp, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """An average pool over the last ``len(kernel)`` dims (2 or 3)."""
    dims, ones = len(kernel), (1,) * len(kernel)
    size = x.shape[-dims:]
    out = pool_out_size(size, kernel, stride, padding, ones, ceil_mode)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    sums = _windows(xp, _pad(xp, x, pads), kernel, stride, ones, out).sum(
        axis=tuple(range(-2 * dims, -dims)))
    divisor = _avg_divisor(xp, size, out, x.dtype, kernel, stride, padding, count_include_pad,
                           divisor_override)
    return (sums / divisor).astype(x.dtype, copy=False)


def avg_pool_backward(xp, g, size, kernel, stride, padding, count_include_pad,
                      divisor_override):
    """The adjoint of :func:`avg_pool`: each window's share of ``g`` spread back over it."""
    dims, ones = len(kernel), (1,) * len(kernel)
    out = tuple(g.shape[-dims:])
    divisor = _avg_divisor(xp, size, out, g.dtype, kernel, stride, padding, count_include_pad,
                           divisor_override)
    share = (g / divisor).reshape(g.shape[:-dims] + ones + out)
    cols = xp.broadcast_to(share, g.shape[:-dims] + tuple(kernel) + out)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    padded = _unwindow(xp, cols, _padded_size(size, pads), stride, ones)
    return _crop(padded, pads, size).astype(g.dtype, copy=False)


@defop("avg_pool2d", node="AvgPool2DBackward0", saves=("x",))
def avg_pool2d(xp, x, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return avg_pool(xp, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override)


def _avg_attrs(ctx) -> dict:
    return {k: getattr(ctx, k) for k in ("kernel_size", "stride", "padding", "ceil_mode",
                                         "count_include_pad", "divisor_override")}


@avg_pool2d.vjp
def avg_pool2d_vjp(ctx, grad):
    hw = tuple(input_shape(ctx, 0)[-2:])
    return (avg_pool2d_backward(grad, input_hw=hw, **_avg_attrs(ctx)),)


@defop("avg_pool2d_backward", node="AvgPool2DBackwardBackward0")
def avg_pool2d_backward(xp, g, input_hw=(1, 1), kernel_size=(1, 1), stride=(1, 1),
                        padding=(0, 0), ceil_mode=False, count_include_pad=True,
                        divisor_override=None):
    return avg_pool_backward(xp, g, input_hw, kernel_size, stride, padding, count_include_pad,
                             divisor_override)


@avg_pool2d_backward.vjp
def avg_pool2d_backward_vjp(ctx, grad):
    return (avg_pool2d(grad, **_avg_attrs(ctx)),)


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """(out, size): row i averages torch's window i, floor(i*size/out) to ceil((i+1)*size/out)."""
    matrix = xp.zeros((out, size), dtype=dtype)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


@defop("adaptive_avg_pool2d", node="AdaptiveAvgPool2DBackward0", saves=("x",))
def adaptive_avg_pool2d(xp, x, output_size=(1, 1)):
    """Each output cell the mean of its window: ``P_h @ x @ P_w.T`` with averaging matrices."""
    rows = _adaptive_matrix(xp, x.shape[-2], output_size[0], x.dtype)
    cols = _adaptive_matrix(xp, x.shape[-1], output_size[1], x.dtype)
    return xp.matmul(xp.matmul(rows, x), cols.T)


@adaptive_avg_pool2d.vjp
def adaptive_avg_pool2d_vjp(ctx, grad):
    hw = tuple(input_shape(ctx, 0)[-2:])
    return (adaptive_avg_pool2d_backward(grad, input_hw=hw),)


@defop("adaptive_avg_pool2d_backward", node="AdaptiveAvgPool2DBackwardBackward0")
def adaptive_avg_pool2d_backward(xp, g, input_hw=(1, 1)):
    rows = _adaptive_matrix(xp, input_hw[0], g.shape[-2], g.dtype)
    cols = _adaptive_matrix(xp, input_hw[1], g.shape[-1], g.dtype)
    return xp.matmul(xp.matmul(rows.T, g), cols)


@adaptive_avg_pool2d_backward.vjp
def adaptive_avg_pool2d_backward_vjp(ctx, grad):
    return (adaptive_avg_pool2d(grad, output_size=tuple(input_shape(ctx, 0)[-2:])),)

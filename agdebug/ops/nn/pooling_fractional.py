"""Fractional max pooling (Graham, 2014) on images (2d) and volumes (3d), as torch's CPU kernel.

Each plane's windows start where torch's ``generate_intervals`` puts them, from that plane's
``_random_samples`` (in the input's dtype: ``int((i + u) * alpha) - int(u * alpha)`` with
``alpha = (size - pool) / (out - 1)``, the last window flush with the end); a 2d plane reads
its samples as (w, h), a 3d one as (t, h, w). The maximum is the first of tied maxima, or the
last NaN, with the flat index in its plane as torch's; the derivative scatters the gradient
there (FractionalMaxPool2DBackwardBackward0), and that scatter's derivative gathers back, as
torch's ``max_pool_double_backward``.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import tie_order
from ..core.registry import defop
from .pooling_adaptive_max import _scatter, scatter_backward_vjp

# which column of a plane's samples drives each spatial dim (torch's kernels)
_SAMPLE_COLUMN = {2: (1, 0), 3: (0, 1, 2)}


def _starts(xp, u, size: int, out: int, pool: int):
    """torch's ``generate_intervals`` for the samples ``u`` (one per plane): (planes, out)."""
    starts = xp.empty(u.shape + (out,), dtype=np.int64)
    if out > 1:
        dt = u.dtype.type
        alpha = dt(dt(size - pool) / dt(out - 1))
        steps = xp.arange(out - 1).astype(u.dtype)
        starts[:, :-1] = (((steps + u[:, None]) * alpha).astype(np.int64)
                          - (u * alpha).astype(np.int64)[:, None])
    if out > 0:
        starts[:, -1] = size - pool
    return starts


def _window_indices(xp, samples, size: tuple, out: tuple, kernel: tuple):
    """The flat in-plane index of every window element: (planes, *out, prod(kernel)); an
    empty kernel gives each window's start alone (where torch's loop leaves its index)."""
    n = len(size)
    flat = 0
    for d in range(n):
        starts = _starts(xp, samples[:, _SAMPLE_COLUMN[n][d]], size[d], out[d], kernel[d])
        span = max(kernel[d], 1)
        places = starts[:, :, None] + xp.arange(span)
        shape = [len(samples)] + [1] * (2 * n)
        shape[1 + d], shape[1 + n + d] = out[d], span
        flat = flat + places.reshape(shape) * math.prod(size[d + 1:])
    return flat.reshape((len(samples),) + out + (math.prod(max(k, 1) for k in kernel),))


def _fractional_max(xp, x, kernel: tuple, out: tuple, samples):
    """The maxima of the fractional windows over x's last len(out) dims, and their indices."""
    n = len(out)
    lead, size = x.shape[:x.ndim - n], x.shape[x.ndim - n:]
    planes = math.prod(lead)
    samples = samples[:lead[0] if len(lead) == 2 else 1].reshape(planes, n)
    where = _window_indices(xp, samples, size, out, kernel)
    if not math.prod(kernel):   # an empty window: torch's -inf, at the window's start
        indices = where[..., 0]
        return xp.full(indices.shape, -np.inf, dtype=x.dtype).reshape(lead + out), \
            indices.reshape(lead + out)
    flat = (planes, math.prod(where.shape[1:]))
    windows = xp.take_along_axis(x.reshape(planes, math.prod(size)), where.reshape(flat), axis=-1)
    windows = windows.reshape(where.shape)
    best = tie_order.pooled_max(xp, windows, -1)[..., None]
    values = xp.take_along_axis(windows, best, axis=-1)[..., 0]
    indices = xp.take_along_axis(where, best, axis=-1)[..., 0]
    return values.reshape(lead + out), indices.reshape(lead + out)


@defop("fractional_max_pool2d", node="FractionalMaxPool2DBackward0", outputs=2,
       nondiff_outputs=(1,), extras=("indices",), saves=("x", "indices"),
       saved_as={"indices": "result1", "samples": None})
def fractional_max_pool2d(xp, x, kernel_size=(1, 1), output_size=(1, 1), samples=None):
    """(..., H, W) to (..., oh, ow) maxima of the fractional windows, and their flat indices."""
    values, indices = _fractional_max(xp, x, tuple(kernel_size), tuple(output_size), samples)
    return (values, indices), indices


@fractional_max_pool2d.vjp
def fractional_max_pool2d_vjp(ctx, grad, *_):   # (the indices get no gradient)
    return (fractional_max_pool2d_backward(grad, ctx.x, indices=ctx.indices._data,
                                           kernel_size=ctx.kernel_size,
                                           output_size=ctx.output_size),)


@defop("fractional_max_pool2d_backward", node="FractionalMaxPool2DBackwardBackward0",
       saves=("indices=array",), saved_as={"kernel_size": None, "output_size": None})
def fractional_max_pool2d_backward(xp, g, x, indices=None, kernel_size=(1, 1),
                                   output_size=(1, 1)):
    """Each pooled gradient added at its maximum's place in a zero image shaped like ``x``."""
    return _scatter(xp, g, indices, tuple(x.shape[-2:]))


@fractional_max_pool2d_backward.vjp
def fractional_max_pool2d_backward_vjp(ctx, grad):
    return scatter_backward_vjp(ctx, grad, 2)


@defop("fractional_max_pool3d", node="FractionalMaxPool3DBackward0", outputs=2,
       nondiff_outputs=(1,), extras=("indices",), saves=("x", "indices"),
       saved_as={"indices": "result1", "samples": None})
def fractional_max_pool3d(xp, x, kernel_size=(1, 1, 1), output_size=(1, 1, 1), samples=None):
    """(..., T, H, W) to (..., ot, oh, ow) maxima of the fractional windows, and indices."""
    values, indices = _fractional_max(xp, x, tuple(kernel_size), tuple(output_size), samples)
    return (values, indices), indices


@fractional_max_pool3d.vjp
def fractional_max_pool3d_vjp(ctx, grad, *_):
    return (fractional_max_pool3d_backward(grad, ctx.x, indices=ctx.indices._data,
                                           kernel_size=ctx.kernel_size,
                                           output_size=ctx.output_size),)


@defop("fractional_max_pool3d_backward", node="FractionalMaxPool3DBackwardBackward0",
       saves=("indices=array",), saved_as={"kernel_size": None, "output_size": None})
def fractional_max_pool3d_backward(xp, g, x, indices=None, kernel_size=(1, 1, 1),
                                   output_size=(1, 1, 1)):
    """Each pooled gradient added at its maximum's place in a zero volume shaped like ``x``."""
    return _scatter(xp, g, indices, tuple(x.shape[-3:]))


@fractional_max_pool3d_backward.vjp
def fractional_max_pool3d_backward_vjp(ctx, grad):
    return scatter_backward_vjp(ctx, grad, 3)

"""Adaptive max pooling and max unpooling, on images (2d) and volumes (3d).

``adaptive_max_pool2d`` takes the maximum of torch's adaptive windows (row window i spans
floor(i * H / oh) to ceil((i + 1) * H / oh)) and returns the flat index of each maximum in
its H * W plane; its derivative scatters the gradient to those places
(AdaptiveMaxPool2DBackwardBackward0), whose derivative in turn gathers from them, as torch's
``max_pool_double_backward`` does (ViewBackward0 over GatherBackward0). ``max_unpool2d``
(MaxUnpool2DBackward0) is that scatter as a forward op, with that gather as its derivative.
The 3d ops are the same on D * H * W volumes, with torch's 3D node names.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...tensor import Tensor
from ..core import tie_order
from .pooling import max_pool2d_scatter
from ..core.registry import defop
from ..core.gradients import needs, zeros_grad


def _scatter(xp, g, indices, size: tuple):
    """Zero (..., *size) planes with ``g`` added at the flat ``indices`` of each plane."""
    lead = g.shape[:g.ndim - len(size)]
    if not g.size or not math.prod(size):
        return xp.zeros(lead + size, dtype=g.dtype)
    rows = lead + (1, -1)   # each plane read as one row of a max_pool2d image
    flat = max_pool2d_scatter.forward(xp, g.reshape(rows), indices.reshape(rows),
                                      input_hw=(1, math.prod(size)))
    return flat.reshape(lead + size)


def _window(i: int, size: int, out: int) -> tuple:
    return (i * size) // out, -(-((i + 1) * size) // out)


def _adaptive_max(xp, x, output_size: tuple):
    """The maxima of the adaptive windows over x's last len(output_size) dims, and the flat
    index of each in its plane (or volume)."""
    n = len(output_size)
    lead, size = x.shape[:x.ndim - n], x.shape[x.ndim - n:]
    values = xp.empty(lead + output_size, dtype=x.dtype)
    indices = xp.empty(lead + output_size, dtype=np.int64)
    strides = [math.prod(size[d + 1:]) for d in range(n)]
    for out in itertools.product(*map(range, output_size)):
        bounds = [_window(i, s, o) for i, s, o in zip(out, size, output_size)]
        extent = tuple(b - a for a, b in bounds)
        window = x[(Ellipsis, *(slice(a, b) for a, b in bounds))]
        window = window.reshape(lead + (math.prod(extent),))
        best = tie_order.pooled_max(xp, window, -1)
        values[(Ellipsis, *out)] = xp.take_along_axis(window, best[..., None], axis=-1)[..., 0]
        place = xp.unravel_index(best, extent)
        indices[(Ellipsis, *out)] = sum((a + p) * st for (a, _), p, st in
                                        zip(bounds, place, strides))
    return values, indices


@defop("adaptive_max_pool2d", node="AdaptiveMaxPool2DBackward0", outputs=2,
       nondiff_outputs=(1,), extras=("indices",), saves=("x", "indices"),
       saved_as={"indices": "result1", "output_size": None})
def adaptive_max_pool2d(xp, x, output_size=(1, 1)):
    """(..., H, W) to (..., oh, ow) maxima, and their flat indices in each H * W plane."""
    values, indices = _adaptive_max(xp, x, tuple(output_size))
    return (values, indices), indices


@adaptive_max_pool2d.vjp
def adaptive_max_pool2d_vjp(ctx, grad, *_):   # (the indices get no gradient)
    return (adaptive_max_pool2d_backward(grad, ctx.x, indices=ctx.indices._data),)


@defop("adaptive_max_pool2d_backward", node="AdaptiveMaxPool2DBackwardBackward0",
       saves=("indices=array",))
def adaptive_max_pool2d_backward(xp, g, x, indices=None):
    """Each pooled gradient added at its maximum's place in a zero image shaped like ``x``."""
    return _scatter(xp, g, indices, tuple(x.shape[-2:]))


@adaptive_max_pool2d_backward.vjp
def adaptive_max_pool2d_backward_vjp(ctx, grad):
    return scatter_backward_vjp(ctx, grad, 2)


def scatter_backward_vjp(ctx, grad, dim: int):
    """The vjp of a max pool's backward (a scatter of ``g`` to its maxima in planes or
    volumes of ``dim`` dims): for ``g``, the gradient read back at each maximum; for
    ``self``, torch's zeros_like(self) (the scatter reads only its shape)."""
    grad_g = max_pool_double_backward(grad, ctx.indices, dim) if needs(ctx, 0) else None
    grad_x = zeros_grad(grad, tuple(grad.shape)) if needs(ctx, 1) else None
    return grad_g, grad_x


def max_pool_double_backward(grad, indices, dim: int):
    """torch's composite: the gradient at each pooled maximum, read from the flat planes."""
    shape = tuple(indices.shape)
    flat = shape[:len(shape) - dim] + (-1,)
    if not int(np.prod(shape)):
        return zeros_grad(grad, shape)
    index = Tensor._wrap(indices.reshape(flat))
    return grad.view(flat).gather(-1, index).view(shape)


# ----------------------------------------------------------------------------- max unpooling

@defop("max_unpool2d", node="MaxUnpool2DBackward0", saves=("indices=array",))
def max_unpool2d(xp, x, indices=None, output_size=(1, 1)):
    """(..., h, w) values placed at their flat ``indices`` in zero (..., H, W) planes."""
    return _scatter(xp, x, indices, tuple(output_size))


@max_unpool2d.vjp
def max_unpool2d_vjp(ctx, grad):
    return (max_pool_double_backward(grad, ctx.indices, 2),)


# ----------------------------------------------------------------------------- volumes (3d)

@defop("adaptive_max_pool3d", node="AdaptiveMaxPool3DBackward0", outputs=2,
       nondiff_outputs=(1,), extras=("indices",), saves=("x", "indices"),
       saved_as={"indices": "result1", "output_size": None})
def adaptive_max_pool3d(xp, x, output_size=(1, 1, 1)):
    """(..., D, H, W) to (..., od, oh, ow) maxima, and their flat indices in each volume."""
    values, indices = _adaptive_max(xp, x, tuple(output_size))
    return (values, indices), indices


@adaptive_max_pool3d.vjp
def adaptive_max_pool3d_vjp(ctx, grad, *_):   # (the indices get no gradient)
    return (adaptive_max_pool3d_backward(grad, ctx.x, indices=ctx.indices._data),)


@defop("adaptive_max_pool3d_backward", node="AdaptiveMaxPool3DBackwardBackward0",
       saves=("indices=array",))
def adaptive_max_pool3d_backward(xp, g, x, indices=None):
    """Each pooled gradient added at its maximum's place in a zero volume shaped like ``x``."""
    return _scatter(xp, g, indices, tuple(x.shape[-3:]))


@adaptive_max_pool3d_backward.vjp
def adaptive_max_pool3d_backward_vjp(ctx, grad):
    return scatter_backward_vjp(ctx, grad, 3)


@defop("max_unpool3d", node="MaxUnpool3DBackward0", saves=("indices=array",),
       saved_as={"output_size": None})   # (torch keeps only the indices)
def max_unpool3d(xp, x, indices=None, output_size=(1, 1, 1)):
    """(..., d, h, w) values placed at their flat ``indices`` in zero (..., D, H, W) volumes."""
    return _scatter(xp, x, indices, tuple(output_size))


@max_unpool3d.vjp
def max_unpool3d_vjp(ctx, grad):
    return (max_pool_double_backward(grad, ctx.indices, 3),)

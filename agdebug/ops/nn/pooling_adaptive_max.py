"""Adaptive max pooling and max unpooling.

``adaptive_max_pool2d`` takes the maximum of torch's adaptive windows (row window i spans
floor(i * H / oh) to ceil((i + 1) * H / oh)) and returns the flat index of each maximum in
its H * W plane; its derivative scatters the gradient to those places
(AdaptiveMaxPool2DBackwardBackward0), whose derivative in turn gathers from them, as torch's
``max_pool_double_backward`` does (ViewBackward0 over GatherBackward0). ``max_unpool2d``
(MaxUnpool2DBackward0) is that scatter as a forward op, with that gather as its derivative.
"""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ..core import tie_order
from .pooling import max_pool2d_scatter
from ..core.registry import defop
from ..core.gradients import needs, zeros_grad


def _scatter(xp, g, indices, hw: tuple):
    """Zero (..., H, W) planes with ``g`` added at the flat ``indices`` of each plane."""
    if not g.size or not hw[0] * hw[1]:
        return xp.zeros(g.shape[:-2] + hw, dtype=g.dtype)
    return max_pool2d_scatter.forward(xp, g, indices, input_hw=hw)


def _window(i: int, size: int, out: int) -> tuple:
    return (i * size) // out, -(-((i + 1) * size) // out)


@defop("adaptive_max_pool2d", node="AdaptiveMaxPool2DBackward0", outputs=2,
       nondiff_outputs=(1,), extras=("indices",), saves=("x", "indices"),
       saved_as={"indices": "result1", "output_size": None})
def adaptive_max_pool2d(xp, x, output_size=(1, 1)):
    """(..., H, W) to (..., oh, ow) maxima, and their flat indices in each H * W plane."""
    lead, (h, w) = x.shape[:-2], x.shape[-2:]
    values = xp.empty(lead + tuple(output_size), dtype=x.dtype)
    indices = xp.empty(lead + tuple(output_size), dtype=np.int64)
    for i in range(output_size[0]):
        top, bottom = _window(i, h, output_size[0])
        for j in range(output_size[1]):
            left, right = _window(j, w, output_size[1])
            width = right - left
            window = x[..., top:bottom, left:right].reshape(lead + ((bottom - top) * width,))
            best = tie_order.pooled_max(xp, window, -1)
            values[..., i, j] = xp.take_along_axis(window, best[..., None], axis=-1)[..., 0]
            indices[..., i, j] = (top + best // width) * w + left + best % width
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
    grad_g = max_pool_double_backward(grad, ctx.indices, 2) if needs(ctx, 0) else None
    # torch's derivative for ``self`` is zeros_like(self): the scatter reads only its shape
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

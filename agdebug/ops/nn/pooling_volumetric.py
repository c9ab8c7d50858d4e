"""3D pooling: ``max_pool3d``, ``avg_pool3d`` and ``adaptive_avg_pool3d`` on (..., D, H, W).

The max and average pools are :mod:`.nn`'s, which pool over two or three dims. Each op's
derivative is an op of this module whose own derivative is the forward again (the max
pool's: a scatter, whose derivative gathers with :mod:`.nn`'s ``max_pool2d_gather``), as
torch records them.
"""

from __future__ import annotations

import math


from .pooling import (_adaptive_matrix, _avg_attrs, avg_pool, avg_pool_backward, max_pool,
                      max_pool2d_gather, max_pool2d_scatter)
from ..core.registry import defop
from ..core.gradients import input_shape

_ONES = (1, 1, 1)


# ----------------------------------------------------------------------------- max

@defop("max_pool3d", node="MaxPool3DWithIndicesBackward0", saves=("x", "indices"),
       extras=("indices",), saved_as={"indices": "result1"})
def max_pool3d(xp, x, kernel_size=_ONES, stride=_ONES, padding=(0, 0, 0), dilation=_ONES,
               ceil_mode=False):
    return max_pool(xp, x, kernel_size, stride, padding, dilation, ceil_mode)


@max_pool3d.vjp
def max_pool3d_vjp(ctx, grad):
    size = tuple(input_shape(ctx, 0)[-3:])
    return (max_pool3d_scatter(grad, ctx.indices, input_size=size),)


def _flat(shape, lead_dims: int) -> tuple:
    """``shape`` with its last three dims as one row: (..., 1, D * H * W)."""
    return tuple(shape[:lead_dims]) + (1, math.prod(shape[lead_dims:]))


@defop("max_pool3d_scatter", node="MaxPool3DWithIndicesBackwardBackward0", saves=("indices",))
def max_pool3d_scatter(xp, g, indices, input_size=_ONES):
    """Each pooled gradient added at its maximum's place: max_pool2d's scatter on volumes
    read as rows of one image."""
    lead = g.ndim - 3
    if g.size == 0:   # (an empty batch: nothing to scatter, and no row length to infer)
        return xp.zeros(g.shape[:-3] + tuple(input_size), dtype=g.dtype)
    flat = max_pool2d_scatter.forward(xp, g.reshape(_flat(g.shape, lead)),
                                      indices.reshape(_flat(indices.shape, lead)),
                                      (1, math.prod(input_size)))
    return flat.reshape(g.shape[:-3] + tuple(input_size))


@max_pool3d_scatter.vjp
def max_pool3d_scatter_vjp(ctx, grad):
    # torch's max_pool_double_backward: flatten the volume, gather, view as the pooled shape.
    indices = ctx.indices
    shape, lead = tuple(indices.shape), len(indices.shape) - 3
    flat = shape[:lead] + (-1,)
    picked = max_pool2d_gather(grad.reshape(flat), indices.reshape(flat))
    return picked.reshape(shape), None


# ----------------------------------------------------------------------------- average

@defop("avg_pool3d", node="AvgPool3DBackward0", saves=("x",))
def avg_pool3d(xp, x, kernel_size=_ONES, stride=_ONES, padding=(0, 0, 0), ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return avg_pool(xp, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override)


@avg_pool3d.vjp
def avg_pool3d_vjp(ctx, grad):
    size = tuple(input_shape(ctx, 0)[-3:])
    return (avg_pool3d_backward(grad, input_size=size, **_avg_attrs(ctx)),)


@defop("avg_pool3d_backward", node="AvgPool3DBackwardBackward0")
def avg_pool3d_backward(xp, g, input_size=_ONES, kernel_size=_ONES, stride=_ONES,
                        padding=(0, 0, 0), ceil_mode=False, count_include_pad=True,
                        divisor_override=None):
    return avg_pool_backward(xp, g, input_size, kernel_size, stride, padding,
                             count_include_pad, divisor_override)


@avg_pool3d_backward.vjp
def avg_pool3d_backward_vjp(ctx, grad):
    return (avg_pool3d(grad, **_avg_attrs(ctx)),)


# ----------------------------------------------------------------------------- adaptive

def _apply(xp, x, size_from, size_to, transpose: bool):
    """Average along each of the last three dims with torch's adaptive windows (or, with
    ``transpose``, spread each mean back over its window)."""
    for axis, (n, o) in enumerate(zip(size_from, size_to)):
        matrix = _adaptive_matrix(xp, n, o, x.dtype)
        x = xp.moveaxis(xp.tensordot(x, matrix.T if not transpose else matrix,
                                     axes=([x.ndim - 3 + axis], [0])), -1, x.ndim - 3 + axis)
    return x


@defop("adaptive_avg_pool3d", node="AdaptiveAvgPool3DBackward0", saves=("x",))
def adaptive_avg_pool3d(xp, x, output_size=_ONES):
    """Each output cell the mean of its window (torch's floor/ceil window bounds)."""
    return _apply(xp, x, x.shape[-3:], output_size, False)


@adaptive_avg_pool3d.vjp
def adaptive_avg_pool3d_vjp(ctx, grad):
    shape = tuple(grad.shape)
    for dim in range(1, len(shape)):   # torch's backward refuses an empty output
        if shape[dim] == 0:
            raise RuntimeError("adaptive_avg_pool3d_backward(): Expected grad_output to have "
                               "non-zero size for non-batch dimensions, but grad_output has "
                               f"sizes {list(shape)} with dimension {dim} being empty")
    size = tuple(input_shape(ctx, 0)[-3:])
    return (adaptive_avg_pool3d_backward(grad, input_size=size),)


@defop("adaptive_avg_pool3d_backward", node="AdaptiveAvgPool3DBackwardBackward0")
def adaptive_avg_pool3d_backward(xp, g, input_size=_ONES):
    return _apply(xp, g, input_size, g.shape[-3:], True)


@adaptive_avg_pool3d_backward.vjp
def adaptive_avg_pool3d_backward_vjp(ctx, grad):
    return (adaptive_avg_pool3d(grad, output_size=tuple(input_shape(ctx, 0)[-3:])),)

"""``masked_select`` and ``masked_scatter``."""

from __future__ import annotations

import numpy as np

from ... import backend
from ...tensor import Tensor
from .gather_scatter import (_on, _pad, masked_fill_op)
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.gradients import input_shape, needs, zeros_grad
from .index_fill_copy import _legacy


# ----------------------------------------------------------------------------- masked_select

@defop("masked_select", node="MaskedSelectBackward0", saves=("x", "mask=array"))
def masked_select_op(xp, x, mask=None):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return xp.broadcast_to(x, shape)[xp.broadcast_to(mask, shape)]


@masked_select_op.vjp
def masked_select_vjp(ctx, grad):
    """Scattered back into the broadcast shape (the engine sums it to the input's)."""
    shape = np.broadcast_shapes(input_shape(ctx, 0), ctx.mask.shape)
    mask = backend.xp_of(ctx.mask).broadcast_to(ctx.mask, shape)
    return (masked_scatter_op(zeros_grad(grad, shape), grad, mask=mask),)


def _check_bool_mask(name: str, mask: Tensor) -> None:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a 1-d tensor (broadcasting).

    >>> import agdebug as ag
    >>> ag.tensor([1.0, 2.0, 3.0]).masked_select(ag.tensor([True, False, True]))
    tensor([1., 3.])
    """
    _check_bool_mask("masked_select", mask)
    return masked_select_op(input, mask=_on(mask, input))


# ----------------------------------------------------------------------------- masked_scatter

@defop("masked_scatter", node="MaskedScatterBackward0", saves=("mask=array",))
def masked_scatter_op(xp, x, source, mask=None):
    out = x.copy()
    mask = xp.broadcast_to(mask, x.shape)
    count = int(mask.sum())
    out[mask] = source.reshape(-1)[:count]
    return out


@masked_scatter_op.vjp
def masked_scatter_vjp(ctx, grad):
    mask = backend.xp_of(ctx.mask).broadcast_to(ctx.mask, tuple(grad.shape))
    grad_x = masked_fill_op(grad, mask=mask, value=0.0) if needs(ctx, 0) else None
    grad_source = None
    if needs(ctx, 1):
        shape = input_shape(ctx, 1)
        taken = masked_select_op(grad, mask=mask)
        grad_source = _pad(taken, (int(np.prod(shape)),)).reshape(shape)
    return grad_x, grad_source


def _scatter_args(x: Tensor, mask: Tensor, source: Tensor):
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_legacy(mask)}")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but "
                           f"got {_legacy(x)} and {_legacy(source)}")
    mask = _on(mask, x)
    if int(backend.xp_of(mask).broadcast_to(mask, x.shape).sum()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return mask


def masked_scatter(input, mask, source):
    """``input`` with ``source``'s elements, in order, written where ``mask`` is True."""
    return masked_scatter_op(input, source, mask=_scatter_args(input, mask, source))


def masked_scatter_(self, mask, source):
    return apply_inplace(masked_scatter_op, self, (source,),
                         {"mask": _scatter_args(self, mask, source)})

"""Weight normalization: ``_weight_norm``, ``norm_except_dim`` and their one fused node.

``_weight_norm(v, g, dim)`` is ``v * (g / ||v||)``, the norm taken over every dim but ``dim``.
As in torch, ``dim`` 0 or the last dim run one fused op (WeightNormInterfaceBackward0); any
other ``dim`` (``-1`` means "the whole tensor") is built from views, a norm, a division and a
product, so the graph has torch's nodes.

>>> import agdebug as ag
>>> v = ag.tensor([[3.0, 4.0], [0.0, 2.0]], requires_grad=True)
>>> ag._weight_norm(v, ag.tensor([[1.0], [3.0]]), 0)
tensor([[0.6000, 0.8000],
        [0.0000, 3.0000]], grad_fn=<WeightNormInterfaceBackward0>)
"""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ..reduction import norms as norms_ops
from .loss_pieces import norm_p_dim
from ..core.registry import defop
from ..core.gradients import needs

__all__ = ["norm_except_dim", "weight_norm"]

# ``at::norm(self, p)`` over the whole tensor: linalg.vector_norm's maths under the node torch
# gives that overload, NormBackward0 (``norm_except_dim(v, p, -1)`` records it).
norm_p = defop("norm_p", node="NormBackward0", saves=("x", "result"))(norms_ops.norm.forward)
norm_p.vjp(norms_ops.norm_vjp)


def _other_dims(ndim: int, dim: int) -> tuple:
    return tuple(d for d in range(ndim) if d != dim)


@defop("weight_norm_interface", node="WeightNormInterfaceBackward0", outputs=2,
       nondiff_outputs=(1,), saves=("v", "g", "norms=result1"))
def weight_norm_interface(xp, v, g, dim=0):
    # The norms are computed in float32 at least, as torch's kernel accumulates them.
    wide = v.astype(np.promote_types(v.dtype, np.float32), copy=False)
    norms = xp.sqrt(xp.sum(wide * wide, axis=_other_dims(v.ndim, dim), keepdims=True))
    scale = g.reshape(norms.shape) / norms   # g holds one value per slice, whatever its shape
    return (v * scale).astype(v.dtype, copy=False), norms


@weight_norm_interface.vjp
def weight_norm_interface_vjp(ctx, grad):
    # torch's _weight_norm_differentiable_backward, with the norms recomputed from v so that
    # the second derivative sees them depend on v (torch's own treats them as constants).
    v, g = ctx.v, ctx.g
    dims = _other_dims(v.ndim, ctx.dim)
    norms = norms_ops.norm(v, ord=2.0, dim=dims, keepdim=True)
    per_slice = (grad * v).sum(dims, keepdim=True)
    grad_v = grad_g = None
    if needs(ctx, 0):
        scale = g.reshape(tuple(norms.shape)) / norms
        grad_v = scale * (grad - v * (per_slice / (norms * norms)))
    if needs(ctx, 1):
        grad_g = (per_slice / norms).reshape(tuple(g.shape))
    return grad_v, grad_g


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim except ``dim``, shaped to broadcast against
    ``v`` (``dim=-1``: the norm of the whole tensor, a 0-d tensor).

    >>> import agdebug as ag
    >>> ag.norm_except_dim(ag.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 0)
    tensor([[ 5.],
            [10.]])
    """
    if dim == -1:
        return norm_p(v, ord=float(pow))
    ndim = v.ndim
    if dim not in (0, ndim - 1):   # torch moves ``dim`` to the front and back again
        return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)
    shape = [1] * ndim
    shape[dim] = v.shape[dim]
    rows = (v.shape[0], -1) if dim == 0 else (-1, v.shape[-1])
    flat = v.contiguous().view(rows)
    return norm_p_dim(flat, ord=float(pow), dim=(1 - min(dim, 1),), keepdim=False).view(shape)


def _fused(v: Tensor, g: Tensor, dim: int) -> tuple:
    # torch's fused kernel takes one dtype and does not promote (the composite path does).
    if v.dtype != g.dtype:
        raise RuntimeError(f"expected scalar type {v.dtype._legacy} but found {g.dtype._legacy}")
    return weight_norm_interface(v, g, dim=dim)


def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / norm_except_dim(v, 2, dim))``: torch's ``_weight_norm``, one fused node
    (WeightNormInterfaceBackward0, which wants ``v`` and ``g`` of one dtype) for ``dim`` 0 or
    the last dim, whatever the dtype; other dims promote ``v`` and ``g`` as ``*`` and ``/``."""
    if v.device != g.device:
        raise RuntimeError("weight_norm: expected v_in and g_in to be on the same device, but "
                           f"v_in is on {v.device} and g_in is on {g.device}")
    v, g = v.contiguous(), g.contiguous()
    if dim in (0, v.ndim - 1):
        return _fused(v, g, dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))


def weight_norm_interface_function(v: Tensor, g: Tensor, dim: int = 0) -> tuple:
    """``(w, norms)``: the fused op itself (torch's ``_weight_norm_interface``)."""
    return _fused(v.contiguous(), g.contiguous(), dim % max(v.ndim, 1))


FUNCTIONS = {"_weight_norm": weight_norm, "norm_except_dim": norm_except_dim,
             "_weight_norm_interface": weight_norm_interface_function}

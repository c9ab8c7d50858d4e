"""Losses that torch records as one node (smooth_l1_loss, huber_loss, soft_margin_loss), and
the single-node pieces its composite losses and helpers are built from (``clamp_min`` with a
number, ``torch.norm`` over a dim, ``constant_pad_nd`` and the reflection / replication pads).
"""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ..pointwise.promotion import promote
from .loss import _reduce, _scale_grad
from ..reduction.norms import norm as _vector_norm
from ..reduction.norms import norm_vjp as _vector_norm_vjp
from ..core.registry import defop
from ..core.gradients import input_shape, needs, unrecorded_host, zeros_grad
from ..core.checks import kernel_missing

# ----------------------------------------------------------------------------- regression


def _difference(xp, x, y, kernel: str):
    x, y = promote(x, y)
    if x.dtype.kind in "biu":
        raise kernel_missing(f"{kernel}_cpu" if xp is np else f"{kernel}_cuda", x.dtype)
    return x - y


@defop("smooth_l1_loss", node="SmoothL1LossBackward0", broadcasts=True, saves=("x", "target"))
def smooth_l1_loss(xp, x, target, reduction="mean", beta=1.0):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - target)."""
    d = _difference(xp, x, target, "smooth_l1")
    a = xp.abs(d)
    losses = xp.where(a < beta, 0.5 * d * d / beta if beta else 0 * d, a - 0.5 * beta)
    return _reduce(xp, losses, reduction).astype(d.dtype, copy=False)


@smooth_l1_loss.vjp
def smooth_l1_loss_vjp(ctx, grad):
    x, target, beta = ctx.x, ctx.target, ctx.beta
    if unrecorded_host(grad, x, target) and x.shape == target.shape:
        # The same operations on the arrays (no graph wants these nodes; regression's
        # every step): the same bits as the ops below, without nine calls through them.
        d = x._data - target._data
        g = _scale_grad(ctx, grad._data, d.shape)
        grad_x = np.where((d < -beta) | (d > beta), g * np.sign(d), g * d / beta)
        grad_x = np.asarray(grad_x)   # (NumPy gives a 0-d result as a scalar)
        return Tensor._wrap(grad_x), Tensor._wrap(np.asarray(-grad_x)) if needs(ctx, 1) \
            else None
    d = x - target
    g = _scale_grad(ctx, grad, tuple(d.shape))
    inner = g * d / beta   # torch's smooth_l1_loss_backward: sign outside, d / beta inside
    slope = g * d.sign()
    grad_x = slope.where((d < -beta).logical_or(d > beta), inner)
    return grad_x, -grad_x if needs(ctx, 1) else None


@defop("huber_loss", node="HuberLossBackward0", broadcasts=True, saves=("x", "target"))
def huber_loss(xp, x, target, reduction="mean", delta=1.0):
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta) (d = x - target)."""
    d = _difference(xp, x, target, "huber")
    a = xp.abs(d)
    losses = xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return _reduce(xp, losses, reduction).astype(x.dtype, copy=False)


@huber_loss.vjp
def huber_loss_vjp(ctx, grad):
    d = ctx.x - ctx.target
    g = _scale_grad(ctx, grad, tuple(d.shape))
    delta = ctx.delta
    grad_x = (g * d.sign() * delta).where((d < -delta).logical_or(d > delta), g * d)
    return grad_x, -grad_x if needs(ctx, 1) else None


@defop("soft_margin_loss", node="SoftMarginLossBackward0", saves=("x", "target"))
def soft_margin_loss(xp, x, target, reduction="mean"):
    """log(1 + exp(-target * x)); torch does not differentiate it for the target."""
    z = -target * x
    losses = xp.log1p(xp.exp(-xp.abs(z))) + xp.maximum(z, 0)
    return _reduce(xp, losses, reduction).astype(x.dtype, copy=False)


@soft_margin_loss.vjp
def soft_margin_loss_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    g = _scale_grad(ctx, grad, tuple(x.shape))
    return g * -target * (-target * x).sigmoid(), None


# ----------------------------------------------------------------------------- pieces

# ``torch.norm(x, p, dim, keepdim)`` (norm.ScalarOpt_dim): linalg.vector_norm's maths under
# the node torch gives it, NormBackward1.
norm_p_dim = defop("norm_p_dim", node="NormBackward1", saves=("x", "result"))(
    _vector_norm.forward)
norm_p_dim.vjp(_vector_norm_vjp)


# ----------------------------------------------------------------------------- padding

@defop("constant_pad_nd", node="ConstantPadNdBackward0")
def constant_pad_nd(xp, x, pad=(), value=0.0):
    """``pad`` holds (before, after) pairs from the last dim backwards; negative crops."""
    grown = [(0, 0)] * x.ndim
    crop = [slice(None)] * x.ndim
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        grown[d] = (max(lo, 0), max(hi, 0))
        crop[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
    out = x[tuple(crop)]
    if any(g != (0, 0) for g in grown):
        out = xp.pad(out, grown, constant_values=_fill_value(value, x.dtype))
    return xp.array(out, copy=True) if out.base is not None else out


def _fill_value(value, dtype):
    return int(value) if dtype.kind in "iu" else bool(value) if dtype.kind == "b" else value


@constant_pad_nd.vjp
def constant_pad_nd_vjp(ctx, grad):
    # the gradient of a pad is the opposite pad (a crop), and of a crop the pad with zeros
    return (constant_pad_nd(grad, pad=tuple(-p for p in ctx.pad), value=0),)


def _edge_pad(mode: str, node: str, name: str):
    @defop(name, node=node, saves=("x",))   # torch keeps self (its backward reads it)
    def pad_op(xp, x, pad=()):
        widths = [(0, 0)] * (x.ndim - len(pad) // 2)
        widths += [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))]
        return xp.pad(x, widths, mode=mode)

    @pad_op.vjp
    def pad_vjp(ctx, grad):
        return (_unpad(grad, ctx.pad, mode, input_shape(ctx, 0)),)
    pad_vjp.__name__ = f"{name}_vjp"
    return pad_op


def _unpad(grad, pad, mode, shape):
    """The adjoint of an edge pad: each padded element's gradient added back to the
    element it copies (``pad_op`` of a one-hot index array says which one)."""
    from ..indexing.gather_scatter import index_add_op
    k = len(pad) // 2
    lead, tail = tuple(shape[:len(shape) - k]), tuple(shape[len(shape) - k:])
    count = int(np.prod(tail))
    source = np.arange(count).reshape(tail)
    widths = [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    picked = np.pad(source, widths, mode=mode).reshape(-1)
    flat = grad.reshape(lead + (-1,))
    zeros = zeros_grad(grad, lead + (count,))
    index = picked if type(grad._data) is np.ndarray else _on_device(picked, grad)
    return index_add_op(zeros, flat, index=index, dim=len(lead)).reshape(tuple(shape))


def _on_device(array, like):
    from ... import backend
    return backend.move_array(array, like.device)


# torch's node names the pad's dimensionality: ReflectionPad2DBackward0 pads the last two dims
EDGE_PADS = {(mode, n): _edge_pad(np_mode, f"{node}Pad{n}DBackward0", f"{mode}_pad{n}d")
             for mode, np_mode, node in (("reflection", "reflect", "Reflection"),
                                         ("replication", "edge", "Replication"))
             for n in (1, 2, 3)}


# ----------------------------------------------------------------------------- scalar nodes
# C++ composites (margin_ranking_loss, cosine_embedding_loss, pairwise_distance) add or
# subtract a number with the Scalar overloads, which torch records as AddBackward1 and
# SubBackward1 (Python's ``x + 1`` is AddBackward0).

@defop("add_scalar", node="AddBackward1")
def add_scalar(xp, x, other=0.0):
    return (x + other).astype(x.dtype, copy=False) if x.dtype.kind == "f" else x + other


@add_scalar.vjp
def add_scalar_vjp(ctx, grad):
    return (grad,)


@defop("sub_scalar", node="SubBackward1")
def sub_scalar(xp, x, other=0.0):
    return (x - other).astype(x.dtype, copy=False) if x.dtype.kind == "f" else x - other


@sub_scalar.vjp
def sub_scalar_vjp(ctx, grad):
    return (grad,)

"""Normalization ops: layer_norm, group_norm, batch_norm (torch's ``native_*`` kernels).

Each is one node, as in torch (NativeLayerNormBackward0...). The forwards compute in
float32 at least (torch's accumulate type for half inputs). The derivatives recompute the
statistics from the saved input with Tensor ops instead of reusing the forward's: the
mean and the inverse standard deviation depend on the input, so only then is the
derivative's own derivative (``create_graph=True``) right.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...graph.grad_mode import MODE
from ...tensor import Tensor
from ..reduction.sum_prod import array_mean
from ..core.registry import defop
from ..core.gradients import needs


def _stats(xp, x, axes: tuple, eps: float):
    """(x - mean) * invstd along ``axes``, the mean, variance and invstd (kept dims),
    computed at float32 at least."""
    work = x.astype(np.float32) if x.dtype.itemsize < 4 else x
    mean = array_mean(work, axes, True) if work.size else xp.zeros(
        tuple(1 if i in axes else s for i, s in enumerate(x.shape)), work.dtype)
    centred = work - mean
    var = array_mean(centred * centred, axes, True) if work.size else mean
    invstd = 1.0 / xp.sqrt(var + eps)
    return centred * invstd, mean, var, invstd


def _affine(out, weight, bias, shape: tuple):
    """``out * weight + bias``, the parameters viewed as ``shape`` (either may be None)."""
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


# The derivatives' reductions, on tensors (ops, recorded under create_graph) or on their
# host arrays (the same numpy calls, so the same bits, without an op's cost for each step).
_TENSORS = SimpleNamespace(mean=lambda t, dims: t.mean(dims, keepdim=True),
                           rsqrt=lambda t: t.rsqrt(), sum=lambda t, dims: t.sum(dims))
_ARRAYS = SimpleNamespace(mean=lambda a, dims: array_mean(a, dims, True),
                          rsqrt=lambda a: 1 / np.sqrt(a), sum=lambda a, dims: a.sum(dims))


def standardize(x, dims: tuple, eps: float, kit=_TENSORS):
    """``(x_hat, invstd)``: x standardized along ``dims`` (with Tensor ops: differentiable)."""
    centred = x - kit.mean(x, dims)
    invstd = kit.rsqrt(kit.mean(centred * centred, dims) + eps)
    return centred * invstd, invstd


def standardize_grad(grad, x_hat, invstd, dims: tuple, kit=_TENSORS):
    """The gradient through ``standardize``: invstd * (g - mean(g) - x_hat * mean(g * x_hat))."""
    return (grad - kit.mean(grad, dims) - x_hat * kit.mean(grad * x_hat, dims)) * invstd


def _channel_shape(ndim: int, channels: int) -> tuple:
    return (1, channels) + (1,) * (ndim - 2)


def _all_but_channel(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


# ----------------------------------------------------------------------------- layer_norm

@defop("native_layer_norm", node="NativeLayerNormBackward0", saves=("x", "weight"))
def native_layer_norm(xp, x, weight, bias, normalized_shape=(1,), eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    out = _stats(xp, x, axes, eps)[0]
    return _affine(out, weight, bias, tuple(normalized_shape)).astype(x.dtype, copy=False)


@native_layer_norm.vjp
def native_layer_norm_vjp(ctx, grad):
    x, weight = ctx.x, ctx.weight
    tensors = (x, grad) if weight is None else (x, grad, weight)
    if MODE.grad_enabled or not _on_host_alike(tensors):
        return _layer_norm_grads(ctx, _TENSORS, x, grad, weight)
    arrays = _layer_norm_grads(ctx, _ARRAYS, *(None if t is None else t._data
                                               for t in (x, grad, weight)))
    return tuple(None if a is None else Tensor._wrap(a) for a in arrays)


def _on_host_alike(tensors) -> bool:
    """Host arrays of one dtype, float32 or float64: the array derivative's cases."""
    first = tensors[0]._data
    return type(first) is np.ndarray and first.dtype in (np.float32, np.float64) and all(
        type(t._data) is np.ndarray and t._data.dtype == first.dtype for t in tensors)


def _layer_norm_grads(ctx, kit, x, grad, weight) -> tuple:
    dims = tuple(range(x.ndim - len(ctx.normalized_shape), x.ndim))
    lead = tuple(range(x.ndim - len(ctx.normalized_shape)))
    x_hat, invstd = standardize(x, dims, ctx.eps, kit)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        g = grad if weight is None else grad * weight
        grad_x = standardize_grad(g, x_hat, invstd, dims, kit)
    # (no lead dims leave the gradient as it is: torch's sum(()) would sum everything)
    if needs(ctx, 1):
        grad_w = kit.sum(grad * x_hat, lead) if lead else grad * x_hat
    if needs(ctx, 2):
        grad_b = kit.sum(grad, lead) if lead else grad
    return grad_x, grad_w, grad_b


# ----------------------------------------------------------------------------- group_norm

def _grouped(shape: tuple, groups: int) -> tuple:
    """(N, groups, rest): explicit sizes, as an empty batch has none to infer."""
    n = shape[0]
    return (n, groups, int(np.prod(shape[1:])) // groups)


@defop("native_group_norm", node="NativeGroupNormBackward0", saves=("x", "weight"))
def native_group_norm(xp, x, weight, bias, group=1, eps=1e-5):
    out = _stats(xp, x.reshape(_grouped(x.shape, group)), (2,), eps)[0]
    out = _affine(out.reshape(x.shape), weight, bias, _channel_shape(x.ndim, x.shape[1]))
    return out.astype(x.dtype, copy=False)


@native_group_norm.vjp
def native_group_norm_vjp(ctx, grad):
    x, weight = ctx.x, ctx.weight
    shape = tuple(x.shape)
    grouped = _grouped(shape, ctx.group)
    x_hat, invstd = standardize(x.reshape(grouped), (2,), ctx.eps)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        g = grad if weight is None else grad * weight.reshape(_channel_shape(len(shape),
                                                                             shape[1]))
        grad_x = standardize_grad(g.reshape(grouped), x_hat, invstd, (2,)).reshape(shape)
    if needs(ctx, 1):
        grad_w = (grad * x_hat.reshape(shape)).sum(_all_but_channel(len(shape)))
    if needs(ctx, 2):
        grad_b = grad.sum(_all_but_channel(len(shape)))
    return grad_x, grad_w, grad_b


# ----------------------------------------------------------------------------- batch_norm

@defop("native_batch_norm", node="NativeBatchNormBackward0",
       saves=("x", "weight", "mean", "invstd"), extras=("mean", "invstd"))
def native_batch_norm(xp, x, weight, bias, running_mean=None, running_var=None, training=True,
                      momentum=0.1, eps=1e-5):
    """Training: the batch's statistics, and the running ones (arrays, updated in place as
    torch's kernel does: no version bump) move toward them. Eval: the running ones."""
    axes, shape = _all_but_channel(x.ndim), _channel_shape(x.ndim, x.shape[1])
    if training:
        out, mean, var, invstd = _stats(xp, x, axes, eps)
        if running_mean is not None and x.size:
            _update_running(x, mean, var, running_mean, running_var, momentum)
    else:   # (copied: the saved mean must not follow later updates of the buffer)
        mean = running_mean.reshape(shape).copy()
        invstd = 1.0 / xp.sqrt(running_var.reshape(shape) + eps)
        out = (x - mean) * invstd
    out = _affine(out, weight, bias, shape).astype(x.dtype, copy=False)
    return out, mean.reshape(-1), invstd.reshape(-1)


def _update_running(x, mean, var, running_mean, running_var, momentum) -> None:
    """running = (1 - momentum) * running + momentum * batch, with the unbiased variance."""
    count = x.size // x.shape[1]
    var = var.reshape(-1) * (count / max(count - 1, 1))
    running_mean *= 1 - momentum
    running_mean += (momentum * mean.reshape(-1)).astype(running_mean.dtype)
    running_var *= 1 - momentum
    running_var += (momentum * var).astype(running_var.dtype)


@native_batch_norm.vjp
def native_batch_norm_vjp(ctx, grad):
    x, weight = ctx.x, ctx.weight
    ndim = len(x.shape)
    dims, shape = _all_but_channel(ndim), _channel_shape(ndim, x.shape[1])
    if ctx.training:
        x_hat, invstd = standardize(x, dims, ctx.eps)
    else:   # the running statistics are constants
        invstd = ctx.invstd.reshape(shape)
        x_hat = (x - ctx.mean.reshape(shape)) * invstd
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        g = grad if weight is None else grad * weight.reshape(shape)
        grad_x = standardize_grad(g, x_hat, invstd, dims) if ctx.training else g * invstd
    if needs(ctx, 1):
        grad_w = (grad * x_hat).sum(dims)
    if needs(ctx, 2):
        grad_b = grad.sum(dims)
    return grad_x, grad_w, grad_b

"""More activations of torch.nn.functional, each one torch node: hardtanh, threshold, selu and
celu, logsigmoid, glu, hardswish, hardsigmoid, mish, the shrinks, prelu and rrelu, and the
in-place nodes torch records for ``inplace=True`` (``EluBackward1``...), which save the result
instead of the input.

The derivatives are written in Tensor ops (not torch's fused ``*_backward`` kernels), so
``create_graph=True`` differentiates them again; the first-order node names are torch's.
"""

from __future__ import annotations

import numpy as np

from ..core.registry import defop
from ..core.checks import kernel_missing
from ..core.gradients import needs

_BOOL = np.dtype(np.bool_)


def _floating(xp, x, kernel: str) -> None:
    """torch's kernel is floating only: its error names the CPU or CUDA kernel."""
    if x.dtype.kind in "biu":
        raise kernel_missing(f"{kernel}_cpu" if xp is np else f"{kernel}_cuda", x.dtype)


def _bound(value, dtype):
    """A float bound as an integer tensor's kernel reads it (truncated, as C++ casts)."""
    return int(value) if dtype.kind in "iu" else value


# ----------------------------------------------------------------------------- hardtanh

@defop("hardtanh", node="HardtanhBackward0", saves=("x",))
def hardtanh(xp, x, min_val=-1.0, max_val=1.0):
    if x.dtype is _BOOL:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    lo, hi = _bound(min_val, x.dtype), _bound(max_val, x.dtype)
    return xp.minimum(xp.maximum(x, lo), hi).astype(x.dtype, copy=False)


@hardtanh.vjp
def hardtanh_vjp(ctx, grad):
    # torch's hardtanh_backward: no gradient at or beyond either bound (also for the
    # in-place form, whose saved value is the result: clamped values sit on a bound).
    x = ctx.x
    inside = (x > ctx.min_val).logical_and(x < ctx.max_val)
    return (grad * inside,)


# ----------------------------------------------------------------------------- threshold

def _threshold(xp, x, threshold, value):
    if x.dtype is _BOOL:
        raise kernel_missing("threshold_cpu" if xp is np else "threshold_cuda", x.dtype)
    value = _bound(value, x.dtype)
    return xp.where(x > threshold, x, value).astype(x.dtype, copy=False)


@defop("threshold", node="ThresholdBackward0", saves=("x",))
def threshold(xp, x, threshold=0.0, value=0.0):
    """``x`` where ``x > threshold``, else ``value``."""
    return _threshold(xp, x, threshold, value)


@defop("threshold_", node="ThresholdBackward1", saves=("x",))
def threshold_inplace(xp, x, threshold=0.0, value=0.0):
    """The node of ``threshold_``: torch keeps a copy of the input it overwrites."""
    return _threshold(xp, x, threshold, value)


@threshold.vjp
def threshold_vjp(ctx, grad):
    from ..pointwise.activations import threshold_backward
    return (threshold_backward(grad, ctx.x, threshold=ctx.threshold),)


threshold_inplace.vjp(threshold_vjp)


# ----------------------------------------------------------------------------- leaky_relu_

@defop("leaky_relu_", node="LeakyReluBackward1", saves=("result",))
def leaky_relu_inplace(xp, x, negative_slope=0.01):
    """The node of ``leaky_relu_``: the sign of the result picks the slope."""
    _floating(xp, x, "leaky_relu")
    return xp.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


@leaky_relu_inplace.vjp
def leaky_relu_inplace_vjp(ctx, grad):
    return (grad.where(ctx.result > 0, grad * ctx.negative_slope),)


# ----------------------------------------------------------------------------- elu family

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _elu(xp, x, alpha, scale, input_scale):
    _floating(xp, x, "elu")
    neg = alpha * xp.expm1(xp.minimum(x, 0) * input_scale)
    return (scale * xp.where(x > 0, x, neg)).astype(x.dtype, copy=False)


@defop("elu_scaled", node="EluBackward0", saves=("x",))
def elu_scaled(xp, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """torch's ``elu`` with its hidden ``scale`` and ``input_scale`` (selu's node)."""
    return _elu(xp, x, alpha, scale, input_scale)


@elu_scaled.vjp
def elu_scaled_vjp(ctx, grad):
    x, k = ctx.x, ctx.input_scale
    neg = grad * (ctx.alpha * ctx.scale * k) * (x.clamp(max=0) * k).exp()
    return ((grad * ctx.scale).where(x > 0, neg),)


@defop("elu_", node="EluBackward1", saves=("result",))
def elu_inplace(xp, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """The node of ``elu_`` and ``selu_``: the derivative is read off the result."""
    return _elu(xp, x, alpha, scale, input_scale)


def _elu_result_grad(ctx, grad, alpha, scale, input_scale):
    # d/dx of scale * alpha * (exp(k x) - 1) is k * (result + alpha * scale)
    result = ctx.result
    neg = grad * input_scale * (result + alpha * scale)
    return ((grad * scale).where(result > 0, neg),)


@elu_inplace.vjp
def elu_inplace_vjp(ctx, grad):
    return _elu_result_grad(ctx, grad, ctx.alpha, ctx.scale, ctx.input_scale)


def _check_celu(xp, x, alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(xp, x, alpha, 1.0, 1.0 / alpha)


@defop("celu", node="CeluBackward0", saves=("x",))
def celu(xp, x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _check_celu(xp, x, alpha)


@celu.vjp
def celu_vjp(ctx, grad):
    x = ctx.x
    return (grad.where(x > 0, grad * (x.clamp(max=0) / ctx.alpha).exp()),)


@defop("celu_", node="CeluBackward1", saves=("result",))
def celu_inplace(xp, x, alpha=1.0):
    return _check_celu(xp, x, alpha)


@celu_inplace.vjp
def celu_inplace_vjp(ctx, grad):
    return _elu_result_grad(ctx, grad, ctx.alpha, 1.0, 1.0 / ctx.alpha)


# ----------------------------------------------------------------------------- smooth ones

@defop("logsigmoid", node="LogSigmoidBackward0", saves=("x",))
def logsigmoid(xp, x):
    """log(1 / (1 + exp(-x))), computed without overflow."""
    _floating(xp, x, "log_sigmoid")
    return (xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))).astype(x.dtype, copy=False)


@logsigmoid.vjp
def logsigmoid_vjp(ctx, grad):
    return (grad * (-ctx.x).sigmoid(),)


@defop("mish", node="MishBackward0", saves=("x",))
def mish(xp, x):
    """x * tanh(softplus(x))."""
    _floating(xp, x, "mish")
    soft = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0)
    return (x * xp.tanh(soft)).astype(x.dtype, copy=False)


@mish.vjp
def mish_vjp(ctx, grad):
    x = ctx.x
    t = ((-x.abs()).exp().log1p() + x.clamp(min=0)).tanh()   # tanh(softplus(x))
    return (grad * (t + x * x.sigmoid() * (1 - t * t)),)


# ----------------------------------------------------------------------------- hard ones

@defop("hardsigmoid", node="HardsigmoidBackward0", saves=("x",))
def hardsigmoid(xp, x):
    """relu6(x + 3) / 6."""
    _floating(xp, x, "hardsigmoid")
    return (xp.clip(x + 3, 0, 6) / 6).astype(x.dtype, copy=False)


@hardsigmoid.vjp
def hardsigmoid_vjp(ctx, grad):
    x = ctx.x
    return (grad * (x > -3).logical_and(x < 3) * (1 / 6),)


@defop("hardswish", node="HardswishBackward0", saves=("x",))
def hardswish(xp, x):
    """x * relu6(x + 3) / 6."""
    _floating(xp, x, "hardswish")
    return (x * xp.clip(x + 3, 0, 6) / 6).astype(x.dtype, copy=False)


@hardswish.vjp
def hardswish_vjp(ctx, grad):
    # torch's hardswish_backward: 0 below -3, x / 3 + 1/2 up to 3 (inclusive), 1 above.
    x = ctx.x
    middle = grad * (x / 3 + 0.5)
    return (grad.where(x > 3, middle).where(x >= -3, grad * 0),)


@defop("hardshrink", node="HardshrinkBackward0", saves=("x",))
def hardshrink(xp, x, lambd=0.5):
    """x where |x| > lambd, else 0."""
    _floating(xp, x, "hardshrink")
    return xp.where((x >= -lambd) & (x <= lambd), 0, x).astype(x.dtype, copy=False)


@hardshrink.vjp
def hardshrink_vjp(ctx, grad):
    x, lambd = ctx.x, ctx.lambd
    return (grad * (x < -lambd).logical_or(x > lambd),)


@defop("softshrink", node="SoftshrinkBackward0", saves=("x",))
def softshrink(xp, x, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    if x.dtype.kind in "biu":
        raise kernel_missing("softshrink_check", x.dtype)
    if not 0 <= lambd <= np.finfo(x.dtype).max:
        top = f"{float(np.finfo(x.dtype).max):g}"
        kind = {"float32": "Float", "float64": "Double", "float16": "Half"}[x.dtype.name]
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {kind}, but "
                           f"found {lambd:g}")
    out = xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, 0))
    return out.astype(x.dtype, copy=False)


@softshrink.vjp
def softshrink_vjp(ctx, grad):
    x, lambd = ctx.x, ctx.lambd
    return (grad * (x < -lambd).logical_or(x > lambd),)


# ----------------------------------------------------------------------------- glu

@defop("glu", node="GluBackward0", saves=("x",))
def glu(xp, x, dim=-1):
    """a * sigmoid(b), where a and b are the halves of ``x`` along ``dim``."""
    _floating(xp, x, "glu")
    a, b = xp.split(x, 2, axis=dim)
    return (a / (1 + xp.exp(-b))).astype(x.dtype, copy=False)


@glu.vjp
def glu_vjp(ctx, grad):
    a, b = ctx.x.chunk(2, ctx.dim)
    s = b.sigmoid()
    from ... import functions as fn
    return (fn.cat([grad * s, grad * a * s * (1 - s)], ctx.dim),)


# ----------------------------------------------------------------------------- prelu

def channel_shape(ndim: int, numel: int) -> tuple:
    """The shape that broadcasts prelu's weight along dim 1 of an ``ndim`` input."""
    if ndim < 2:
        return (numel,) if ndim else ()
    return (1, numel) + (1,) * (ndim - 2)


@defop("prelu", node="PreluKernelBackward0", saves=("x", "weight"))
def prelu(xp, x, weight):
    """x where x > 0, else weight * x; the weight is one slope or one per channel (dim 1)."""
    _floating(xp, x, "prelu")
    w = weight.reshape(channel_shape(x.ndim, weight.size)) if weight.size > 1 else \
        weight.reshape(())
    return xp.where(x > 0, x, w * x).astype(x.dtype, copy=False)


@prelu.vjp
def prelu_vjp(ctx, grad):
    x, weight = ctx.x, ctx.weight
    shape = channel_shape(x.ndim, weight.numel()) if weight.numel() > 1 else ()
    w = weight.reshape(shape)
    positive = x > 0
    grad_x = grad.where(positive, grad * w) if needs(ctx, 0) else None
    grad_w = None
    if needs(ctx, 1):
        per = (grad * x).where(positive.logical_not(), grad * 0)
        axes = tuple(d for d in range(x.ndim) if shape == () or shape[d] == 1)
        grad_w = (per.sum(axes) if axes else per).reshape(tuple(weight.shape))
    return grad_x, grad_w


# ----------------------------------------------------------------------------- rrelu

def _rrelu(xp, x, noise, lower, upper, training):
    _floating(xp, x, "leaky_relu")
    if training:   # the noise comes as a keyword: a tensor, not unwrapped
        return (x * noise._data).astype(x.dtype, copy=False)
    slope = (lower + upper) / 2
    return xp.where(x > 0, x, x * slope).astype(x.dtype, copy=False)


@defop("rrelu_with_noise", node="RreluWithNoiseBackward0", saves=("x", "noise"))
def rrelu_with_noise(xp, x, noise=None, lower=1 / 8, upper=1 / 3, training=False):
    """leaky_relu with a random slope per negative element in training (``noise`` holds
    the slopes, 1 elsewhere), the mean slope (lower + upper) / 2 in evaluation."""
    return _rrelu(xp, x, noise, lower, upper, training)


@defop("rrelu_with_noise_", node="RreluWithNoiseBackward1", saves=("result", "noise"))
def rrelu_with_noise_inplace(xp, x, noise=None, lower=1 / 8, upper=1 / 3, training=False):
    return _rrelu(xp, x, noise, lower, upper, training)


def _rrelu_grad(ctx, grad, saved):
    if ctx.training:
        return (grad * ctx.noise,)
    return (grad.where(saved > 0, grad * ((ctx.lower + ctx.upper) / 2)),)


@rrelu_with_noise.vjp
def rrelu_with_noise_vjp(ctx, grad):
    return _rrelu_grad(ctx, grad, ctx.x)


@rrelu_with_noise_inplace.vjp
def rrelu_with_noise_inplace_vjp(ctx, grad):
    return _rrelu_grad(ctx, grad, ctx.result)


def selu_constants() -> dict:
    """selu as torch computes it: elu with fixed alpha and scale."""
    return {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1.0}


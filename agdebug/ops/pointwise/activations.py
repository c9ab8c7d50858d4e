"""The activations that are one pointwise node: relu (and its ``threshold_backward``),
leaky_relu, elu, silu, gelu, erf, softplus."""

from __future__ import annotations

import math

import numpy as np

from ..core.registry import defop
from ..core.gradients import needs, per_element, zeros_grad
from ..core.checks import kernel_missing
from .promotion import _BOOL, scaled, to_float
from .unary import sigmoid
from .comparison import _floating_only
from .erf_kernel import erf_rounded


# ----------------------------------------------------------------------------- activations

@defop("relu", node="ReluBackward0", saves=("result",))
def relu(xp, x):
    if x.dtype is _BOOL:
        raise RuntimeError("Boolean inputs not supported for relu")
    return xp.maximum(x, 0).astype(x.dtype, copy=False)


@relu.vjp
def relu_vjp(ctx, grad):
    # threshold 0 is the op's default: called without the keyword, the call takes the
    # registry's short path (``run_direct``), and a recorded node reads the default.
    return (threshold_backward(grad, ctx.result),)


@defop("threshold_backward", node="ThresholdBackwardBackward0", saves=("self",))
def threshold_backward(xp, grad, self, threshold=0):
    """0 where ``self <= threshold``, else ``grad``: the gradient at exactly 0 is 0, and at a
    NaN input it passes, as in torch.

    torch's fused derivative of relu: one op, and in a create_graph=True graph one node
    whose edge to ``self`` carries a zero gradient, as torch's does.
    """
    drop = self <= threshold
    bits = _SAME_SIZE_INT.get(grad.dtype.itemsize) if grad.dtype.kind == "f" else None
    if xp is np and bits is not None:
        # where's values bit for bit (+0.0 where dropped, NaN and inf passed where kept), as
        # an AND with all-ones or all-zeros per element: on a CPU several times faster than
        # where's per-element choice. (``grad * keep`` would give -0.0 for a negative grad,
        # and NaN for an inf one.)
        keep = drop.view(np.int8) - np.int8(1)    # -1 (every bit set) where kept, else 0
        return np.bitwise_and(grad.view(bits), keep).view(grad.dtype)
    return xp.where(drop, 0, grad).astype(grad.dtype, copy=False)


_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}   # a float's bits, by itemsize


@threshold_backward.vjp
def threshold_backward_vjp(ctx, grad_grad):
    self = ctx.self
    grad_grad_in = threshold_backward(grad_grad, self, threshold=ctx.threshold) \
        if needs(ctx, 0) else None   # linear in grad
    # torch's ``zeros_like(grad)``: constant zeros (no node), even where grad_grad is NaN.
    return grad_grad_in, (zeros_grad(grad_grad, tuple(grad_grad.shape)) if needs(ctx, 1) else None)


@defop("leaky_relu", node="LeakyReluBackward0", saves=("x",))
def leaky_relu(xp, x, negative_slope=0.01):
    _floating_only(xp, x, "leaky_relu")
    return xp.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


@leaky_relu.vjp
def leaky_relu_vjp(ctx, grad):
    positive = ctx.x > 0
    return (grad.where(positive, grad * ctx.negative_slope),)


@defop("elu", node="EluBackward0", saves=("x",))
def elu(xp, x, alpha=1.0):
    _floating_only(xp, x, "elu")
    return xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0))).astype(x.dtype, copy=False)


@elu.vjp
def elu_vjp(ctx, grad):
    x = ctx.x
    return (grad.where(x > 0, grad * ctx.alpha * x.clamp(max=0).exp()),)


@defop("silu", node="SiluBackward0", saves=("x",))
def silu(xp, x):
    _floating_only(xp, x, "silu")
    return x * sigmoid.forward(xp, x)


@silu.vjp
def silu_vjp(ctx, grad):
    s = ctx.x.sigmoid()
    return (grad * s * (1 + ctx.x * (1 - s)),)


@defop("gelu", node="GeluBackward0", saves=("x",))
def gelu(xp, x, approximate="none"):
    if approximate not in ("none", "tanh"):   # torch checks the argument first
        raise RuntimeError("approximate argument must be either none or tanh.")
    if x.dtype.kind in "biu":   # no integer kernel; torch names it without the device suffix
        raise kernel_missing("GeluKernelImpl" if xp is np else "GeluCUDAKernelImpl", x.dtype)
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
        return (0.5 * x * (1 + xp.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * x * (1 + erf(xp, x / math.sqrt(2.0)))).astype(x.dtype, copy=False)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@gelu.vjp
def gelu_vjp(ctx, grad):
    x = ctx.x
    if ctx.approximate == "tanh":
        inner = (x + x ** 3 * 0.044715) * _SQRT_2_OVER_PI
        t = inner.tanh()
        d_inner = (1 + x * x * (3 * 0.044715)) * _SQRT_2_OVER_PI
        return (grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner),)
    cdf = 0.5 * (1 + (x * (1 / math.sqrt(2.0))).erf())
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return (grad * (cdf + x * pdf),)


@defop("erf", node="ErfBackward0", saves=("x",))
def erf_op(xp, x):
    return erf(xp, to_float(x))


@erf_op.vjp
def erf_vjp(ctx, grad):
    return (scaled((-(ctx.x ** 2)).exp(), 2 / math.sqrt(math.pi)) * grad,)


def erf(xp, x):
    """The error function on numpy (exact, via math.erf) or cupy (cupyx)."""
    if xp is np and x.dtype.char in "fe" and x.size >= _VECTORIZED_FROM:
        return erf_rounded(x)   # math.erf's bits, vectorized (GELU's forward and backward)
    return per_element(xp, x, math.erf, "erf")


# (below this, math.erf mapped over the elements costs less than the polynomial's calls)
_VECTORIZED_FROM = 2048


@defop("softplus", node="SoftplusBackward0", saves=("x",))
def softplus(xp, x, beta=1.0, threshold=20.0):
    _floating_only(xp, x, "softplus")
    scaled = x * beta
    soft = xp.log1p(xp.exp(-xp.abs(scaled))) + xp.maximum(scaled, 0)
    return xp.where(scaled > threshold, x, soft / beta).astype(x.dtype, copy=False)


@softplus.vjp
def softplus_vjp(ctx, grad):
    scaled = ctx.x * ctx.beta
    return (grad.where(scaled > ctx.threshold, grad * scaled.sigmoid()),)

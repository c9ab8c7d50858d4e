"""Unary math: exp/log, sqrt/rsqrt, abs, sign, floor/round, sin/cos/tan/tanh, atan2,
sigmoid, and the double-backward nodes of tanh and sigmoid."""

from __future__ import annotations

import math

from ..core.registry import defop
from ..core.gradients import derivative_formula, needs, zeros_grad
from .promotion import _BOOL, promote, scaled, shifted, to_float, weak
from .comparison import _not_implemented
from ...tensor import Tensor


# ----------------------------------------------------------------------------- unary math

@defop("exp", node="ExpBackward0", saves=("result",))
def exp(xp, x):
    return xp.exp(to_float(x))


@exp.vjp
def exp_vjp(ctx, grad):
    return (grad * ctx.result,)


@defop("expm1", node="Expm1Backward0", saves=("result",))
def expm1(xp, x):
    return xp.expm1(to_float(x))


@expm1.vjp
def expm1_vjp(ctx, grad):
    return (grad * shifted(ctx.result, 1),)


@defop("log", node="LogBackward0", saves=("x",))
def log(xp, x):
    return xp.log(to_float(x))


@log.vjp
def log_vjp(ctx, grad):
    return (grad / ctx.x,)


@defop("log2", node="Log2Backward0", saves=("x",))
def log2(xp, x):
    return xp.log2(to_float(x))


@log2.vjp
def log2_vjp(ctx, grad):
    return (grad / scaled(ctx.x, math.log(2.0)),)


@defop("log1p", node="Log1PBackward0", saves=("x",))
def log1p(xp, x):
    return xp.log1p(to_float(x))


@log1p.vjp
def log1p_vjp(ctx, grad):
    return (grad / shifted(ctx.x, 1),)


@defop("sqrt", node="SqrtBackward0", saves=("result",))
def sqrt(xp, x):
    return xp.sqrt(to_float(x))


@sqrt.vjp
def sqrt_vjp(ctx, grad):
    return (grad / scaled(ctx.result, 2),)


@defop("rsqrt", node="RsqrtBackward0", saves=("result",))
def rsqrt(xp, x):
    return 1 / xp.sqrt(to_float(x))


@rsqrt.vjp
def rsqrt_vjp(ctx, grad):
    return (grad * -0.5 * ctx.result ** 3,)


@defop("abs", node="AbsBackward0", saves=("x",))
def abs_(xp, x):
    if x.dtype is _BOOL:   # NumPy's abs of bool is the identity; torch has no bool kernel
        _not_implemented(xp, "abs", x.dtype)
    return xp.abs(x)


@abs_.vjp
def abs_vjp(ctx, grad):
    return (grad * ctx.x.sgn(),)


def zero_vjp(ctx, grad):
    """Piecewise-constant ops: torch's ``zeros_like(grad)``, a constant (no graph; grad * 0
    would require grad under create_graph and make an incoming -inf NaN)."""
    return (zeros_grad(grad, tuple(grad.shape)),)


@defop("sign", node="SignBackward0")
def sign(xp, x):
    if x.dtype is _BOOL:   # NumPy has no bool sign; torch returns the tensor's values
        return x.copy()
    return xp.sign(x)



@defop("floor", node="FloorBackward0")
def floor(xp, x):
    if x.dtype is _BOOL:   # NumPy floors bool to float16; torch has no bool kernel
        _not_implemented(xp, "floor_vml", x.dtype)
    return xp.floor(x)



@defop("round", node="RoundBackward0")
def round_(xp, x, decimals=0):
    if x.dtype is _BOOL:   # NumPy rounds bool to float16; torch has no bool kernel
        _not_implemented(xp, "round_vml", x.dtype)
    return xp.round(x, decimals)


@defop("round_decimals", node="RoundBackward1")
def round_decimals(xp, x, decimals=0):
    """``round(x, decimals=d)``, d given even as 0: torch's other overload, whose kernels
    are floating only (``round()`` of an integer tensor is the tensor)."""
    if x.dtype.kind != "f":
        _not_implemented(xp, "round_vml" if decimals == 0 else "round", x.dtype)
    return xp.round(x, decimals)



@defop("sin", node="SinBackward0", saves=("x",))
def sin(xp, x):
    return xp.sin(to_float(x))


@sin.vjp
def sin_vjp(ctx, grad):
    return (grad * ctx.x.cos(),)


@defop("cos", node="CosBackward0", saves=("x",))
def cos(xp, x):
    return xp.cos(to_float(x))


@cos.vjp
def cos_vjp(ctx, grad):
    return (grad * -ctx.x.sin(),)


@defop("tan", node="TanBackward0", saves=("result",))
def tan(xp, x):
    return xp.tan(to_float(x))


@tan.vjp
def tan_vjp(ctx, grad):
    return (grad * shifted(ctx.result ** 2, 1),)


@defop("tanh", node="TanhBackward0", saves=("result",))
def tanh(xp, x):
    return xp.tanh(to_float(x))


@tanh.vjp
def tanh_vjp(ctx, grad):
    return (tanh_backward(grad, ctx.result),)


@defop("atan2", node="Atan2Backward0", broadcasts=True, saves=("x", "y"))
def atan2(xp, x, y):
    x, y = promote(x, y)
    x, y = to_float(x), to_float(y)   # integral operands give the default float, as in torch
    return xp.arctan2(x, y)


@atan2.vjp
def atan2_vjp(ctx, grad):
    # d/dx atan2(x, y) = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2) (torch's atan2_backward)
    x, y = ctx.x, ctx.y
    scaled = grad / (x * x + y * y)
    return (scaled * y if needs(ctx, 0) else None), (scaled * -x if needs(ctx, 1) else None)


# torch's fused derivatives: one node (TanhBackwardBackward0...) instead of three in a
# create_graph=True graph, and one array pass instead of three.

@defop("tanh_backward", node="TanhBackwardBackward0", saves=("grad@1", "output"))
def tanh_backward(xp, grad, output):
    return grad * (weak(1, output) - output * output)


@tanh_backward.vjp
def tanh_backward_vjp(ctx, grad_grad):
    r = ctx.output
    grad_grad_in = tanh_backward(grad_grad, r) if needs(ctx, 0) else None   # linear in grad
    grad_result = None
    if needs(ctx, 1):
        grad_result = derivative_formula(_tanh_second, grad_grad, ctx.grad, r)
    return grad_grad_in, grad_result


def _tanh_second(grad_grad, grad, r):   # on arrays or tensors (see derivative_formula)
    # torch's formula, in its order and with its Scalar overloads (the nodes a third
    # derivative records): grad * (-2 * output * grad_output)
    if isinstance(r, Tensor):
        return grad_grad * (scaled(r, -2) * grad)
    return grad_grad * (-2 * r * grad)


@defop("sigmoid", node="SigmoidBackward0", saves=("result",))
def sigmoid(xp, x):
    x = to_float(x)
    # Split by sign so that exp never overflows: 1 / (1 + e) for x >= 0, e / (1 + e) below
    # (e = exp(-|x|)), as one division of where(x >= 0, 1, e): the same quotients bit for
    # bit. e is this call's own array, so it becomes the numerator and then the quotient in
    # place (every LSTM gate runs this: a where and two arrays fewer than out of place);
    # -|x| and its exp are made in e's array too. The ones are written by putmask on a small
    # array; on a large one the numerator is max(e, x >= 0) (1 where x >= 0, as e <= 1
    # there; e elsewhere; NaN kept), without putmask's branches: 67 against 136 us on a
    # 97x204 float64 LSTM cell's gates, where the cast of the mask costs a small one more.
    e = xp.abs(x)
    if e.ndim == 0:   # (NumPy gives a 0-d input's |x| as a scalar, which takes no writes)
        e = xp.asarray(e)
    xp.negative(e, out=e)
    xp.exp(e, out=e)
    denominator = e + 1
    if e.size >= 1024:
        xp.maximum(e, x >= 0, out=e)
    else:
        xp.putmask(e, x >= 0, 1)
    return xp.divide(e, denominator, out=e)


@sigmoid.vjp
def sigmoid_vjp(ctx, grad):
    return (sigmoid_backward(grad, ctx.result),)


@defop("sigmoid_backward", node="SigmoidBackwardBackward0", saves=("grad@1", "output"))
def sigmoid_backward(xp, grad, output):
    return grad * output * (1 - output)


@sigmoid_backward.vjp
def sigmoid_backward_vjp(ctx, grad_grad):
    r = ctx.output
    grad_grad_in = sigmoid_backward(grad_grad, r) if needs(ctx, 0) else None   # linear in grad
    grad_result = None
    if needs(ctx, 1):
        grad_result = derivative_formula(_sigmoid_second, grad_grad, ctx.grad, r)
    return grad_grad_in, grad_result


def _sigmoid_second(grad_grad, grad, r):
    # torch's: grad * grad_output * (-2 * output + 1), as for tanh above
    if isinstance(r, Tensor):
        return grad_grad * grad * shifted(scaled(r, -2), 1)
    return grad_grad * grad * (-2 * r + 1)

"""Unary pointwise math beyond unary.py: rounding, hyperbolic and inverse trig
functions, log10/exp2, erfc/erfinv, logit, sinc, sgn, angle conversions, nan_to_num.

Each op is one torch node (``CeilBackward0``, ``SinhBackward0``...), its derivative written
with agdebug ops as torch's ``derivatives.yaml`` writes it, so ``create_graph=True`` works.
Floating-only functions make integer and bool inputs the default float, as torch does.
"""

from __future__ import annotations

import math

import numpy as np

from .comparison import _not_implemented
from .promotion import scaled, shifted, to_float
from ...graph.grad_mode import MODE
from ..core.registry import defop
from ..core.gradients import per_element, zeros_grad

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def zeros_like_vjp(ctx, grad):
    """torch's ``zeros_like(grad)``: a constant zero gradient (no node of its own)."""
    return (zeros_grad(grad, tuple(grad.shape)),)


def opmath(x):
    """float16 computed in float32, as torch's CPU kernels do (then rounded once)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _integral_is_identity(xp, x, kernel: str) -> bool:
    """ceil/trunc of an integer tensor is a copy of it in torch (NumPy would give floats);
    bool has no kernel."""
    if x.dtype.kind == "b":
        _not_implemented(xp, kernel, x.dtype)
    return x.dtype.kind in "iu"


# ----------------------------------------------------------------------------- rounding

@defop("ceil", node="CeilBackward0")
def ceil(xp, x):
    return x.copy() if _integral_is_identity(xp, x, "ceil_vml") else xp.ceil(x)


@defop("trunc", node="TruncBackward0")
def trunc(xp, x):
    return x.copy() if _integral_is_identity(xp, x, "trunc_vml") else xp.trunc(x)


@defop("frac", node="FracBackward0")
def frac(xp, x):
    if x.dtype.kind in "biu":   # no integer kernel at all (not even the identity)
        _not_implemented(xp, "frac", x.dtype)
    return x - xp.trunc(x)


@frac.vjp
def frac_vjp(ctx, grad):
    return (grad,)


@defop("sgn", node="SgnBackward0")
def sgn(xp, x):
    return x.copy() if x.dtype.kind == "b" else xp.sign(x)


for _op in (ceil, trunc, sgn):
    _op.vjp(zeros_like_vjp)


# ----------------------------------------------------------------------------- hyperbolic

@defop("sinh", node="SinhBackward0", saves=("x",))
def sinh(xp, x):
    return xp.sinh(to_float(x))


@sinh.vjp
def sinh_vjp(ctx, grad):
    return (grad * ctx.x.cosh(),)


@defop("cosh", node="CoshBackward0", saves=("x",))
def cosh(xp, x):
    return xp.cosh(to_float(x))


@cosh.vjp
def cosh_vjp(ctx, grad):
    return (grad * ctx.x.sinh(),)


@defop("asinh", node="AsinhBackward0", saves=("x",))
def asinh(xp, x):
    return xp.arcsinh(to_float(x))


@asinh.vjp
def asinh_vjp(ctx, grad):
    x = ctx.x
    return (grad * (x * x + 1).rsqrt(),)


@defop("acosh", node="AcoshBackward0", saves=("x",))
def acosh(xp, x):
    return xp.arccosh(to_float(x))


@acosh.vjp
def acosh_vjp(ctx, grad):
    x = ctx.x
    return (grad * (x * x - 1).rsqrt(),)


@defop("atanh", node="AtanhBackward0", saves=("x",))
def atanh(xp, x):
    return xp.arctanh(to_float(x))


@atanh.vjp
def atanh_vjp(ctx, grad):
    x = ctx.x
    return (grad / (1 - x * x),)


# ----------------------------------------------------------------------------- inverse trig

@defop("asin", node="AsinBackward0", saves=("x",))
def asin(xp, x):
    return xp.arcsin(to_float(x))


@asin.vjp
def asin_vjp(ctx, grad):
    x = ctx.x
    return (grad * shifted(-x * x, 1).rsqrt(),)


@defop("acos", node="AcosBackward0", saves=("x",))
def acos(xp, x):
    return xp.arccos(to_float(x))


@acos.vjp
def acos_vjp(ctx, grad):
    x = ctx.x
    return (grad * -shifted(-x * x, 1).rsqrt(),)


@defop("atan", node="AtanBackward0", saves=("x",))
def atan(xp, x):
    return xp.arctan(to_float(x))


@atan.vjp
def atan_vjp(ctx, grad):
    x = ctx.x
    return (grad / shifted(x * x, 1),)


# ----------------------------------------------------------------------------- logs and exps

@defop("log10", node="Log10Backward0", saves=("x",))
def log10(xp, x):
    return xp.log10(to_float(x))


@log10.vjp
def log10_vjp(ctx, grad):
    return (grad / scaled(ctx.x, _LN10),)


@defop("exp2", node="Exp2Backward0", saves=("result",))
def exp2(xp, x):
    return xp.exp2(to_float(x))


@exp2.vjp
def exp2_vjp(ctx, grad):
    return (scaled(grad * ctx.result, _LN2),)


@defop("logit", node="LogitBackward0", saves=("x",))
def logit(xp, x, eps=None):
    x = to_float(x)
    z = opmath(x)
    if eps is not None:
        z = xp.clip(z, eps, 1 - eps).astype(z.dtype, copy=False)
    return xp.log(z / (1 - z)).astype(x.dtype, copy=False)


@logit.vjp
def logit_vjp(ctx, grad):
    """1 / (x (1 - x)) on [eps, 1 - eps] (bounds included), 0 outside; without eps, NaN
    outside [0, 1]. Like torch, two formulas: with create_graph=True the differentiable one
    (``infinitely_differentiable_logit_backward``), else the kernel's, which also gives
    +-inf (not 1 / -0) at 0 and 1 and lets a NaN input through."""
    x, eps = ctx.x, ctx.eps
    lo, hi, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1 - eps, 0.0)
    slope = grad / (x * (1 - x))
    if MODE.grad_enabled:
        return (slope.where((x >= lo).logical_and(x <= hi), outside),)
    if eps is None:
        slope = (grad * math.inf).where((x == 0).logical_or(x == 1), slope)
    return (slope.where((x < lo).logical_or(x > hi).logical_not(), outside),)


# ----------------------------------------------------------------------------- special

@defop("erfc", node="ErfcBackward0", saves=("x",))
def erfc(xp, x):
    x = to_float(x)
    return per_element(xp, x, math.erfc, "erfc")


@erfc.vjp
def erfc_vjp(ctx, grad):
    x = ctx.x
    return (grad * (-2 / math.sqrt(math.pi)) * (-(x * x)).exp(),)


@defop("erfinv", node="ErfinvBackward0", saves=("x",))
def erfinv(xp, x):
    x = to_float(x)
    return per_element(xp, x, _erfinv_scalar, "erfinv")


def _erfinv_scalar(y: float) -> float:
    """erf's inverse in double precision: Winitzki's closed form, refined by Newton steps.
    Past |y| = 0.5 the residual is taken through erfc, as 1 - |y| is exact there."""
    y = float(y)
    if not -1.0 < y < 1.0:
        return math.copysign(math.inf, y) if abs(y) == 1.0 else math.nan
    a = 0.147
    ln = math.log1p(-y * y)
    t = 2 / (math.pi * a) + ln / 2
    x = math.copysign(math.sqrt(math.sqrt(t * t - ln / a) - t), y)
    sign = 1.0 if y > 0 else -1.0
    for _ in range(4):
        residual = math.erf(x) - y if abs(y) <= 0.5 else \
            sign * ((1 - abs(y)) - math.erfc(abs(x)))
        x -= residual / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


@erfinv.vjp
def erfinv_vjp(ctx, grad):
    root = ctx.x.erfinv()
    return (grad * (math.sqrt(math.pi) / 2) * (root * root).exp(),)


@defop("sinc", node="SincBackward0", saves=("x",))
def sinc(xp, x):
    x = to_float(x)
    z = opmath(x)
    scaled = z * z.dtype.type(math.pi)
    return xp.where(z == 0, 1, xp.sin(scaled) / scaled).astype(x.dtype, copy=False)


@sinc.vjp
def sinc_vjp(ctx, grad):
    # torch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (pi x^2), and 0 at x == 0.
    from . import comparison
    x = ctx.x
    scaled = x * math.pi
    out = grad * ((scaled * scaled.cos() - scaled.sin()) / (scaled * x))
    return (comparison.where(0.0, out, condition=x == 0),)


@defop("deg2rad", node="Deg2RadBackward0")
def deg2rad(xp, x):
    x = to_float(x)
    return (opmath(x) * math.pi / 180).astype(x.dtype, copy=False)


@deg2rad.vjp
def deg2rad_vjp(ctx, grad):
    return (grad * (math.pi / 180),)


@defop("rad2deg", node="Rad2DegBackward0")
def rad2deg(xp, x):
    x = to_float(x)
    return (opmath(x) * 180 / math.pi).astype(x.dtype, copy=False)


@rad2deg.vjp
def rad2deg_vjp(ctx, grad):
    return (grad * (180 / math.pi),)


@defop("nan_to_num", node="NanToNumBackward0", saves=("x",))
def nan_to_num(xp, x, nan=0.0, posinf=None, neginf=None):
    if x.dtype.kind in "biu":   # nothing to replace: torch returns a copy
        return x.copy()
    info = xp.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = xp.where(xp.isnan(x), nan, x)
    out = xp.where(out == math.inf, posinf, out)
    return xp.where(out == -math.inf, neginf, out).astype(x.dtype, copy=False)


@nan_to_num.vjp
def nan_to_num_vjp(ctx, grad):
    return (grad * ctx.x.isfinite(),)


UNARY = {"ceil": ceil, "trunc": trunc, "fix": trunc, "frac": frac, "sgn": sgn,
         "sinh": sinh, "cosh": cosh, "asinh": asinh, "acosh": acosh, "atanh": atanh,
         "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh,
         "asin": asin, "acos": acos, "atan": atan,
         "arcsin": asin, "arccos": acos, "arctan": atan,
         "log10": log10, "exp2": exp2, "erfc": erfc, "erfinv": erfinv, "sinc": sinc,
         "deg2rad": deg2rad, "rad2deg": rad2deg}

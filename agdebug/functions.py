"""torch-level functions: ``agdebug.exp(x)``, ``agdebug.sum(x, 0)``, ``agdebug.where(...)``."""

from __future__ import annotations

from .ops import elementwise as ew
from .ops import functions as _module_functions
from .ops import methods as m

__all__ = ["add", "sub", "mul", "div", "pow", "neg", "exp", "expm1", "log", "log2", "log1p",
           "sqrt", "rsqrt", "abs", "sign", "floor", "round", "sin", "cos", "tan", "tanh",
           "sigmoid", "relu", "erf", "clamp", "clip", "maximum", "minimum", "where", "sum",
           "mean", "reciprocal", "square", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
           "logical_or", "logical_not", "isnan", "isinf", "isfinite", "clone", "reshape"]

add, sub, mul, div, pow = m.add, m.sub, m.mul, m.div, m.pow  # noqa: A001
neg, exp, expm1, log, log2, log1p = ew.neg, ew.exp, ew.expm1, ew.log, ew.log2, ew.log1p
sqrt, rsqrt, abs, sign, floor = ew.sqrt, ew.rsqrt, ew.abs_, ew.sign, ew.floor  # noqa: A001
sin, cos, tan, tanh, sigmoid, relu, erf = ew.sin, ew.cos, ew.tan, ew.tanh, ew.sigmoid, ew.relu, ew.erf_op
clamp = clip = m.clamp
maximum, minimum, where, sum, mean = m.maximum, m.minimum, m.where, m.sum, m.mean  # noqa: A001
reciprocal = ew.reciprocal
eq, ne, lt, le, gt, ge = ew.eq, ew.ne, ew.lt, ew.le, ew.gt, ew.ge
logical_and, logical_or, logical_not = ew.logical_and, ew.logical_or, ew.logical_not
isnan, isinf, isfinite = ew.isnan, ew.isinf, ew.isfinite


def round(input, *, decimals=0):  # noqa: A001,A002
    return ew.round_(input, decimals=decimals)


def square(input):  # noqa: A002
    return ew.pow_scalar(input, exponent=2)


def clone(input, *, memory_format=None):  # noqa: A002
    return ew.clone(input)


def reshape(input, shape):  # noqa: A002
    return m.reshape(input, shape)


globals().update(_module_functions())
__all__ += list(_module_functions())

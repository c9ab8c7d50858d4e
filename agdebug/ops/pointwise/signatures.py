"""torch's signatures for the pointwise math of rounding_trig.py and binary.py, and the
in-place ``_`` variants of pointwise ops: ``agdebug.lerp(x, y, 0.3)``, ``x.ceil_()``.

Argument handling only: which overload (and so which node) a call means, numbers
against tensors, torch's TypeErrors. The maths lives in the op modules.
"""

from __future__ import annotations

from ... import backend
from ...tensor import Tensor
from . import binary as bm
from . import unary, activations, arithmetic as ew
from . import rounding_trig as um
from ..tensor_methods.operators import _require_tensor, atan2, atan2_method, operand, tensors_only
from ..tensor_methods.inplace import inplace
from ..core.inplace import apply_inplace


def _invalid(name: str, *args) -> TypeError:
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:")


def _tensor_or_number(name: str, tensor_op, scalar_op, keyword: str):
    """A function and a method for torch's ``(Tensor input, Tensor other)`` and
    ``(Tensor input, Number other)`` overloads, two nodes (``FmodBackward1``/``0``)."""
    def function(input, other):
        if not isinstance(input, Tensor):
            raise _invalid(name, input, other)
        if isinstance(other, Tensor):
            return tensor_op(input, other)
        return scalar_op(input, **{keyword: operand(other)})

    def method_(self, other):
        if isinstance(other, Tensor):
            return apply_inplace(tensor_op, self, (other,), {})
        if keyword != "other":   # clamp_min_/clamp_max_: torch's own cast message
            bm.check_bound_cast(self, other)
        return apply_inplace(scalar_op, self, (), {keyword: operand(other)})
    function.__name__, method_.__name__ = name, name + "_"
    return function, method_


fmod, fmod_ = _tensor_or_number("fmod", bm.fmod, bm.fmod_scalar, "other")
copysign, copysign_ = _tensor_or_number("copysign", bm.copysign, bm.copysign_scalar, "other")
clamp_min, clamp_min_ = _tensor_or_number("clamp_min", bm.clamp_min_tensor, bm.clamp_min, "min")
clamp_max, clamp_max_ = _tensor_or_number("clamp_max", bm.clamp_max_tensor, bm.clamp_max, "max")

hypot, hypot_method = tensors_only(bm.hypot)
logaddexp, logaddexp_method = tensors_only(bm.logaddexp)
logaddexp2, logaddexp2_method = tensors_only(bm.logaddexp2)
fmax, fmax_method = tensors_only(bm.fmax)
fmin, fmin_method = tensors_only(bm.fmin)
atan2_, hypot_ = inplace(unary.atan2), inplace(bm.hypot)


def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``input > 0``, ``values`` where ``input == 0``."""
    _require_tensor("heaviside", "input", 1, input)
    _require_tensor("heaviside", "values", 2, values)
    return bm.heaviside(input, values)


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input`` is 0 (unless ``other`` is NaN).

    >>> import agdebug as ag
    >>> ag.xlogy(ag.tensor([0.0, 2.0]), ag.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return bm.xlogy(input, other)
    if isinstance(other, Tensor):
        return bm.xlogy_self_scalar(operand(input), other)
    if isinstance(input, Tensor):
        return bm.xlogy_other_scalar(input, other=operand(other))
    raise _invalid("xlogy", input, other)


def xlogy_(self, other):
    if isinstance(other, Tensor):
        return apply_inplace(bm.xlogy, self, (other,), {})
    return apply_inplace(bm.xlogy_other_scalar, self, (), {"other": operand(other)})


def logit(input, eps=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return um.logit(input) if eps is None else um.logit(input, eps=float(eps))


def logit_(self, eps=None):
    return apply_inplace(um.logit, self, (), {} if eps is None else {"eps": float(eps)})


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest by default)."""
    return um.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return apply_inplace(um.nan_to_num, self, (),
                         {"nan": nan, "posinf": posinf, "neginf": neginf})


def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` a number (LerpBackward0) or a tensor
    (LerpBackward1). No promotion: all tensors share ``input``'s floating dtype.

    >>> import agdebug as ag
    >>> ag.lerp(ag.tensor([0.0, 10.0]), ag.tensor([10.0, 20.0]), 0.5)
    tensor([ 5., 15.])
    """
    if isinstance(weight, Tensor):
        return bm.lerp_tensor(input, end, weight)
    return bm.lerp(input, end, weight=operand(weight))


def lerp_(self, end, weight):
    if isinstance(weight, Tensor):
        return apply_inplace(bm.lerp_tensor, self, (end, weight), {})
    return apply_inplace(bm.lerp, self, (end,), {"weight": operand(weight)})


def _scalar(value):
    """A Scalar argument (``value=``): a number, or a one-element tensor's number."""
    return value.item() if isinstance(value, Tensor) else operand(value)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``.

    >>> import agdebug as ag
    >>> ag.addcmul(ag.tensor([1.0]), ag.tensor([2.0]), ag.tensor([3.0]), value=0.5)
    tensor([4.])
    """
    return bm.addcmul(input, tensor1, tensor2, value=_scalar(value))


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (not for two integer tensors)."""
    return bm.addcdiv(input, tensor1, tensor2, value=_scalar(value))


def addcmul_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(bm.addcmul, self, (tensor1, tensor2), {"value": _scalar(value)})


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(bm.addcdiv, self, (tensor1, tensor2), {"value": _scalar(value)})


def _double(t: Tensor) -> Tensor:
    return t if t.dtype is backend.float64 else t.to(backend.float64)


def float_power(input, exponent):
    """``input ** exponent`` in double precision: both are made float64 first (ToCopyBackward0
    nodes), then PowBackward0/1/2 as ``pow`` would record."""
    if not isinstance(input, Tensor):
        return ew.rpow(_double(exponent), base=float(operand(input)))
    if isinstance(exponent, Tensor):
        return ew.pow_tensor(_double(input), _double(exponent))
    return ew.pow_scalar(_double(input), exponent=float(operand(exponent)))


def float_power_(self, exponent):
    if self.dtype is not backend.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._legacy} but "
                           "the operation's result requires dtype Double")
    if isinstance(exponent, Tensor):
        return apply_inplace(ew.pow_tensor, self, (_double(exponent),), {})
    return apply_inplace(ew.pow_scalar, self, (), {"exponent": float(operand(exponent))})


def positive(input):
    """``input`` itself (``+input``); bool tensors are refused, as in torch."""
    if input.dtype is backend.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def square_(self):
    return apply_inplace(ew.pow_scalar, self, (), {"exponent": 2})


def round_inplace(self, *, decimals=None):
    if decimals is None:
        return apply_inplace(unary.round_, self, (), {})
    return apply_inplace(unary.round_decimals, self, (), {"decimals": decimals})


_UNARY_INPLACE = {**um.UNARY, "abs": unary.abs_, "absolute": unary.abs_, "sqrt": unary.sqrt,
                  "rsqrt": unary.rsqrt, "log": unary.log, "log2": unary.log2, "log1p": unary.log1p,
                  "expm1": unary.expm1, "sin": unary.sin, "cos": unary.cos, "tan": unary.tan,
                  "floor": unary.floor, "sign": unary.sign, "erf": activations.erf_op,
                  "reciprocal": ew.reciprocal, "negative": ew.neg}

FUNCTIONS = {**um.UNARY, "logit": logit, "nan_to_num": nan_to_num, "positive": positive,
             "absolute": unary.abs_, "negative": ew.neg,
             "fmod": fmod, "copysign": copysign, "clamp_min": clamp_min, "clamp_max": clamp_max,
             "hypot": hypot, "logaddexp": logaddexp, "logaddexp2": logaddexp2, "fmax": fmax,
             "fmin": fmin, "heaviside": heaviside, "xlogy": xlogy, "lerp": lerp,
             "addcmul": addcmul, "addcdiv": addcdiv, "float_power": float_power,
             "arctan2": atan2}

METHODS = {**um.UNARY, "logit": logit, "nan_to_num": nan_to_num, "positive": positive,
           "fmod": fmod, "copysign": copysign, "clamp_min": clamp_min, "clamp_max": clamp_max,
           "hypot": hypot_method, "logaddexp": logaddexp_method,
           "logaddexp2": logaddexp2_method, "fmax": fmax_method, "fmin": fmin_method,
           "heaviside": heaviside, "xlogy": xlogy, "lerp": lerp, "addcmul": addcmul,
           "addcdiv": addcdiv, "float_power": float_power, "arctan2": atan2_method,
           # in place
           **{name + "_": inplace(op) for name, op in _UNARY_INPLACE.items()},
           "logit_": logit_, "nan_to_num_": nan_to_num_, "fmod_": fmod_, "copysign_": copysign_,
           "clamp_min_": clamp_min_, "clamp_max_": clamp_max_, "hypot_": hypot_,
           "atan2_": atan2_, "arctan2_": atan2_, "xlogy_": xlogy_, "lerp_": lerp_,
           "heaviside_": inplace(bm.heaviside),
           "addcmul_": addcmul_, "addcdiv_": addcdiv_, "float_power_": float_power_,
           "square_": square_, "round_": round_inplace}

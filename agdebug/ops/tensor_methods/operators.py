"""torch's call signatures for the registered ops: ``agdebug.exp(x)``, ``x.exp()``, ``x + y``.

This is argument handling only (defaults, ``dim`` spellings, scalar operands,
choosing the op variant whose node torch would name); the maths lives in the
op modules.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ... import backend
from ...backend import get_dtype, result_dtype
from ...graph.grad_mode import MODE
from ...tensor import Tensor
from ..pointwise import comparison, unary, arithmetic as ew
from ..reduction import sum_prod as rd
from ..shape import views_copies as sh
from ..core.inplace import apply_inplace, can_cast
from ..core.running import run_direct
from .views import shape_arg


def operand(value):
    """A Tensor or a Python number, as ops take them; anything else is torch's TypeError."""
    if isinstance(value, Tensor) or type(value) in (bool, int, float):
        return value
    if isinstance(value, numbers.Number):   # numpy scalars count as Python numbers, as in torch
        return value.item() if hasattr(value, "item") else float(value)
    raise TypeError(f"unsupported operand type: '{type(value).__name__}'")


_DIRECT = (Tensor, float, int)   # operand() would return these unchanged


def _operand_or_none(value):
    try:
        return operand(value)
    except TypeError:
        return None


def operator(fn):
    """``fn`` as a Python operator: anything but a tensor or a number gives NotImplemented,
    so Python says ``unsupported operand type(s) for /: 'Tensor' and 'str'``, as with torch."""
    def method(self, other):
        if type(other) not in _DIRECT and _operand_or_none(other) is None:
            return NotImplemented
        return fn(self, other)
    return method


def _binary(op, reflected=None):
    # Python's own "unsupported operand type(s) for +: 'Tensor' and 'str'" for anything else,
    # as torch gives it: the operator returns NotImplemented.
    def method(self, other):
        if type(other) not in _DIRECT:   # the common cases skip a call (operators are hot)
            if (other := _operand_or_none(other)) is None:
                return NotImplemented
        return run_direct(op, (self, other))

    def rmethod(self, other):
        if type(other) not in _DIRECT:
            if (other := _operand_or_none(other)) is None:
                return NotImplemented
        if reflected is not None:
            return reflected(self, other)
        return run_direct(op, (self, other))
    return method, rmethod


def add(input, other, *, alpha=1):
    _check_alpha(input, other, alpha)
    return ew.add(_as_input(input), operand(other), alpha=alpha)


def sub(input, other, *, alpha=1):
    # torch.sub(2, x) is SubBackward0 with tensor(2) as self (the operator ``2 - x``: Rsub)
    _check_alpha(input, other, alpha)
    return ew.sub(_as_input(input), operand(other), alpha=alpha)


def _as_input(value) -> Tensor:
    """A number given as ``input`` (``torch.add(7, 2.5)``) is a 0-d tensor first, of the dtype
    torch gives it (a float: the default dtype), so the result's dtype and node are torch's."""
    if isinstance(value, Tensor):
        return value
    value = operand(value)
    np_dtype = backend.DEFAULT_FLOAT.np if type(value) is float else \
        backend.to_numpy_dtype(type(value))
    return Tensor._wrap(np.asarray(value, dtype=np_dtype))


def mul(input, other):
    return ew.mul(_as_input(input), operand(other))


def div(input, other, *, rounding_mode=None):
    # torch.div(2, x) is DivBackward0 with the number as ``self``; only the operator
    # ``2 / x`` is reciprocal(x) * 2 (MulBackward0), see true_div_r.
    if rounding_mode is not None:
        return ew.div_rounded(_as_input(input), operand(other),
                              rounding_mode=_rounding_mode(rounding_mode))
    return ew.div(_as_input(input), operand(other))


def _rounding_mode(rounding_mode):
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    return rounding_mode


def pow(input, exponent):
    if not isinstance(input, Tensor):
        return ew.rpow(exponent, base=operand(input))
    if isinstance(exponent, Tensor):
        return ew.pow_tensor(input, exponent)
    return ew.pow_scalar(input, exponent=operand(exponent))


def remainder(input, other):
    if isinstance(other, Tensor):
        return ew.remainder(operand(input), other)
    return ew.remainder_scalar(input, other=operand(other))


def true_div_r(self, other):
    return ew.mul(ew.reciprocal(self), operand(other))


def clamp(input, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return comparison.clamp_tensor(input, min, max)
    return comparison.clamp(input, min=min, max=max)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in condition._data.nonzero())
    if isinstance(condition, Tensor) and condition._data.dtype == np.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of PyTorch. Use a boolean condition "
                      "instead.", UserWarning, stacklevel=2)
        condition = condition != 0   # torch still takes it, as the mask it means
    return comparison.where(operand(input), operand(other), condition=condition)


# ----------------------------------------------------------------------------- bitwise

def bitwise_operator(op, reflected: bool = False):
    """``x & y`` (and ``y & x``: the ops commute); ``reflected``: ``2 << x``, the operand
    first. Another operand is Python's TypeError, as in torch: ``NotImplemented`` lets
    Python say ``unsupported operand type(s)``."""
    def method(self, other):
        try:
            other = operand(other)
        except TypeError:
            return NotImplemented
        return op(other, self) if reflected else op(self, other)
    method.__name__ = op.name
    return method


def bitwise_function(op):
    """``agdebug.bitwise_and(x, 3)``; torch also takes the number first, but not two."""
    def function(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"{op.name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(other).__name__}), but expected "
                            "one of:")
        return op(operand(input), operand(other))
    function.__name__ = op.name
    return function


def bitwise_inplace(op):
    """``x &= y``, ``x.bitwise_and_(y)``: torch's cast rule is checked before the kernel's
    dtype check (``int_tensor &= 2.5`` is a cast error, not NotImplementedError)."""
    def method(self, other):
        other = operand(other)
        target = self._data.dtype
        other_data, other_dim = (other._data, other._data.ndim) if isinstance(other, Tensor) \
            else (other, -1)
        dt = result_dtype(self._data, other_data, self._data.ndim, other_dim)
        if not can_cast(dt, target):
            raise RuntimeError(f"result type {get_dtype(dt)._legacy} can't be cast to the "
                               f"desired output type {get_dtype(target)._legacy}")
        if dt != target and dt.kind in "iu" and isinstance(other, Tensor):
            # ``uint8 |= int64``: torch casts the int64 result down, which the write-back
            # refuses; bits do not mix, so casting the operand first is the same.
            other = other.to(self.dtype)
        return apply_inplace(op, self, (other,), {})
    method.__name__ = op.name + "_"
    return method


def invert(self):
    if self._data.dtype.kind == "f":   # the operator's own message; bitwise_not's differs
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return comparison.bitwise_not(self)


# ----------------------------------------------------------------------------- tensors only

def _require_tensor(name: str, argument: str, position: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def tensors_only(op):
    """torch's binary ops with no number overload (``logical_and``, ``atan2``): a number is
    torch's TypeError, naming the argument and its position (a method's self not counted)."""
    def function(input, other):
        _require_tensor(op.name, "input", 1, input)
        _require_tensor(op.name, "other", 2, other)
        return op(input, other)

    def method(self, other):
        _require_tensor(op.name, "other", 1, other)
        return op(self, other)
    function.__name__ = method.__name__ = op.name
    return function, method


logical_and, logical_and_method = tensors_only(comparison.logical_and)
logical_or, logical_or_method = tensors_only(comparison.logical_or)
logical_xor, logical_xor_method = tensors_only(comparison.logical_xor)
atan2, atan2_method = tensors_only(unary.atan2)


def logical_not(input):
    _require_tensor("logical_not", "input", 1, input)
    return comparison.logical_not(input)


def round_(input, *, decimals=None):
    """``round(x)`` is RoundBackward0 and keeps an integer tensor; ``round(x, decimals=d)``
    (even d = 0) is torch's other overload, RoundBackward1, floating tensors only."""
    if decimals is None:
        return unary.round_(input)
    return unary.round_decimals(input, decimals=decimals)


def floor_divide(input, other):
    return ew.floor_divide(operand(input), operand(other))


FUNCTIONS = {"bitwise_and": bitwise_function(comparison.bitwise_and),
             "bitwise_or": bitwise_function(comparison.bitwise_or),
             "bitwise_xor": bitwise_function(comparison.bitwise_xor),
             "bitwise_not": comparison.bitwise_not,
             # torch's aliases and the functions agdebug had as methods only
             "true_divide": div, "divide": div, "subtract": sub, "multiply": mul,
             "remainder": remainder, "floor_divide": floor_divide, "atan2": atan2,
             "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
             "logical_not": logical_not, "round": round_}


def maximum(input, other):
    return comparison.maximum(input, other)


def minimum(input, other):
    return comparison.minimum(input, other)


# ----------------------------------------------------------------------------- reductions

def sum(input, dim=None, keepdim=False, *, dtype=None):
    np_dtype = _np_dtype(dtype)
    if dim is None:
        return rd.sum_all(input, dtype=np_dtype)
    return rd.sum_dim(input, dim=dim, keepdim=keepdim, dtype=np_dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    np_dtype = _np_dtype(dtype)
    if dim is None:
        return rd.mean_all(input, dtype=np_dtype)
    return rd.mean_dim(input, dim=dim, keepdim=keepdim, dtype=np_dtype)


def sum_to_size(self, *size):
    size = shape_arg(size)
    shape = self._data.shape
    if shape == size:
        return self
    if len(size) > len(shape) or any(s != 1 and s != n for s, n in zip(size[::-1], shape[::-1])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    lead = len(shape) - len(size)
    if lead <= 0 or not (self.requires_grad and MODE.grad_enabled):
        return rd.sum_to_size(self, size=size)
    # torch's sum_to: a full sum to () (SumBackward0); else a keepdim sum, then a view that
    # drops the leading dims (ViewBackward0). Unrecorded, one op does both (the engine's
    # gradient reductions take that path).
    if not size:
        return rd.sum_all(self)
    kept = rd.sum_to_size(self, size=(1,) * lead + size)
    return sh.view(kept, shape=size)


def _np_dtype(dtype):
    if dtype is None:
        return None
    from ...backend import to_numpy_dtype
    return to_numpy_dtype(dtype)


def _check_alpha(input, other, alpha) -> None:
    """torch's ``alpha_check`` on the result dtype: no float alpha for integers or bools, no
    bool alpha but for bools. (Operators pass no alpha: only these calls check.)"""
    if type(alpha) is int:   # the usual case, always allowed
        return
    a, b = (t._data if isinstance(t, Tensor) else t for t in (input, other))
    kind = result_dtype(a, b, getattr(a, "ndim", -1), getattr(b, "ndim", -1)).kind
    if type(alpha) is bool and kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and kind in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")

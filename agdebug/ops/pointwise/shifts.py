"""torch's bit shifts: ``bitwise_left_shift`` / ``bitwise_right_shift`` (``<<``, ``>>``), their
methods and in-place forms. Integers only, as torch's kernels (``lshift_cpu``); a shift by a
negative amount or by the width or more gives 0 (``>>``: the sign), as NumPy's and torch's."""

from __future__ import annotations

import numbers

from ...tensor import Tensor
from ..core.arguments import invalid_combination
from ..core.registry import defop
from ..tensor_methods import operators as m
from .comparison import _integral_operands, _not_implemented


def _shift(name: str, kernel: str, fn):
    @defop(name, node="NotDifferentiable", differentiable=False, broadcasts=True)
    def forward(xp, x, y):
        x, y = _integral_operands(xp, kernel, x, y)
        if x.dtype.kind == "b":   # (promotion leaves bool only for two bools)
            _not_implemented(xp, kernel, x.dtype)
        return fn(xp, x, y)
    return forward


bitwise_left_shift = _shift("bitwise_left_shift", "lshift", lambda xp, x, y: xp.left_shift(x, y))
bitwise_right_shift = _shift("bitwise_right_shift", "rshift",
                             lambda xp, x, y: xp.right_shift(x, y))


def _named(op, method: bool = False):
    """``torch.bitwise_left_shift(input, other)`` / ``x.bitwise_left_shift(other)``: a tensor
    and a tensor or number (either first, for the function), else torch's overload error."""
    def call(input, other):
        values = (input, other)
        if not all(isinstance(v, (Tensor, numbers.Number)) for v in values) or \
                not any(isinstance(v, Tensor) for v in values):
            raise invalid_combination(op.name, values[1:] if method else values, {})
        return op(m.operand(input), m.operand(other))
    call.__name__ = call.__qualname__ = op.name
    return call


_LEFT_, _RIGHT_ = m.bitwise_inplace(bitwise_left_shift), m.bitwise_inplace(bitwise_right_shift)
METHODS = {
    "bitwise_left_shift": _named(bitwise_left_shift, method=True),
    "bitwise_right_shift": _named(bitwise_right_shift, method=True),
    "__lshift__": m.bitwise_operator(bitwise_left_shift),
    "__rshift__": m.bitwise_operator(bitwise_right_shift),
    "__rlshift__": m.bitwise_operator(bitwise_left_shift, reflected=True),
    "__rrshift__": m.bitwise_operator(bitwise_right_shift, reflected=True),
    "bitwise_left_shift_": _LEFT_, "bitwise_right_shift_": _RIGHT_,
    "__ilshift__": _LEFT_, "__irshift__": _RIGHT_,
}
FUNCTIONS = {"bitwise_left_shift": _named(bitwise_left_shift),
             "bitwise_right_shift": _named(bitwise_right_shift)}

"""torch's call signatures for the registered ops: ``agdebug.exp(x)``, ``x.exp()``, ``x + y``.

This is argument handling only (defaults, ``dim`` spellings, scalar operands,
choosing the op variant whose node torch would name); the maths lives in the
op modules.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import backend
from ..backend import get_dtype, result_dtype
from ..graph.grad_mode import MODE
from ..tensor import Tensor
from . import device as dev
from .pointwise import comparison, unary, arithmetic as ew, copying
from .reduction import sum_prod as rd
from .shape import views_copies as sh
from .pointwise.binary import check_bound_cast
from .core.inplace import apply_inplace, can_cast
from .core.running import run_direct
from .core.storage import data_pointer, storage_root


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

def bitwise_operator(op):
    """``x & y`` (and ``y & x``: the ops commute). Another operand is Python's TypeError,
    as in torch: ``NotImplemented`` lets Python say ``unsupported operand type(s)``."""
    def method(self, other):
        try:
            other = operand(other)
        except TypeError:
            return NotImplemented
        return op(self, other)
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
    from ..backend import to_numpy_dtype
    return to_numpy_dtype(dtype)


# ----------------------------------------------------------------------------- shapes

def shape_arg(size) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` and check the element count, with torch's messages."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view(self, *shape, dtype=None):
    if dtype is not None or (shape and not isinstance(shape[0], (tuple, list, int))
                             and backend.as_dtype(shape[0]) is not None):
        return view_dtype(self, *shape, dtype=dtype)
    target = infer_shape(shape_arg(shape), self.numel())
    if not self._data.flags.c_contiguous and self._data.ndim > 1 and self._data.size > 1:
        if not _viewable(self._data, target):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return sh.view(self, shape=target)


def view_dtype(self, *args, dtype=None):
    """``x.view(torch.int32)``: the same bytes read as another dtype.

    torch's ``view(dtype)`` is not differentiable: the result never requires grad, has no
    grad_fn and is no view for autograd (``_base`` is None), whatever the dtype; it shares
    the storage and so the version counter, as ``detach()`` does. Nor does it inherit
    ``is_inference()``: torch makes it as any new tensor in the current mode.
    """
    if dtype is None and len(args) == 1:
        (dtype,), args = args, ()
    if args:   # torch takes a dtype or a shape, not both
        got = ", ".join("torch.dtype" if backend.as_dtype(a) is not None else type(a).__name__
                        for a in (*args, *([dtype] if dtype is not None else [])))
        raise TypeError(f"view() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:")
    new = backend.as_dtype(dtype)   # ``x.view(float)``: Python's float is torch's double
    if new is None:
        raise TypeError(f"view(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    old = self.dtype
    array = self._data
    if new.itemsize != old.itemsize:
        _check_view_dtype(array, old, new)
    out = Tensor._wrap(array.view(new.np), None, 0, self._version_counter())
    out._inference = MODE.inference   # torch: a new tensor of the mode, whatever self was
    return out


def _check_view_dtype(array, old, new) -> None:
    """torch's checks, in its order, where the element size changes (numpy's differ)."""
    def fail(what, tail=""):
        raise RuntimeError(f"{what} to view {old._legacy} as {new._legacy} (different element "
                           f"sizes){tail}")
    if array.ndim == 0:
        fail("self.dim() cannot be 0")
    strides = _strides(array)
    if strides[-1] != 1:
        fail("self.stride(-1) must be 1", f", but got {strides[-1]}")
    if new.itemsize < old.itemsize:
        return
    ratio = new.itemsize // old.itemsize
    if array.shape[-1] % ratio:
        fail(f"self.size(-1) must be divisible by {ratio}", f", but got {array.shape[-1]}")
    offset = _storage_offset(array)
    if offset % ratio:
        fail(f"self.storage_offset() must be divisible by {ratio}", f", but got {offset}")
    for i, stride in enumerate(strides[:-1]):
        if stride % ratio:
            fail(f"self.stride({i}) must be divisible by {ratio}", f", but got {stride}")


def _strides(array) -> list:
    """torch's strides, in elements. NumPy gives an empty array zero strides; torch gives it
    contiguous ones (each size counted as at least 1)."""
    if array.size:
        return [s // array.itemsize for s in array.strides]
    strides, step = [], 1
    for size in reversed(array.shape):
        strides.insert(0, step)
        step *= max(size, 1)
    return strides


def _storage_offset(array) -> int:
    """Elements from the start of the array's storage (its last base) to its first one."""
    return (data_pointer(array) - data_pointer(storage_root(array))) // array.itemsize


def _viewable(array, target) -> bool:
    try:
        view_of = array.view()
        view_of.shape = target   # numpy refuses exactly when a copy would be needed
        return True
    except AttributeError:
        return False


def reshape(self, *shape):
    target = infer_shape(shape_arg(shape), self.numel())
    if self._data.flags.c_contiguous:
        return sh.view(self, shape=target)
    if _viewable(self._data, target):
        return sh.reshape_alias(self, shape=target)
    return sh.unsafe_view(copying.clone(self), shape=target)


def expand(self, *sizes):
    sizes = shape_arg(sizes)
    current = self.shape
    if len(sizes) < len(current):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(current)}}}, size={list(sizes)}): the number of "
            "sizes provided (%d) must be greater or equal to the number of dimensions in the "
            "tensor (%d)" % (len(sizes), len(current)))
    lead = len(sizes) - len(current)
    target = []
    for i, s in enumerate(sizes):
        if i >= lead:
            have = current[i - lead]
            if s == -1:
                s = have
            elif have != 1 and have != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size "
                    f"({have}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(current)}")
        elif s == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading,"
                               f" non-existing dimension {i}")
        target.append(s)
    return sh.expand(self, shape=tuple(target))


def expand_as(self, other):
    return expand(self, other.shape)


# ----------------------------------------------------------------------------- in place

def inplace(op, **fixed):
    def method(self, *args, **attrs):
        return apply_inplace(op, self, tuple(operand(a) for a in args), {**fixed, **attrs})
    method.__name__ = op.name + "_"
    return method


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast) into this tensor, from any device, as torch does."""
    src = operand(src)
    if isinstance(src, Tensor) and src.device != self.device:
        return apply_inplace(dev.copy_across_devices, self, (src,), {"source": src.device})
    return apply_inplace(copying.copy, self, (src,), {})


def add_(self, other, *, alpha=1):
    _check_alpha(self, other, alpha)
    return apply_inplace(ew.add, self, (operand(other),), {"alpha": alpha})


def sub_(self, other, *, alpha=1):
    _check_alpha(self, other, alpha)
    return apply_inplace(ew.sub, self, (operand(other),), {"alpha": alpha})


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


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return apply_inplace(ew.div_rounded, self, (operand(other),),
                             {"rounding_mode": _rounding_mode(rounding_mode)})
    return apply_inplace(ew.div, self, (operand(other),), {})


def clamp_(self, min=None, max=None):
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        check_bound_cast(self, min, max)
    return apply_inplace(comparison.clamp, self, (), {"min": min, "max": max})

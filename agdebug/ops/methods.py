"""torch's call signatures for the registered ops: ``agdebug.exp(x)``, ``x.exp()``, ``x + y``.

This is argument handling only (defaults, ``dim`` spellings, scalar operands,
choosing the op variant whose node torch would name); the maths lives in the
op modules.
"""

from __future__ import annotations

import numbers

from ..tensor import Tensor
from . import elementwise as ew
from . import reduce as rd
from . import shape as sh
from .registry import apply_inplace


def operand(value):
    """A Tensor or a Python number, as ops take them; anything else is torch's TypeError."""
    if isinstance(value, Tensor) or type(value) in (bool, int, float):
        return value
    if isinstance(value, numbers.Number):   # numpy scalars count as Python numbers, as in torch
        return value.item() if hasattr(value, "item") else float(value)
    raise TypeError(f"unsupported operand type: '{type(value).__name__}'")


_DIRECT = (Tensor, float, int)   # operand() would return these unchanged


def _binary(op, reflected=None):
    def method(self, other):
        if type(other) not in _DIRECT:   # the common cases skip a call (operators are hot)
            other = operand(other)
        return op(self, other)

    def rmethod(self, other):
        if type(other) not in _DIRECT:
            other = operand(other)
        if reflected is not None:
            return reflected(self, other)
        return op(self, other)
    return method, rmethod


def add(input, other, *, alpha=1):
    return ew.add(input, operand(other), alpha=alpha)


def sub(input, other, *, alpha=1):
    if not isinstance(input, Tensor):
        return ew.rsub(other, input)
    return ew.sub(input, operand(other), alpha=alpha)


def mul(input, other):
    if not isinstance(input, Tensor):
        input, other = other, input
    return ew.mul(input, operand(other))


def div(input, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    if not isinstance(input, Tensor):
        return ew.mul(ew.reciprocal(other), input)
    return ew.div(input, operand(other))


def _rounded_div(input, other, rounding_mode):
    q = div(input, other)
    if rounding_mode == "floor":
        return q.floor()
    if rounding_mode == "trunc":
        return q.sign() * q.abs().floor()
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


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
        return ew.clamp_tensor(input, min, max)
    return ew.clamp(input, min=min, max=max)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in condition._data.nonzero())
    return ew.where(operand(input), operand(other), condition=condition)


def maximum(input, other):
    return ew.maximum(input, other)


def minimum(input, other):
    return ew.minimum(input, other)


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
    if tuple(self.shape) == size:
        return self
    return rd.sum_to_size(self, size=size)


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


def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
        return self.to(shape[0])
    target = infer_shape(shape_arg(shape), self.numel())
    if not self._data.flags.c_contiguous and self._data.ndim > 1 and self._data.size > 1:
        if not _viewable(self._data, target):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return sh.view(self, shape=target)


def _viewable(array, target) -> bool:
    try:
        view_of = array.view()
        view_of.shape = target   # numpy refuses exactly when a copy would be needed
        return True
    except AttributeError:
        return False


def reshape(self, *shape):
    target = infer_shape(shape_arg(shape), self.numel())
    if self._data.flags.c_contiguous or _viewable(self._data, target):
        return sh.view(self, shape=target)
    return sh.unsafe_view(ew.clone(self), shape=target)


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


def add_(self, other, *, alpha=1):
    return apply_inplace(ew.add, self, (operand(other),), {"alpha": alpha})


def sub_(self, other, *, alpha=1):
    return apply_inplace(ew.sub, self, (operand(other),), {"alpha": alpha})


def div_(self, other):
    return apply_inplace(ew.div, self, (operand(other),), {})


def clamp_(self, min=None, max=None):
    return apply_inplace(ew.clamp, self, (), {"min": min, "max": max})

"""In-place methods: ``x.add_(y)``, ``x.copy_(src)``, ``x.clamp_()``... with torch's
checks of the written dtype."""

from __future__ import annotations

from ...tensor import Tensor
from . import device as dev
from ..pointwise import comparison, arithmetic as ew, copying
from ..pointwise.binary import check_bound_cast
from ..core.inplace import apply_inplace
from .operators import _check_alpha, _rounding_mode, operand


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


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return apply_inplace(ew.div_rounded, self, (operand(other),),
                             {"rounding_mode": _rounding_mode(rounding_mode)})
    return apply_inplace(ew.div, self, (operand(other),), {})


def clamp_(self, min=None, max=None):
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        check_bound_cast(self, min, max)
    return apply_inplace(comparison.clamp, self, (), {"min": min, "max": max})

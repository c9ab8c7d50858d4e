"""``dim`` and shape arguments as torch checks them, and torch's errors for them."""

from __future__ import annotations

import numpy as np

from ... import backend


def c_div(a: int, b: int) -> int:
    """C++'s integer division (it truncates toward zero), as torch's checks compute it."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def dims_of(dim, ndim: int):
    """torch's ``dim`` argument as a numpy ``axis``: None, or a tuple of non-negative ints."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return None
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    out = []
    for d in dims:
        if not lo <= d <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(out)


def check_divisor_override(function: str, divisor) -> None:
    """The average pools' ``divisor_override``: None, or a non-zero int (torch's errors)."""
    if divisor is None:
        return
    if not isinstance(divisor, (int, np.integer)) or isinstance(divisor, bool):
        raise TypeError(f"{function}(): argument 'divisor_override' must be int, not "
                        f"{type(divisor).__name__}")
    if divisor == 0:
        raise RuntimeError("divisor must be not zero")


def kernel_missing(kernel: str, dtype) -> NotImplementedError:
    """torch's error for a dtype that its kernel ``kernel`` has no version for (to raise)."""
    if not isinstance(dtype, backend.dtype):
        dtype = backend.get_dtype(dtype)
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype._legacy}\'')


def broadcast_shape(*shapes) -> tuple:
    """The shape ``shapes`` broadcast to, or torch's RuntimeError where they do not: checked
    as torch's ``infer_size``, pairwise from the first, each pair right to left (so the error
    names the last dimension that differs)."""
    shape = ()
    for other in shapes:
        other = tuple(other)
        ndim = max(len(shape), len(other))
        a, b = (1,) * (ndim - len(shape)) + shape, (1,) * (ndim - len(other)) + other
        for d in range(ndim - 1, -1, -1):
            if a[d] != b[d] and a[d] != 1 and b[d] != 1:
                raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of "
                                   f"tensor b ({b[d]}) at non-singleton dimension {d}") from None
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    return shape


def broadcast_error(*operands):
    """Called where NumPy raised ValueError: torch's RuntimeError if the operands' shapes do
    not broadcast (see :func:`broadcast_shape`); else nothing, and the caller re-raises."""
    broadcast_shape(*(getattr(operand, "shape", ()) for operand in operands))

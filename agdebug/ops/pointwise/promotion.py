"""How pointwise ops promote their operands as torch does: tensor and tensor, tensor and
a Python number (a "weak" scalar), checked conversions of numbers into a dtype."""

from __future__ import annotations

import math

import numpy as np

from ... import backend
from ...backend import result_dtype


def promote(a, b):
    """Cast two operands (arrays or Python scalars) to torch's result dtype."""
    a_is_array, b_is_array = hasattr(a, "dtype"), hasattr(b, "dtype")
    if a_is_array and b_is_array:
        if a.dtype is b.dtype or a.dtype == b.dtype:   # ``is``: cheap, and nearly always so
            return a, b
    elif a_is_array:   # a Python scalar of the array's kind (or lower) keeps its dtype
        if type(b) in _WEAK_KINDS.get(a.dtype.kind, ()):
            return a, weak(b, a)
    elif b_is_array and type(a) in _WEAK_KINDS.get(b.dtype.kind, ()):
        return weak(a, b), b
    dt = result_dtype(a, b, a.ndim if a_is_array else -1, b.ndim if b_is_array else -1)
    if type(a) is int or type(b) is int:   # a bool tensor and an int (the others are weak)
        _check_promoted_int(a if type(a) is int else b, b if type(a) is int else a, dt)
    if a_is_array and a.dtype != dt:
        a = a.astype(dt)
    if b_is_array and b.dtype != dt:
        b = b.astype(dt)
    return a, b


def scaled(t, number):
    """``t * number`` as torch's C++ derivative formulas record it: aten's ``mul.Scalar``
    (MulBackward1, one edge), where Python's ``t * number`` is MulBackward0."""
    from ..nn.attention import mul_scalar  # (that module imports this one)
    return mul_scalar(t, other=number)


def shifted(t, number):
    """``t + number`` as a C++ formula records it: ``add.Scalar`` (AddBackward1)."""
    from ..nn.loss_pieces import add_scalar  # (that module imports this one)
    return add_scalar(t, other=number)


def minus(t, number):
    """``t - number`` as a C++ formula records it: ``sub.Scalar`` (SubBackward1)."""
    from ..nn.loss_pieces import sub_scalar  # (that module imports this one)
    return sub_scalar(t, other=number)


_WEAK_KINDS = {"f": (float, int, bool), "i": (int, bool), "u": (int, bool), "b": (bool,)}


def _check_promoted_int(number: int, other, dtype) -> None:
    """torch reads an int beyond int64 as uint64, which it will not promote with bool."""
    _check_int_scalar(number)
    if number > 0x7FFF_FFFF_FFFF_FFFF and dtype.kind in "iu":
        name = backend.get_dtype(other.dtype)._legacy if hasattr(other, "dtype") else "Long"
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {name} and UInt64")


def weak(number, array):
    """A Python number as the read-only 0-d array of ``array``'s (float) dtype it becomes
    in ``array <op> number``, cached per value.

    NumPy converts the number to the array's dtype before the op anyway (NEP 50), so the
    result is the same to the bit, but that conversion costs as much again as the op on a
    small array (``x * 1.5``: 0.9 us against 0.45 us on a (4,) float32); scalar operands
    are everywhere in derivatives. NaN, zero (``-0.0 == 0.0``) and CuPy arrays take the
    number as it is; integer dtypes take it wrapped into their range (see ``in_dtype``).
    """
    if type(array) is not np.ndarray:
        return in_dtype(number, array.dtype)
    table = _WEAK_ARRAYS.get(array.dtype)
    if table is None:
        return in_dtype(number, array.dtype)
    found = table.get(number)
    if found is None:
        if not number or number != number:
            return number
        if type(number) is int:   # on a miss only: the cached values passed this check
            _check_int_scalar(number)
        if len(table) >= 4096:
            return number
        found = table[number] = np.array(number, dtype=array.dtype)
        found.flags.writeable = False
    return found


_WEAK_ARRAYS: dict = {np.dtype(t): {} for t in (np.float16, np.float32, np.float64)}


def in_dtype(number, dtype):
    """A Python number as torch casts it to an integer tensor's dtype: an out-of-range int
    wraps (``uint8 + 300`` is ``uint8 + 44``, ``uint8 < -1`` is ``uint8 < 255``), where NumPy 2
    raises OverflowError. Other numbers and dtypes pass unchanged."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None:
        if type(number) is int:
            _check_int_scalar(number)
        return number
    low, high = bounds
    if low <= number <= high or type(number) is not int:
        return number
    _check_int_scalar(number)
    span = high - low + 1
    number %= span
    return number - span if number > high else number


_INT_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.int8, np.uint8, np.int16, np.int32, np.int64)}


def _check_int_scalar(number: int) -> None:
    # torch reads a Python int as int64, or as uint64 where it is larger; beyond, it raises.
    if number > 0xFFFF_FFFF_FFFF_FFFF:
        raise OverflowError("int too big to convert")
    if number < -0x8000_0000_0000_0000:
        raise OverflowError("can't convert negative int to unsigned")


def checked(value, dtype):
    """A Python int converted as torch converts ``alpha``, clamp's bounds and where's or
    fill's values to an integer dtype: out of range is an error (where the operands wrap),
    but an unsigned dtype takes a negative down to -max, wrapped (two's complement)."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None or type(value) is not int:
        return value
    low, high = bounds
    if low <= value <= high:
        return value
    if low == 0 and -high <= value < 0:
        return value + high + 1
    _check_int_scalar(value)
    raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without overflow")


def converted(value, dtype):
    """A Python number converted as torch converts ``full``'s, ``fill_``'s and ``scatter``'s
    value (``checked_convert``): an int beyond uint64 is an OverflowError whatever the
    dtype; a float out of an integer dtype's range (NaN, inf, a negative one for unsigned)
    or a finite one beyond a float dtype's largest is a RuntimeError; ints go as ``checked``.
    """
    if type(value) is int:
        _check_int_scalar(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu" and type(value) is float:
        low, high = _INT_BOUNDS[dtype]
        if not float(low) <= value <= float(high):   # compared in double; False for NaN
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without "
                               "overflow")
        number = int(value)   # 2.0**63 passes that check: x86's cast makes it int64's lowest
        return number if number <= high else low
    if dtype.kind == "f" and math.isfinite(value) and abs(value) > _largest(dtype):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without "
                           "overflow")
    return checked(value, dtype)


def _largest(dtype) -> float:
    return float(np.finfo(dtype).max)


_C_TYPES = {np.dtype(t): name for t, name in (
    (np.int8, "int8_t"), (np.uint8, "uint8_t"), (np.int16, "int16_t"), (np.int32, "int"),
    (np.int64, "int64_t"), (np.float16, "c10::Half"), (np.float32, "float"),
    (np.float64, "double"))}   # as torch names them


_BOOL = np.dtype(np.bool_)   # one object: ``is`` tests it (NumPy and CuPy arrays alike)


def _is_bool(x) -> bool:
    return getattr(x, "dtype", None) is _BOOL or type(x) is bool


def _check_bool_sub(x, y):
    # torch refuses ``-`` on bool operands (NumPy raises TypeError, or computes float - bool).
    if _is_bool(x) and _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(x) or _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def to_float(x):
    """Integer/bool arrays become the default float dtype (torch's true division etc.)."""
    if hasattr(x, "dtype") and x.dtype.kind in "biu":
        return x.astype(backend.DEFAULT_FLOAT.np)
    return x

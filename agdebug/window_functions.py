"""torch's window functions: ``bartlett_window``, ``blackman_window``, ``hamming_window``,
``hann_window`` and ``kaiser_window``.

Each is computed as torch's kernel computes it (TensorFactories.cpp): an ``arange`` in the
window's dtype, then the same operations in the same order, each rounded to that dtype, so the
values are torch's to within an ulp or so of their cosines. A periodic window is the symmetric
window one longer, its last value dropped.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import backend
from .creation import _finish
from .ops.core.arguments import invalid_combination, must_be

_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _window(name: str, window_length, periodic, dtype, device, requires_grad, values):
    """Checks in torch's order, then ``values(n, np_dtype)`` for the symmetric length ``n``."""
    if isinstance(window_length, bool) or not isinstance(window_length, numbers.Integral):
        raise must_be(name, "window_length", 1, "int", window_length)
    if not isinstance(periodic, bool):
        raise invalid_combination(name, (window_length, periodic), {})
    dtype = backend.DEFAULT_FLOAT if dtype is None else backend.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CPP_NAMES.get(dtype.np.name, dtype.np.name)}, device=cpu, layout=Strided "
            "(default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    kind = dtype.np.type
    if window_length <= 1:
        array = np.ones(window_length, dtype=kind)
    else:
        n = int(window_length) + periodic
        array = values(n, kind)[:int(window_length)]
    return _finish(array, dtype, device, requires_grad)


def _hamming_values(alpha: float, beta: float):
    def values(n: int, kind):
        window = np.arange(n, dtype=kind) * kind(math.pi * 2.0 / (n - 1))
        return np.cos(window) * kind(-beta) + kind(alpha)
    return values


def _blackman_values(n: int, kind):
    window = np.arange(n, dtype=kind) * kind(math.pi / (n - 1))
    return (np.cos(window * kind(4)) * kind(0.08) - np.cos(window * kind(2)) * kind(0.5)) + \
        kind(0.42)


def _bartlett_values(n: int, kind):
    window = np.arange(n, dtype=kind) * kind(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    window[half:] = window[half:] * kind(-1) + kind(2)
    return window


def _kaiser_values(beta: float):
    # (computed in float64, NumPy's only i0, and rounded once: torch's float32 kernel rounds
    # each step, so float32 values may differ from it by an ulp or two)
    def values(n: int, kind):
        alpha = (n - 1) / 2.0
        ratio = (np.arange(n, dtype=np.float64) - alpha) / alpha
        window = np.i0(beta * np.sqrt(np.abs(1 - ratio ** 2))) / np.i0(beta)
        return window.astype(kind)
    return values


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """The Hann window, ``1/2 (1 - cos(2 pi n / (N - 1)))``.

    >>> import agdebug as ag
    >>> ag.hann_window(4, periodic=False)
    tensor([0.0000, 0.7500, 0.7500, 0.0000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _hamming_values(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    """The Hamming window, ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _hamming_values(float(alpha), float(beta)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The Blackman window, ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _blackman_values)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The Bartlett (triangular) window, ``1 - |2n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   _bartlett_values)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    """The Kaiser window, ``I0(beta sqrt(1 - ((n - N/2) / (N/2)) ** 2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   _kaiser_values(float(beta)))

"""Interpolation (``F.interpolate``'s upsample ops): nearest, nearest-exact, (bi/tri)linear
and bicubic, in 1, 2 or 3 spatial dims.

Each mode is separable: along every spatial dim the output is a fixed matrix (out, in)
times the input, the matrix holding torch's source indices and weights (computed with
torch's formulas and in its precision: float32 index maths for nearest, the input's dtype
for the others). The derivative applies the transposed matrices (torch's
``upsample_*_backward``), and the derivative of that is the forward again.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend
from .registry import defop
from .util import input_shape

MODES = {   # mode -> (torch's node stem, the dims it supports)
    "nearest": ("Nearest", (1, 2, 3)), "nearest-exact": ("NearestExact", (1, 2, 3)),
    "linear": ("Linear", (1,)), "bilinear": ("Bilinear", (2,)),
    "trilinear": ("Trilinear", (3,)), "bicubic": ("Bicubic", (2,)),
}
_CUBIC_A = -0.75


def _scale(in_size: int, out_size: int, scale, dtype):
    """torch's ``compute_scales_value``: 1 / the given scale factor, else in / out."""
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(in_size) / dtype.type(out_size)


def _nearest(in_size: int, out_size: int, scale, exact: bool) -> list:
    """Each output's source index, in torch's float32 arithmetic."""
    if not exact and out_size == in_size:
        return [[(i, 1.0)] for i in range(out_size)]
    if not exact and out_size == 2 * in_size:
        return [[(i >> 1, 1.0)] for i in range(out_size)]
    s = _scale(in_size, out_size, scale, np.dtype(np.float32))
    shift = 0.5 if exact else 0.0
    return [[(min(int(math.floor(np.float32(i) * s if not exact else (i + shift) * float(s))),
                  in_size - 1), 1.0)] for i in range(out_size)]


def _source_index(in_size, out_size, scale, align_corners, dtype, cubic: bool) -> list:
    """torch's ``area_pixel_compute_source_index`` of every output index, in ``dtype``."""
    t = dtype.type
    if align_corners:
        s = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
        return [s * t(i) for i in range(out_size)]
    s = _scale(in_size, out_size, scale, dtype)
    src = [s * (t(i) + t(0.5)) - t(0.5) for i in range(out_size)]
    return src if cubic else [max(v, t(0)) for v in src]


def _guard(real, in_size: int):
    """torch's ``guard_index_and_lambda``: the index below, and the fraction past it."""
    index = min(int(math.floor(real)), in_size - 1)
    return index, min(max(real - type(real)(index), type(real)(0)), type(real)(1))


def _linear(in_size, out_size, scale, align_corners, dtype) -> list:
    rows = []
    for real in _source_index(in_size, out_size, scale, align_corners, dtype, False):
        i, lam = _guard(real, in_size)
        rows.append([(i, 1 - lam), (i + (1 if i < in_size - 1 else 0), lam)])
    return rows


def _cubic_weights(t):
    a = type(t)(_CUBIC_A)

    def near(x):    # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):     # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = type(t)(1)
    return [far(t + one), near(t), near(one - t), far(one - t + one)]


def _cubic(in_size, out_size, scale, align_corners, dtype) -> list:
    rows = []
    for real in _source_index(in_size, out_size, scale, align_corners, dtype, True):
        i, lam = _guard(real, in_size)
        rows.append([(min(max(i - 1 + j, 0), in_size - 1), w)
                     for j, w in enumerate(_cubic_weights(lam))])
    return rows


def resample_matrix(mode: str, in_size: int, out_size: int, scale, align_corners, dtype):
    """(out_size, in_size): row ``o`` holds the weights that make output ``o``."""
    dtype = np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float64)
    if mode in ("nearest", "nearest-exact"):
        rows = _nearest(in_size, out_size, scale, mode == "nearest-exact")
    elif mode == "bicubic":
        rows = _cubic(in_size, out_size, scale, align_corners, dtype)
    else:
        rows = _linear(in_size, out_size, scale, align_corners, dtype)
    matrix = np.zeros((out_size, in_size), dtype=dtype)
    for o, row in enumerate(rows):
        for i, w in row:
            matrix[o, i] += w
    return matrix


def _apply(xp, x, matrices, transpose: bool):
    """Multiply each of the last ``len(matrices)`` dims by its matrix (last dim first, as
    torch interpolates the width before the height)."""
    dims = len(matrices)
    for k in range(dims - 1, -1, -1):
        axis = x.ndim - dims + k
        m = matrices[k].T if transpose else matrices[k]
        m = xp.asarray(m) if xp is np else backend.move_array(m, backend.device_of_array(x))
        x = xp.moveaxis(xp.tensordot(m, x, axes=([1], [axis])), 0, axis)
    return x


def _matrices(mode, in_sizes, out_sizes, scales, align_corners, dtype) -> list:
    return [resample_matrix(mode, i, o, s, align_corners, dtype)
            for i, o, s in zip(in_sizes, out_sizes, scales)]


def _upsample_op(mode: str, dims: int):
    stem = f"Upsample{MODES[mode][0]}{dims}D"
    name = f"upsample_{mode.replace('-', '_')}{dims}d"

    @defop(name, node=f"{stem}Backward0")
    def forward(xp, x, output_size=(1,), scales=(None,), align_corners=None):
        m = _matrices(mode, x.shape[-dims:], output_size, scales, align_corners, x.dtype)
        return _apply(xp, x, m, False).astype(x.dtype, copy=False)

    @defop(f"{name}_backward", node=f"{stem}BackwardBackward0")
    def backward(xp, g, input_size=(1,), output_size=(1,), scales=(None,), align_corners=None):
        m = _matrices(mode, input_size[-dims:], output_size, scales, align_corners, g.dtype)
        return _apply(xp, g, m, True).astype(g.dtype, copy=False)

    @forward.vjp
    def forward_vjp(ctx, grad):
        return (backward(grad, input_size=tuple(input_shape(ctx, 0)),
                         output_size=ctx.output_size, scales=ctx.scales,
                         align_corners=ctx.align_corners),)

    @backward.vjp
    def backward_vjp(ctx, grad):
        return (forward(grad, output_size=ctx.output_size, scales=ctx.scales,
                        align_corners=ctx.align_corners),)

    forward_vjp.__name__, backward_vjp.__name__ = f"{name}_vjp", f"{name}_backward_vjp"
    return forward


UPSAMPLE = {(mode, dims): _upsample_op(mode, dims) for mode, (_, all_dims) in MODES.items()
            for dims in all_dims}

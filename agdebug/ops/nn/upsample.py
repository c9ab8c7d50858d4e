"""Interpolation (``F.interpolate``'s upsample ops): nearest, nearest-exact, (bi/tri)linear
and bicubic, in 1, 2 or 3 spatial dims, and the antialiased bilinear, bicubic and Lanczos-3
of images.

Each mode is separable: along every spatial dim the output is a fixed matrix (out, in)
times the input, the matrix holding torch's source indices and weights (computed with
torch's formulas and in its precision: float32 index maths for nearest, the input's dtype
for the others). Antialiased resampling (``antialias=True``) widens the filter by the scale
when downsampling and normalises each output's weights (torch's CPU kernel, after PIL).
The derivative applies the transposed matrices (torch's
``upsample_*_backward``), and the derivative of that is the forward again. uint8 images
(which need no derivative) are resampled in torch's int16 fixed point, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from ... import backend
from ..core.registry import defop
from ..core.gradients import input_shape

MODES = {   # mode -> (torch's node stem, the dims it supports)
    "nearest": ("Nearest", (1, 2, 3)), "nearest-exact": ("NearestExact", (1, 2, 3)),
    "linear": ("Linear", (1,)), "bilinear": ("Bilinear", (2,)),
    "trilinear": ("Trilinear", (3,)), "bicubic": ("Bicubic", (2,)),
}
CUBIC_A = -0.75   # the cubic convolution constant of torch's bicubic (and grid_sample's)
UINT8_MODES = ("bilinear", "bicubic")   # torch's fixed-point kernel; nearest picks pixels


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


def cubic_near(x, a):
    """Keys' cubic convolution kernel for |x| <= 1 (shared by every cubic filter here)."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def cubic_far(x, a):
    """Keys' cubic convolution kernel for 1 < |x| < 2."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _cubic_weights(t):
    a, one = type(t)(CUBIC_A), type(t)(1)
    return [cubic_far(t + one, a), cubic_near(t, a), cubic_near(one - t, a),
            cubic_far(one - t + one, a)]


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
    torch interpolates the width before the height); a dim whose matrix is None is left as it
    is (antialiased resampling copies a dim whose size does not change)."""
    dims = len(matrices)
    for k in range(dims - 1, -1, -1):
        if matrices[k] is not None:
            x = _apply_one(xp, x, matrices[k], x.ndim - dims + k, transpose)
    return x


def _apply_one(xp, x, matrix, axis: int, transpose: bool):
    """``matrix`` (or its transpose) times ``x`` along ``axis``, on ``x``'s device."""
    m = matrix.T if transpose else matrix
    m = xp.asarray(m) if xp is np else backend.move_array(m, backend.device_of_array(x))
    return xp.moveaxis(xp.tensordot(m, x, axes=([1], [axis])), 0, axis)


def _matrices(mode, in_sizes, out_sizes, scales, align_corners, dtype) -> list:
    return [resample_matrix(mode, i, o, s, align_corners, dtype)
            for i, o, s in zip(in_sizes, out_sizes, scales)]


def _each_the_others_vjp(forward, backward) -> None:
    """Resampling is linear in its input: the derivative of ``forward`` is ``backward`` (the
    transposed weights) and that of ``backward`` is ``forward`` again, so every order of
    derivative stays differentiable, with torch's nodes."""
    @forward.vjp
    def forward_vjp(ctx, grad):
        return (backward(grad, input_size=tuple(input_shape(ctx, 0)),
                         output_size=ctx.output_size, scales=ctx.scales,
                         align_corners=ctx.align_corners),)

    @backward.vjp
    def backward_vjp(ctx, grad):
        return (forward(grad, output_size=ctx.output_size, scales=ctx.scales,
                        align_corners=ctx.align_corners),)

    forward_vjp.__name__ = f"{forward.name}_vjp"
    backward_vjp.__name__ = f"{backward.name}_vjp"


def _upsample_op(mode: str, dims: int):
    stem = f"Upsample{MODES[mode][0]}{dims}D"
    name = f"upsample_{mode.replace('-', '_')}{dims}d"

    @defop(name, node=f"{stem}Backward0")
    def forward(xp, x, output_size=(1,), scales=(None,), align_corners=None):
        if x.dtype == np.uint8 and mode in UINT8_MODES:
            return _uint8_resample(xp, x, mode, output_size, scales, align_corners, False)
        m = _matrices(mode, x.shape[-dims:], output_size, scales, align_corners, x.dtype)
        return _apply(xp, x, m, False).astype(x.dtype, copy=False)

    @defop(f"{name}_backward", node=f"{stem}BackwardBackward0")
    def backward(xp, g, input_size=(1,), output_size=(1,), scales=(None,), align_corners=None):
        m = _matrices(mode, input_size[-dims:], output_size, scales, align_corners, g.dtype)
        return _apply(xp, g, m, True).astype(g.dtype, copy=False)

    _each_the_others_vjp(forward, backward)
    return forward


UPSAMPLE = {(mode, dims): _upsample_op(mode, dims) for mode, (_, all_dims) in MODES.items()
            for dims in all_dims}


# ----------------------------------------------------------------------------- antialiased

AA_MODES = {"bilinear": "Bilinear", "bicubic": "Bicubic", "lanczos": "Lanczos"}
# torch's interp_size: the filter's support, x2 (Lanczos-3 reaches 3 pixels each side)
_AA_TAPS = {"bilinear": 2, "bicubic": 4, "lanczos": 6}


def _aa_scale(in_size: int, out_size: int, scale, align_corners: bool, dtype):
    """torch's ``area_pixel_compute_scale`` in ``dtype``."""
    t = dtype.type
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    return _scale(in_size, out_size, scale, dtype)


def _aa_filter(mode: str, x):
    """PIL's filters: the triangle, Keys' cubic with a = -0.5 (PIL's, not plain bicubic's
    -0.75) or Lanczos-3, in ``x``'s dtype."""
    x = np.abs(x)
    one = x.dtype.type(1)
    if mode == "bilinear":
        return np.where(x < one, one - x, x.dtype.type(0))
    if mode == "lanczos":
        return _lanczos3(x)
    a = x.dtype.type(-0.5)
    return np.where(x < one, cubic_near(x, a),
                    np.where(x < 2 * one, cubic_far(x, a), x.dtype.type(0)))


def _sinc(x):
    """sin(pi x) / (pi x), 1 at 0, in ``x``'s dtype (pi rounded to it, as torch's)."""
    t = x.dtype.type
    px = x * t(math.pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, t(1), np.sin(px) / np.where(x == 0, t(1), px))


def _lanczos3(x):
    """sinc(x) sinc(x / 3) for |x| < 3: torch's ``x / 3.0`` is a double, so the window
    and the product are in float64 whatever ``x``'s dtype, rounded to it at the end."""
    window = _sinc(x.astype(np.float64) / 3.0)
    w = (_sinc(x).astype(np.float64) * window).astype(x.dtype)
    return np.where(x < x.dtype.type(3), w, x.dtype.type(0))


def aa_matrix(mode: str, in_size: int, out_size: int, scale, align_corners, dtype):
    """(out_size, in_size) weights of antialiased resampling along one dim: torch's
    ``_compute_indices_min_size_weights_aa``, with its float/double mix step by step."""
    dtype = np.dtype(dtype)
    t = dtype.type
    s = _aa_scale(in_size, out_size, scale, align_corners, dtype)
    half = _AA_TAPS[mode] * 0.5
    support = t(half * float(s)) if s >= 1.0 else t(half)
    taps = int(math.ceil(float(support))) * 2 + 1
    invscale = t(1.0 / float(s)) if s >= 1.0 else t(1.0)
    center = (float(s) * (np.arange(out_size) + 0.5)).astype(dtype)
    # C++ casts to int64 truncate toward zero, as astype does
    xmin = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    xmax = np.minimum(((center + support).astype(np.float64) + 0.5).astype(np.int64), in_size)
    xsize = np.clip(xmax - xmin, 0, taps)
    j = np.arange(taps)
    index = xmin[:, None] + j
    offset = (index.astype(dtype) - center[:, None]).astype(np.float64) + 0.5
    weights = _aa_filter(mode, (offset * float(invscale)).astype(dtype))
    weights = np.where(j < xsize[:, None], weights, t(0))
    total = np.zeros(out_size, dtype)
    for k in range(taps):   # summed tap by tap, as torch does
        total = total + weights[:, k]
    weights = np.where(total[:, None] != 0, weights / np.where(total == 0, 1, total)[:, None],
                       weights)
    matrix = np.zeros((out_size, in_size), dtype)
    rows, cols = np.nonzero(j < xsize[:, None])
    matrix[rows, index[rows, cols]] = weights[rows, cols]
    return matrix


def _aa_matrices(mode, in_sizes, out_sizes, scales, align_corners, dtype, skip: bool) -> list:
    """One matrix per dim; with ``skip``, None where the size does not change (the forward
    copies such a dim whatever the scale; torch's backward applies its weights anyway)."""
    return [None if skip and i == o else aa_matrix(mode, i, o, s, align_corners, dtype)
            for i, o, s in zip(in_sizes, out_sizes, scales)]


def _fixed_point(matrix, largest) -> tuple:
    """torch's ``_compute_index_ranges_int16_weights``: float64 weights in fixed point, with
    the most fraction bits (up to 22) that keep ``largest`` within int16."""
    bits = 0
    while bits < 22 and int(0.5 + largest * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    scaled = matrix * (1 << bits)
    rounded = np.where(scaled < 0, np.trunc(scaled - 0.5), np.trunc(scaled + 0.5))
    return rounded.astype(np.int64), bits


def _int16_matrix(mode: str, in_size: int, out_size: int, scale, align_corners) -> tuple:
    """The antialiased weights of one dim in fixed point, and their fraction bits."""
    matrix = aa_matrix(mode, in_size, out_size, scale, align_corners, np.float64)
    return _fixed_point(matrix, matrix.max())


def _plain_int16_matrix(mode: str, in_size: int, out_size: int, scale, align_corners) -> tuple:
    """The plain (antialias=False) bilinear or bicubic weights of uint8 input in fixed point:
    torch's ``_compute_indices_min_size_weights``, the float64 taps of the float kernels,
    those past an edge added onto the edge pixel. The largest weight is taken along the way,
    as torch's is, partial sums at an edge included."""
    build = _cubic if mode == "bicubic" else _linear
    rows = build(in_size, out_size, scale, align_corners, np.dtype(np.float64))
    matrix = np.zeros((out_size, in_size))
    largest = 0.0
    for o, row in enumerate(rows):
        for i, w in row:
            matrix[o, i] += w
            largest = max(largest, matrix[o, i])
    return _fixed_point(matrix, largest)


def _uint8_resample(xp, x, mode: str, output_size, scales, align_corners, antialias: bool):
    """Bilinear, bicubic or Lanczos resampling of uint8 images in torch's integer arithmetic
    (its separable kernel, after PIL): each pass (the width, then the height) rounds and
    clamps to uint8 before the next; a dim whose size does not change is copied."""
    weights = _int16_matrix if antialias else _plain_int16_matrix
    y = x.astype(np.int64)
    for axis in (-1, -2):
        in_size, out_size = x.shape[axis], output_size[axis]
        if in_size == out_size:
            continue
        matrix, bits = weights(mode, in_size, out_size, scales[axis], align_corners)
        y = _apply_one(xp, y, matrix, y.ndim + axis, False)
        y = xp.clip((y + (1 << (bits - 1))) >> bits, 0, 255)
    return y.astype(np.uint8)


def _upsample_aa_op(mode: str):
    stem = f"Upsample{AA_MODES[mode]}2DAa"
    name = f"upsample_{mode}2d_aa"

    @defop(name, node=f"{stem}Backward0")
    def forward(xp, x, output_size=(1, 1), scales=(None, None), align_corners=False):
        if x.dtype == np.uint8:
            return _uint8_resample(xp, x, mode, output_size, scales, align_corners, True)
        m = _aa_matrices(mode, x.shape[-2:], output_size, scales, align_corners, x.dtype, True)
        y = _apply(xp, x, m, False)
        return y.astype(x.dtype, copy=y is x)

    @defop(f"{name}_backward", node=f"{stem}BackwardBackward0")
    def backward(xp, g, input_size=(1, 1, 1, 1), output_size=(1, 1), scales=(None, None),
                 align_corners=False):
        m = _aa_matrices(mode, input_size[-2:], output_size, scales, align_corners, g.dtype,
                         False)
        return _apply(xp, g, m, True).astype(g.dtype, copy=False)

    _each_the_others_vjp(forward, backward)
    return forward


UPSAMPLE_AA = {mode: _upsample_aa_op(mode) for mode in AA_MODES}

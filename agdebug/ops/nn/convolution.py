"""Convolution: conv1d and conv2d (ConvolutionBackward0), their double-backward nodes,
and the sliding-window helpers the pools and folds share."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..core.registry import defop
from ..core.gradients import needs


# ----------------------------------------------------------------------------- windows

def pair(value) -> tuple:
    """``3`` -> ``(3, 3)``; a pair stays a pair."""
    return (int(value), int(value)) if isinstance(value, (int, np.integer)) else tuple(
        int(v) for v in value)


def _windows(xp, padded, kernel, stride, dilation, out):
    """(..., *kernel, *out): every kernel offset's strided slice of ``padded``, for any
    number of spatial dims (two here, three for :mod:`.conv3d` and :mod:`.pool3d`)."""
    cols = xp.empty(padded.shape[:-len(out)] + tuple(kernel) + tuple(out), dtype=padded.dtype)
    for offsets, spans in _offsets(kernel, stride, dilation, out):
        cols[offsets] = padded[spans]
    return cols


def _unwindow(xp, cols, padded_size, stride, dilation):
    """The adjoint of :func:`_windows`: sum every window back into a padded input."""
    dims = len(stride)
    kernel, out = cols.shape[-2 * dims:-dims], cols.shape[-dims:]
    total = xp.zeros(cols.shape[:-2 * dims] + tuple(padded_size), dtype=cols.dtype)
    for offsets, spans in _offsets(kernel, stride, dilation, out):
        total[spans] += cols[offsets]
    return total


def _offsets(kernel, stride, dilation, out):
    """For each kernel offset: its index into the windows (``..., i, j, :, :``) and the
    strided slices it reads from the padded input (``..., rows, columns``)."""
    every = (slice(None),) * len(out)
    spans = [[slice(o * d, o * d + s * (n - 1) + 1, s) for o in range(k)]
             for k, s, d, n in zip(kernel, stride, dilation, out)]
    return [((Ellipsis, *offsets, *every), (Ellipsis, *span))
            for offsets, span in zip(itertools.product(*(range(k) for k in kernel)),
                                     itertools.product(*spans))]


# Padding is given as (low, high) per spatial dim, in order: (top, bottom, left, right) for
# an image, with (front, back) before them for a volume.

def _pad(xp, x, padding, value=0.0):
    """``x`` padded with ``value`` on its last ``len(padding) // 2`` dims."""
    if not any(padding):
        return x
    pairs = tuple(zip(padding[0::2], padding[1::2]))
    return xp.pad(x, ((0, 0),) * (x.ndim - len(pairs)) + pairs, constant_values=value)


def _crop(x, padding, size):
    """The inverse of :func:`_pad`: the ``size`` cells after each low padding."""
    return x[(Ellipsis,) + tuple(slice(lo, lo + n) for lo, n in zip(padding[0::2], size))]


def _padded_size(size, padding) -> tuple:
    return tuple(n + lo + hi for n, lo, hi in zip(size, padding[0::2], padding[1::2]))


def conv_out_size(size, kernel, stride, padding, dilation) -> tuple:
    """A convolution's output size along each spatial dim (``padding``: (low, high) each)."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, lo, hi, k, s, d in
                 zip(size, padding[0::2], padding[1::2], kernel, stride, dilation))


# ----------------------------------------------------------------------------- conv2d

# The arrays of a convolution and its two gradients, for any number of spatial dims (conv2d's
# here, conv3d's in .conv3d): windows gathered as matrices, multiplied with ``matmul``.

def _conv_cols(xp, x, kernel, stride, padding, dilation, groups, out):
    """(N, groups, C / groups * prod(kernel), prod(out)): the windows as matrices."""
    cols = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out)
    n, per_group = x.shape[0], x.shape[1] // groups * math.prod(kernel)
    # explicit sizes, not -1: an empty batch has no size to infer from
    return cols.reshape(n, groups, per_group, math.prod(out))


def _convolve(xp, x, w, stride, padding, dilation, groups, out):
    """The convolution of ``x`` with ``w`` (no bias) at its ``out`` output positions."""
    cols = _conv_cols(xp, x, w.shape[2:], stride, padding, dilation, groups, out)
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    return xp.matmul(wm, cols).reshape((x.shape[0], w.shape[0]) + tuple(out))


def _conv_input_grad(xp, g, w, input_size, stride, padding, dilation, groups):
    """A convolution's input gradient (a transposed convolution), sized ``input_size``."""
    n, out = g.shape[0], g.shape[2:]
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    gm = g.reshape(n, groups, w.shape[0] // groups, math.prod(out))
    cols = xp.matmul(wm.transpose(0, 2, 1), gm)
    cols = cols.reshape((n, w.shape[1] * groups) + tuple(w.shape[2:]) + tuple(out))
    padded = _unwindow(xp, cols, _padded_size(input_size, padding), stride, dilation)
    return _crop(padded, padding, input_size)


def _conv_weight_grad(xp, x, g, weight_size, stride, padding, dilation, groups):
    """A convolution's weight gradient for input ``x`` and output gradient ``g`` (windows
    past ``g``'s size unused)."""
    n, out = x.shape[0], tuple(g.shape[2:])
    cols = _conv_cols(xp, x, weight_size[2:], stride, padding, dilation, groups, out)
    gm = g.reshape(n, groups, weight_size[0] // groups, math.prod(out))
    return xp.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(weight_size)


@defop("conv2d", node="ConvolutionBackward0", saves=("x", "w"))
def conv2d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    out_hw = conv_out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    out = _convolve(xp, x, w, stride, padding, dilation, groups, out_hw)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out.astype(x.dtype, copy=False)


def _image_hw(x) -> tuple:
    """(H, W) of an image, (1, L) of a 1D signal (as conv1d convolves it)."""
    hw = tuple(x.shape[2:])
    return (1,) + hw if len(hw) == 1 else hw


def _geometry(ctx) -> dict:
    return {"stride": ctx.stride, "padding": ctx.padding, "dilation": ctx.dilation,
            "groups": ctx.groups}


@conv2d.vjp
def conv2d_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        grad_x = conv2d_input_grad(grad, w, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_w = conv2d_weight_grad(x, grad, weight_size=tuple(w.shape), **geo)
    if needs(ctx, 2):
        grad_b = grad.sum((0,) + tuple(range(2, len(grad.shape))))
    return grad_x, grad_w, grad_b


def lift(a):
    """A 1D convolution's (N, C, L) array as the (N, C, 1, L) image it convolves."""
    return a[:, :, None, :]


@defop("conv1d", node="ConvolutionBackward0", saves=("x", "w"))
def conv1d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """torch's one convolution node for (N, C, L) inputs: conv2d's forward on a height of 1
    (the geometry is 2D: stride (1, s), padding (0, 0, p, p), dilation (1, d))."""
    out = conv2d.forward(xp, lift(x), lift(w), b, stride, padding, dilation, groups)
    return out[:, :, 0, :]


conv1d.vjp(conv2d_vjp)


def convolution(x, w, b=None, **geometry):
    """conv1d or conv2d, as the rank of ``x`` asks (for derivatives that convolve again)."""
    return (conv1d if len(x.shape) == 3 else conv2d)(x, w, b, **geometry)


@defop("conv2d_input_grad", node="ConvolutionBackwardBackward0", saves=("g", "w"))
def conv2d_input_grad(xp, g, w, input_hw=(1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                      dilation=(1, 1), groups=1):
    if g.ndim == 3:   # conv1d's, on the 2D views of its arrays
        return conv2d_input_grad.forward(xp, lift(g), lift(w), input_hw, stride, padding,
                                         dilation, groups)[:, :, 0, :]
    return _conv_input_grad(xp, g, w, input_hw, stride, padding, dilation, groups)


@conv2d_input_grad.vjp
def conv2d_input_grad_vjp(ctx, grad):
    g, w, geo = ctx.g, ctx.w, _geometry(ctx)
    grad_g = convolution(grad, w, None, **geo) if needs(ctx, 0) else None
    grad_w = None
    if needs(ctx, 1):
        grad_w = conv2d_weight_grad(grad, g, weight_size=tuple(w.shape), **geo)
    return grad_g, grad_w


@defop("conv2d_weight_grad", node="ConvolutionBackwardBackward0", saves=("x", "g"))
def conv2d_weight_grad(xp, x, g, weight_size=(1, 1, 1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                       dilation=(1, 1), groups=1):
    if x.ndim == 3:   # conv1d's, on the 2D views of its arrays
        lifted = tuple(weight_size[:2]) + (1,) + tuple(weight_size[2:])
        return conv2d_weight_grad.forward(xp, lift(x), lift(g), lifted, stride, padding,
                                          dilation, groups).reshape(weight_size)
    return _conv_weight_grad(xp, x, g, weight_size, stride, padding, dilation, groups)


@conv2d_weight_grad.vjp
def conv2d_weight_grad_vjp(ctx, grad):
    x, g, geo = ctx.x, ctx.g, _geometry(ctx)
    grad_x = grad_g = None
    if needs(ctx, 0):
        grad_x = conv2d_input_grad(g, grad, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_g = convolution(x, grad, None, **geo)
    return grad_x, grad_g

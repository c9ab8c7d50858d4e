"""Sliding blocks and rearrangements: ``im2col`` / ``col2im`` (``F.unfold`` / ``F.fold``),
``pixel_shuffle`` / ``pixel_unshuffle``, ``channel_shuffle`` and the ``Tensor.unfold`` view.

Each pair is its own adjoint: the derivative of ``im2col`` is ``col2im`` with the same
geometry and the other way round, so derivatives of any order are these two ops again, as
torch records them (Im2ColBackward0 and Col2ImBackward0, PixelShuffleBackward0 and
PixelUnshuffleBackward0, UnfoldBackward0 and UnfoldBackwardBackward0); the derivative of a
channel shuffle in g groups is the shuffle in C / g (ChannelShuffleBackward0). Arguments arrive
checked and normalised (pairs of ints) from :mod:`agdebug.nn.fold`.
"""

from __future__ import annotations

import numpy as np

from .convolution import _crop, _pad, _unwindow, _windows
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..core.gradients import input_shape


def sliding_blocks(hw, kernel_size, dilation, padding, stride) -> tuple:
    """The number of blocks along each spatial dim (floor division, as torch's div_rtn)."""
    return tuple((size + 2 * p - (d * (k - 1) + 1)) // s + 1
                 for size, k, d, p, s in zip(hw, kernel_size, dilation, padding, stride))


# ----------------------------------------------------------------------------- im2col, col2im

@defop("im2col", node="Im2ColBackward0")
def im2col(xp, x, kernel_size=(1, 1), dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
    """(..., C, H, W) to (..., C * kh * kw, L): each block's values as one column."""
    out_hw = sliding_blocks(x.shape[-2:], kernel_size, dilation, padding, stride)
    pads = (padding[0], padding[0], padding[1], padding[1])
    cols = _windows(xp, _pad(xp, x, pads, False if x.dtype.kind == "b" else 0),
                    kernel_size, stride, dilation, out_hw)   # (..., C, kh, kw, oh, ow)
    rows = x.shape[-3] * kernel_size[0] * kernel_size[1]
    return cols.reshape(x.shape[:-3] + (rows, out_hw[0] * out_hw[1]))


@im2col.vjp
def im2col_vjp(ctx, grad):
    hw = tuple(input_shape(ctx, 0)[-2:])
    return (col2im(grad, output_size=hw, **_geometry(ctx)),)


@defop("col2im", node="Col2ImBackward0")
def col2im(xp, c, output_size=(1, 1), kernel_size=(1, 1), dilation=(1, 1), padding=(0, 0),
           stride=(1, 1)):
    """(..., C * kh * kw, L) to (..., C, H, W): each column summed back into its block."""
    (kh, kw), (ph, pw) = kernel_size, padding
    blocks = sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    cols = c.reshape(c.shape[:-2] + (c.shape[-2] // (kh * kw), kh, kw) + blocks)
    padded_hw = (output_size[0] + 2 * ph, output_size[1] + 2 * pw)
    out = _unwindow(xp, cols, padded_hw, stride, dilation)
    return xp.ascontiguousarray(_crop(out, (ph, ph, pw, pw), output_size))


@col2im.vjp
def col2im_vjp(ctx, grad):
    return (im2col(grad, **_geometry(ctx)),)


def _geometry(ctx) -> dict:
    return {k: getattr(ctx, k) for k in ("kernel_size", "dilation", "padding", "stride")}


# ----------------------------------------------------------------------------- pixel shuffles

def _rearranged(xp, x, shape: tuple, order: tuple, out_shape: tuple):
    """``x`` seen as ``shape``, axes permuted by ``order``, written into a new array of
    ``out_shape``: always a copy, never an alias of ``x`` (torch's result is not a view)."""
    out = xp.empty(out_shape, dtype=x.dtype)
    lead = len(x.shape) - 3
    axes = tuple(range(lead)) + tuple(lead + k for k in order)
    moved = x.reshape(x.shape[:-3] + shape).transpose(axes)
    out.reshape(moved.shape)[...] = moved
    return out


@defop("pixel_shuffle", node="PixelShuffleBackward0")
def pixel_shuffle(xp, x, upscale_factor=1):
    """(..., C * r * r, H, W) to (..., C, H * r, W * r)."""
    r = upscale_factor
    c, h, w = x.shape[-3:]
    return _rearranged(xp, x, (c // (r * r), r, r, h, w), (0, 3, 1, 4, 2),
                       x.shape[:-3] + (c // (r * r), h * r, w * r))


@pixel_shuffle.vjp
def pixel_shuffle_vjp(ctx, grad):
    return (pixel_unshuffle(grad, downscale_factor=ctx.upscale_factor),)


@defop("pixel_unshuffle", node="PixelUnshuffleBackward0")
def pixel_unshuffle(xp, x, downscale_factor=1):
    """(..., C, H * r, W * r) to (..., C * r * r, H, W)."""
    r = downscale_factor
    c, h, w = x.shape[-3:]
    return _rearranged(xp, x, (c, h // r, r, w // r, r), (0, 2, 4, 1, 3),
                       x.shape[:-3] + (c * r * r, h // r, w // r))


@pixel_unshuffle.vjp
def pixel_unshuffle_vjp(ctx, grad):
    return (pixel_shuffle(grad, upscale_factor=ctx.downscale_factor),)


def _factor(fn: str, name: str, value) -> int:
    return _factor_at(fn, name, value, 2)


def _factor_at(fn: str, name: str, value, position: int) -> int:
    """torch's parser: an int (not a bool, not a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


def _check_shuffle(fn: str, input, name: str, factor: int) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input "
                           f"with {input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {name}, but got {factor}")


def pixel_shuffle_function(input, upscale_factor):
    """Rearrange (*, C * r * r, H, W) into (*, C, H * r, W * r) (sub-pixel convolution).

    >>> import agdebug as ag
    >>> ag.pixel_shuffle(ag.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    _check_shuffle("pixel_shuffle", input, "upscale_factor", r)
    if input.shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{input.shape[-3]} is not divisible by {r * r}")
    return pixel_shuffle(input, upscale_factor=r)


def pixel_unshuffle_function(input, downscale_factor):
    """Rearrange (*, C, H * r, W * r) into (*, C * r * r, H, W): the inverse of
    :func:`pixel_shuffle_function`.

    >>> import agdebug as ag
    >>> tuple(ag.pixel_unshuffle(ag.ones(1, 3, 4, 6), 2).shape)
    (1, 12, 2, 3)
    """
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    _check_shuffle("pixel_unshuffle", input, "downscale_factor", r)
    for name, dim in (("height", -2), ("width", -1)):
        if input.shape[dim] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({dim})={input.shape[dim]} is "
                               f"not divisible by {r}")
    return pixel_unshuffle(input, downscale_factor=r)


@defop("channel_shuffle", node="ChannelShuffleBackward0")
def channel_shuffle(xp, x, groups=1):
    """(N, C, *) with its channels read as (groups, C / groups) and written transposed."""
    n, c = x.shape[:2]
    moved = x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
    return xp.ascontiguousarray(moved).reshape(x.shape)


@channel_shuffle.vjp
def channel_shuffle_vjp(ctx, grad):
    # (no channels: any grouping is the identity, and C / g would be no group at all)
    return (channel_shuffle(grad, groups=max(grad.shape[1] // ctx.groups, 1)),)


def channel_shuffle_function(input, groups):
    """Shuffle the channels of (N, C, *) in ``groups`` groups (ShuffleNet's mixing step).

    >>> import agdebug as ag
    >>> ag.channel_shuffle(ag.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    g = _factor("channel_shuffle", "groups", groups)
    if input.ndim <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    if input.shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got "
                           f"{input.shape[1]} channels and {g} groups.")
    return channel_shuffle(input, groups=g)


# ----------------------------------------------------------------------------- Tensor.unfold

@defop("unfold", node="UnfoldBackward0", view=True, sizes=SELF_SIZES)
def unfold(xp, x, dimension=0, size=1, step=1):
    """A view: the ``size``-long windows along ``dimension`` every ``step``, as a new last dim."""
    if x.ndim == 0:
        return x.reshape(1)[:size]
    shape, strides = list(x.shape), list(x.strides)
    shape[dimension] = (shape[dimension] - size) // step + 1
    strides[dimension] *= step
    return xp.lib.stride_tricks.as_strided(x, tuple(shape) + (size,),
                                           tuple(strides) + (x.strides[dimension],))


@unfold.vjp
def unfold_vjp(ctx, grad):
    return (unfold_backward(grad, input_sizes=tuple(input_shape(ctx, 0)), dim=ctx.dimension,
                            size=ctx.size, step=ctx.step),)


@defop("unfold_backward", node="UnfoldBackwardBackward0")
def unfold_backward(xp, g, input_sizes=(), dim=0, size=1, step=1):
    """Each window's gradient summed back into the places it was read from."""
    if not input_sizes:
        return g.sum().reshape(())
    out = xp.zeros(input_sizes, dtype=g.dtype)
    windows = g.shape[dim]
    for j in range(size):   # offset j of every window: a strided slice, no index repeats
        place = [slice(None)] * len(input_sizes)
        place[dim] = slice(j, j + step * (windows - 1) + 1, step)
        out[tuple(place)] += g[..., j]
    return out


@unfold_backward.vjp
def unfold_backward_vjp(ctx, grad):
    return (unfold(grad, dimension=ctx.dim, size=ctx.size, step=ctx.step),)


_MISSING = object()


def tensor_unfold(self, dimension=_MISSING, size=_MISSING, step=_MISSING):
    """``x.unfold(dimension, size, step)``: a view of every ``size``-long slice along
    ``dimension``, ``step`` apart, in a new last dimension.

    >>> import agdebug as ag
    >>> ag.arange(5.0).unfold(0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    given = {"dimension": dimension, "size": size, "step": step}
    missing = [name for name, value in given.items() if value is _MISSING]
    if missing:
        from ..reduction.signatures import missing_arguments
        raise missing_arguments("unfold", *missing)
    for position, (name, value) in enumerate(given.items(), start=1):
        _factor_at("unfold", name, value, position)
    ndim = max(self.ndim, 1)
    if not -ndim <= dimension < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dimension})")
    dimension %= ndim
    length = self.shape[dimension] if self.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is {length} but "
                           f"size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return unfold(self, dimension=int(dimension), size=int(size), step=int(step))


FUNCTIONS = {"pixel_shuffle": pixel_shuffle_function,
             "pixel_unshuffle": pixel_unshuffle_function,
             "channel_shuffle": channel_shuffle_function}
METHODS = {"unfold": tensor_unfold}

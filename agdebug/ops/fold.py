"""Sliding blocks and rearrangements: ``im2col`` / ``col2im`` (``F.unfold`` / ``F.fold``),
``pixel_shuffle`` / ``pixel_unshuffle`` and the ``Tensor.unfold`` view.

Each pair is its own adjoint: the derivative of ``im2col`` is ``col2im`` with the same
geometry and the other way round, so derivatives of any order are these two ops again, as
torch records them (Im2ColBackward0 and Col2ImBackward0, PixelShuffleBackward0 and
PixelUnshuffleBackward0, UnfoldBackward0 and UnfoldBackwardBackward0). Arguments arrive
checked and normalised (pairs of ints) from :mod:`agdebug.nn.fold`.
"""

from __future__ import annotations

from .nn import _crop, _pad, _unwindow, _windows
from .registry import defop
from .util import input_shape


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

"""``F.unfold`` and ``F.fold`` (sliding blocks of images to columns and back);
torch's checks in torch's order and words (the maths
is in :mod:`agdebug.ops.nn.fold`).

>>> import agdebug as ag
>>> x = ag.ones(1, 2, 3, 3, requires_grad=True)
>>> cols = ag.nn.functional.unfold(x, kernel_size=2)
>>> tuple(cols.shape), cols.grad_fn.name()
((1, 8, 4), 'Im2ColBackward0')
"""

from __future__ import annotations

import numpy as np

from ...ops.nn import fold as ops
from ...ops.core.checks import kernel_missing

__all__ = ["fold", "unfold"]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks of a (N, C, H, W) or (C, H, W) ``input``: one column of
    C * kh * kw values per block, (N, C * kh * kw, L) in all.

    >>> import agdebug as ag
    >>> ag.nn.functional.unfold(ag.arange(4.0).reshape(1, 1, 2, 2), 1)
    tensor([[[0., 1., 2., 3.]]])
    """
    names = ("kernel_size", "dilation", "padding", "stride")
    geo = _pairs("im2col", names, (kernel_size, dilation, padding, stride), first=2)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = geo.values()
    _positive(kh, kw, "kernel size", "kernel")
    _positive(dh, dw, "dilation", "dilation")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")
    _positive(sh, sw, "stride", "stride")
    _check_image(input)
    hw = tuple(input.shape[-2:])
    blocks = ops.sliding_blocks(hw, *geo.values())
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {hw}, kernel_size={(kh, kw)}, "
                           f"dilation={(dh, dw)}, padding={(ph, pw)}, calculated shape of the "
                           f"array of sliding blocks as {blocks}, but its components must be "
                           "at least one.")
    _check_dtype(input, "im2col")
    return ops.im2col(input, **geo)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine (N, C * kh * kw, L) or (C * kh * kw, L) columns of sliding blocks into a
    (N, C, H, W) image of ``output_size``, summing where blocks overlap (the adjoint of
    :func:`unfold`).

    >>> import agdebug as ag
    >>> ag.nn.functional.fold(ag.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    names = ("output_size", "kernel_size", "dilation", "padding", "stride")
    geo = _pairs("col2im", names, (output_size, kernel_size, dilation, padding, stride), first=2)
    size, (kh, kw), (dh, dw), (ph, pw), (sh, sw) = geo.values()
    _positive(kh, kw, "kernel size", "kernel")
    _positive(sh, sw, "stride", "stride")
    _positive(dh, dw, "dilation", "dilation")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")
    shape = tuple(input.shape)
    if not (len(shape) == 2 and 0 not in shape or len(shape) == 3 and 0 not in shape[1:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    if shape[-2] % (kh * kw):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={shape[-2]} and "
                           f"kernel_size={(kh, kw)}.")
    blocks = ops.sliding_blocks(size, *list(geo.values())[1:])
    given = (f"Given output_size={tuple(size)}, kernel_size={(kh, kw)}, dilation={(dh, dw)}, "
             f"padding={(ph, pw)}, stride={(sh, sw)}, ")
    if shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={shape[-1]}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as "
                           f"{blocks}, which is too small (non-positive)")
    _check_dtype(input, "col2im")
    return ops.col2im(input, **geo)


def _pairs(fn: str, names: tuple, values: tuple, first: int) -> dict:
    """torch's ``_pair`` of each argument, then its native parser's checks: ints, two each."""
    pairs = {}
    for position, (name, value) in enumerate(zip(names, values), start=first):
        pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
        for k, item in enumerate(pair):
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                continue
            kind = type(item).__name__
            if k == 0:
                raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be tuple "
                                f"of ints, but found element of type {kind} at pos 0")
            raise TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos "
                            f"{k + 1} with error \"type must be tuple of ints,but got {kind}\"")
        pairs[name] = tuple(int(item) for item in pair)
    for name, pair in pairs.items():
        if len(pair) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(pair)}")
    return pairs


def _positive(height: int, width: int, what: str, short: str) -> None:
    if height <= 0 or width <= 0:
        raise RuntimeError(f"{what} should be greater than zero, but got {short}_height: "
                           f"{height} {short}_width: {width}")


def _check_image(input) -> None:
    """torch reads the last two sizes, then ``input.size(1)`` and ``input.size(2)``: too few
    dims fail there first."""
    ndim = input.ndim
    if ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if ndim == 2 and input.shape[1] != 0:
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    shape = tuple(input.shape)
    valid = shape[1] != 0 and shape[2] != 0 if ndim >= 3 else False
    if not (ndim == 3 and valid or ndim == 4 and valid and shape[3] != 0):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")


def _check_dtype(input, kernel: str) -> None:
    """torch's kernels take floating, complex and bool tensors, not integers."""
    if input._data.dtype.kind in "iu":
        device = "cpu" if type(input._data) is np.ndarray else "cuda"
        raise kernel_missing(f"{kernel}_out_{device}", input.dtype)

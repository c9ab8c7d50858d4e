"""``F.pad``: constant, reflect, replicate and circular padding, as torch builds each.

>>> import agdebug as ag
>>> ag.nn.functional.pad(ag.ones(1, 2), (1, 1))
tensor([[0., 1., 1., 0.]])
"""

from __future__ import annotations

from ...ops.nn import loss_pieces as loss_ops
from ._parser import torch_words

__all__ = ["pad"]


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad`` is (left, right, top, bottom, ...).

    >>> import agdebug as ag
    >>> ag.nn.functional.pad(ag.tensor([1.0, 2.0]), (1, 2), value=9.0)
    tensor([9., 1., 2., 9., 9.])
    """
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")   # (checked first)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length " + f"{len(pad)} and input of "
                           f"dimension {input.ndim}")
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return loss_ops.constant_pad_nd(input, pad=pad, value=0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    return _edge_pad(input, pad, mode)


def _edge_pad(input, pad, mode):
    """torch's reflection / replication / circular pads: the last 1, 2 or 3 dims of a batched or
    unbatched input (one more or two more dims than padded)."""
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _pad_circular(input, pad)
    name = "reflection" if mode == "reflect" else "replication"
    if mode == "reflect":
        for i in range(n):
            size = input.shape[input.ndim - 1 - i]
            if pad[2 * i] >= size or pad[2 * i + 1] >= size:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than "
                                   f"the corresponding input dimension, but got: padding "
                                   f"({pad[2 * i]}, {pad[2 * i + 1]}) at dimension "
                                   f"{input.ndim - 1 - i} of input {list(input.shape)}")
    return loss_ops.EDGE_PADS[(name, n)](input, pad=pad)


def _pad_circular(input, pad):
    """torch's ``_pad_circular``, op for op: an empty output, the input copied into its middle,
    then each padded dim's wrapped-around ends copied from the output itself (so the graph is
    torch's chain of CopySlices over SliceBackward0)."""
    n, lead = len(pad) // 2, input.ndim - len(pad) // 2
    shape = list(input.shape)
    for i in range(n):
        size, lo, hi = input.shape[lead + i], pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        shape[lead + i] = size + lo + hi
    out = input.new_empty(tuple(shape))
    out_slice, in_slice = out, input
    for i in range(n):
        dim, lo, hi = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        out_slice = _slice(out_slice, dim, max(lo, 0), shape[dim] - max(hi, 0))
        in_slice = _slice(in_slice, dim, max(-lo, 0), input.shape[dim] - max(-hi, 0))
    out_slice.copy_(in_slice)
    for i in range(n):
        dim, lo, hi = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            end = shape[dim] - max(hi, 0)
            _slice(out, dim, 0, lo).copy_(_slice(out, dim, end - lo, end))
        if hi > 0:
            start = max(lo, 0)
            _slice(out, dim, shape[dim] - hi, shape[dim]).copy_(
                _slice(out, dim, start, start + hi))
    return out


def _slice(t, dim: int, start: int, end: int):
    """aten's ``slice``: negative bounds count from the end, then both are clamped."""
    size = t.shape[dim]
    start, end = (v + size if v < 0 else v for v in (start, end))
    start = min(max(start, 0), size)
    return t.narrow(dim, start, min(max(end, start), size) - start)


torch_words(globals(), __all__)

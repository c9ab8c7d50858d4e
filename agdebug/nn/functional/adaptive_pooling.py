"""Adaptive pooling: ``F.adaptive_avg_pool1d/2d/3d`` and ``F.adaptive_max_pool1d/2d/3d``,
with torch's checks in torch's order and words (the maths is in :mod:`agdebug.ops.nn`,
:mod:`agdebug.ops.nn.pooling_volumetric` and :mod:`agdebug.ops.nn.pooling_adaptive_max`).

>>> import agdebug as ag
>>> x = ag.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
>>> out, indices = ag.nn.functional.adaptive_max_pool2d(x, 2, return_indices=True)
>>> out.grad_fn.name(), indices.tolist()
('AdaptiveMaxPool2DBackward0', [[[[5, 7], [13, 15]]]])
"""

from __future__ import annotations

import numpy as np

from ...ops.nn import pooling as ops
from ...ops.nn import pooling_volumetric as pool3d_ops
from ...ops.nn import pooling_adaptive_max as unpool_ops
from ...ops.core.checks import kernel_missing
from ._parser import torch_words
from .pooling import _check_dim_range, _one

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices"]


# ----------------------------------------------------------------------------- adaptive pools

def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (None keeps that input size); an output of
    1 x 1 is ``input.mean((-1, -2), keepdim=True)``, as torch computes it.

    >>> import agdebug as ag
    >>> x = ag.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    >>> ag.nn.functional.adaptive_avg_pool2d(x, 2).grad_fn.name()
    'AdaptiveAvgPool2DBackward0'
    """
    if isinstance(output_size, (int, np.integer)):
        size = [int(output_size)] * 2
    else:
        size = [input.shape[input.ndim - len(output_size) + i] if v is None else int(v)
                for i, v in enumerate(output_size)]
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == [1, 1]:
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    if not input.is_floating_point():
        raise kernel_missing("adaptive_avg_pool2d", input.dtype)
    return ops.adaptive_avg_pool2d(input, output_size=tuple(size))


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) signals to ``output_size`` (through adaptive_avg_pool2d
    on the unsqueezed input, as torch)."""
    _check_dim_range(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of volumes to a fixed ``output_size`` (None keeps an input size); an
    output of 1 x 1 x 1 is ``input.mean((-1, -2, -3), keepdim=True)``, as torch computes it.

    >>> import agdebug as ag
    >>> ag.nn.functional.adaptive_avg_pool3d(ag.ones(2, 3, 4, 5, 6), (1, None, 2)).shape
    torch.Size([2, 3, 1, 5, 2])
    """
    if output_size is None:   # (torch's wrapper takes its len)
        raise TypeError("object of type 'NoneType' has no len()")
    sizes = [output_size] * 3 if isinstance(output_size, (int, np.integer)) else \
        list(output_size)
    if not isinstance(output_size, (int, np.integer)) and input.ndim <= len(sizes):
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    spatial = (1,) * (3 - min(input.ndim, 3)) + tuple(input.shape[-3:])
    sizes = tuple(int(n if s is None else s) for s, n in zip(sizes, spatial))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
    if sizes == (1, 1, 1):   # torch's shortcut, before its other checks: a MeanBackward1 node
        return input.mean((-1, -2, -3), keepdim=True)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    if not input.is_floating_point():
        raise kernel_missing("adaptive_avg_pool3d_cpu", input.dtype)
    return pool3d_ops.adaptive_avg_pool3d(input, output_size=sizes)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum of each of ``output_size`` adaptive windows of (N, C, H, W) or (C, H, W)
    images (None in ``output_size`` keeps that input size); optionally with the flat index of
    each maximum in its H * W plane.

    >>> import agdebug as ag
    >>> ag.nn.functional.adaptive_max_pool2d(ag.arange(6.0).reshape(1, 2, 3), (1, 2))
    tensor([[[4., 5.]]])
    """
    values, indices = _adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))
    return (values, indices) if return_indices else values


def _list_with_default(output_size, shape):
    """torch's: an int as it is; None in a sequence keeps that input size."""
    if isinstance(output_size, (int, np.integer)):
        return output_size
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return [d if v is None else v for v, d in zip(output_size, shape[-len(output_size):])]


def _adaptive_max_pool2d(input, output_size):
    size = _check_adaptive_max(input, output_size, 2)
    if input._data.dtype.kind not in "f":
        raise kernel_missing("adaptive_max_pool2d", input.dtype)
    return unpool_ops.adaptive_max_pool2d(input, output_size=size)


def _check_adaptive_max(input, output_size, n: int) -> tuple:
    """torch's checks of adaptive_max_pool{n}d's input and output_size, in torch's order."""
    shape, name = tuple(input.shape), f"adaptive_max_pool{n}d()"
    _check_int_list(name[:-2], output_size)
    size = (output_size,) * n if isinstance(output_size, (int, np.integer)) else output_size
    if len(shape) not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(shape)}")
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape)} with dimension "
                               f"{i} being empty")
    if len(size) != n:
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {n}")
    size = tuple(int(s) for s in size)
    if min(size) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(shape[:-n] + size)}")
    return size


def _check_int_list(fn: str, output_size) -> None:
    """torch's parser on ``output_size`` (a bool is refused alone or first, not after)."""
    where = f"{fn}(): argument 'output_size' (position 2) must be tuple of ints"
    if isinstance(output_size, bool):
        raise TypeError(f"{where}, not bool")
    if isinstance(output_size, (int, np.integer)):
        return
    for i, s in enumerate(output_size):
        if isinstance(s, (int, np.integer)) and not (i == 0 and isinstance(s, bool)):
            continue
        kind = type(s).__name__
        if i == 0:
            raise TypeError(f"{where}, but found element of type {kind} at pos 0")
        raise TypeError(f"{fn}(): argument 'output_size' failed to unpack the object at pos "
                        f"{i + 1} with error \"type must be tuple of ints,but got {kind}\"")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maximum of each of ``output_size`` adaptive windows of (N, C, D, H, W) or
    (C, D, H, W) volumes (None in ``output_size`` keeps that input size); optionally with the
    flat index of each maximum in its D * H * W volume.

    >>> import agdebug as ag
    >>> x = ag.arange(8.0).reshape(1, 2, 2, 2).requires_grad_()
    >>> out, indices = ag.nn.functional.adaptive_max_pool3d(x, 1, return_indices=True)
    >>> out.grad_fn.name(), indices.tolist()
    ('AdaptiveMaxPool3DBackward0', [[[[7]]]])
    """
    if output_size is None or isinstance(output_size, float):   # (torch takes its len)
        raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
    size = _check_adaptive_max(input, _list_with_default(output_size, input.size()), 3)
    if input._data.dtype.kind not in "f":
        raise kernel_missing("adaptive_max_pool3d_cpu", input.dtype)
    values, indices = unpool_ops.adaptive_max_pool3d(input, output_size=size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` with its indices, whatever ``return_indices`` says."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` with its indices, whatever ``return_indices`` says."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool3d` with its indices, whatever ``return_indices`` says."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The maximum of each of ``output_size`` adaptive windows of (N, C, L) or (C, L)
    signals: adaptive_max_pool2d on a height of 1 (SqueezeBackward1 over
    AdaptiveMaxPool2DBackward0, as torch records it)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           "for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        output_size = (output_size,)
    elif not isinstance(output_size, (tuple, list)):
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be "
                        f"tuple of ints, not {type(output_size).__name__}")
    if len(output_size) != 1:
        raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(output_size)})")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {i} being empty")
    values, indices = _adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size[0]))
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


torch_words(globals(), ["adaptive_avg_pool1d", "adaptive_avg_pool2d"])

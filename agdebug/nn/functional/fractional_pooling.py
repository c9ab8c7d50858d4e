"""Fractional max pooling: ``F.fractional_max_pool2d/3d`` (and ``_with_indices``), with torch's
checks in torch's order and words (the maths is in :mod:`agdebug.ops.nn.pooling_fractional`).
Without ``_random_samples`` the windows come from ``rand(N, C, 2 or 3)`` in the input's dtype,
drawn as torch draws it: the same seed gives torch's windows.

>>> import agdebug as ag
>>> x = ag.arange(25.0).reshape(1, 1, 5, 5)
>>> u = ag.tensor([[[0.5, 0.5]]])
>>> ag.nn.functional.fractional_max_pool2d(x, 2, output_size=2, _random_samples=u)
tensor([[[[12., 14.],
          [22., 24.]]]])
"""

from __future__ import annotations

from ... import creation
from ...ops.core.checks import kernel_missing
from ...ops.nn import pooling_fractional as ops
from ...ops.core.arguments import torch_function

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]

_SPATIAL = {2: ("height", "width"), 3: ("time", "height", "width")}
_CHECK_ORDER = {2: (0, 1), 3: (0, 2, 1)}   # torch's 3d kernel checks the width before the height
_WHERE = {2: "fractional_max_pool2d", 3: "fractional_max_pool3d_out"}   # torch's kernel names


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """The maxima of ``kernel_size`` windows at random fractional strides, and their indices.

    >>> import agdebug as ag
    >>> x = ag.arange(25.0).reshape(1, 1, 5, 5)
    >>> u = ag.tensor([[[0.5, 0.5]]])
    >>> _, i = ag.nn.functional.fractional_max_pool2d_with_indices(x, 2, 2, _random_samples=u)
    >>> i.tolist()
    [[[[12, 14], [22, 24]]]]
    """
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:   # (a float fails here, on its len(), as in torch)
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        output_size = _from_ratio(input, output_ratio, 2)
    return _aten2d(input, kernel_size, output_size, _samples(input, _random_samples, 2))


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d_with_indices` on (N, C, T, H, W) volumes."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        output_size = _from_ratio(input, output_ratio, 3)
    return _aten3d(input, kernel_size, output_size, _samples(input, _random_samples, 3))


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d_with_indices`, the indices only with ``return_indices``."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d_with_indices`, the indices only with ``return_indices``."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def _from_ratio(input, ratio, n: int) -> list:
    ratio = (ratio,) * n if isinstance(ratio, (int, float)) else tuple(ratio)
    return [int(input.size(i - n) * ratio[i]) for i in range(n)]


def _samples(input, samples, n: int):
    """torch's draw when none is given: one sample per plane and spatial dim."""
    if samples is not None:
        return samples
    batch = 1 if input.dim() == n + 1 else input.size(0)
    return creation.rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)


def _ints(value, n: int, argument: str) -> tuple:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    if not isinstance(value, (tuple, list)) or not all(isinstance(v, int) for v in value):
        position = 2 if argument == "kernel_size" else 3
        raise TypeError(f"fractional_max_pool{n}d(): argument '{argument}' (position {position}) "
                        f"must be tuple of ints, not {type(value).__name__}")
    if len(value) != n:
        tail = "tuple of Ints" if n == 2 else "tuple of three Ints"
        raise RuntimeError(f"fractional_max_pool{n}d: {argument} must either be a single Int "
                           f"or {tail}")
    return tuple(value)


def _pool(n: int, input, kernel_size, output_size, random_samples):
    """aten's ``fractional_max_pool2d/3d`` (its arguments worded by its parser, below)."""
    if random_samples.requires_grad:
        raise RuntimeError(f"The function 'fractional_max_pool{n}d' is not differentiable with "
                           "respect to argument 'random_samples'. This input cannot have "
                           "requires_grad True.")
    kernel, out = _ints(kernel_size, n, "kernel_size"), _ints(output_size, n, "output_size")
    _check_input(n, input, kernel, out)
    _check_samples(n, input, random_samples)
    if not input.is_floating_point():
        raise kernel_missing(f"fractional_max_pool{n}d_out_frame", input.dtype)
    op = ops.fractional_max_pool2d if n == 2 else ops.fractional_max_pool3d
    return op(input, kernel_size=kernel, output_size=out, samples=random_samples._data)


def fractional_max_pool2d_aten(input, kernel_size, output_size, random_samples):
    return _pool(2, input, kernel_size, output_size, random_samples)


def fractional_max_pool3d_aten(input, kernel_size, output_size, random_samples):
    return _pool(3, input, kernel_size, output_size, random_samples)


_aten2d = torch_function(fractional_max_pool2d_aten, "fractional_max_pool2d")
_aten3d = torch_function(fractional_max_pool3d_aten, "fractional_max_pool3d")


def _check_input(n: int, input, kernel: tuple, out: tuple) -> None:
    where, shape = _WHERE[n], list(input.shape)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{where}(): Expected {n + 1}D or {n + 2}D tensor, but got: {shape}")
    for i in range(1, input.ndim):
        if not shape[i]:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{shape} with dimension {i} being empty.")
    for d in _CHECK_ORDER[n]:
        word, k, o, size = _SPATIAL[n][d], kernel[d], out[d], shape[d - n]
        # (torch's 2d check allows a last window flush with the end, its 3d check does not)
        if o + k - 1 > size or (n == 3 and o + k - 1 == size):
            raise RuntimeError(f"{where}(): pool {word} {k} too large relative to input "
                               f"{word} {size}")
    negative = [o for o in out if o < 0]
    if negative:
        full = shape[:input.ndim - n] + list(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{full}")


def _check_samples(n: int, input, samples) -> None:
    """torch's ``fractional_max_pool_check_shape``, in its order."""
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batched = input.ndim == n + 2
    batch, channels = (input.shape[0], input.shape[1]) if batched else (1, input.shape[0])
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")

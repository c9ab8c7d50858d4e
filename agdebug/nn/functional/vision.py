"""Vision functions: ``F.interpolate``, ``F.pixel_shuffle``, ``F.pixel_unshuffle`` and
``F.channel_shuffle``
(``F.pad`` is in ``padding``, ``F.grid_sample`` and ``F.affine_grid`` in ``sampling``; the maths
is in :mod:`agdebug.ops.nn.upsample` and :mod:`agdebug.ops.nn.fold`).

>>> import agdebug as ag
>>> ag.nn.functional.interpolate(ag.tensor([[[1.0, 2.0]]]), scale_factor=2)
tensor([[[1., 1., 2., 2.]]])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...ops.nn import upsample as ops
from ...ops.nn.fold import channel_shuffle_function as channel_shuffle
from ...ops.nn.fold import pixel_shuffle_function as pixel_shuffle
from ...ops.nn.fold import pixel_unshuffle_function as pixel_unshuffle
from ...ops.core.checks import kernel_missing

__all__ = ["channel_shuffle", "interpolate", "pixel_shuffle", "pixel_unshuffle", "upsample",
           "upsample_bilinear", "upsample_nearest"]


_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, ...) ``input`` to ``size``, or by ``scale_factor``.

    >>> import agdebug as ag
    >>> x = ag.tensor([[[0.0, 1.0]]], requires_grad=True)
    >>> y = ag.nn.functional.interpolate(x, size=3, mode="linear", align_corners=True)
    >>> y.detach(), y.grad_fn.name()
    (tensor([[[0.0000, 0.5000, 1.0000]]]), 'UpsampleLinear1DBackward0')
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scales = _sizes(input, dim, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    if antialias and not (mode in ops.AA_MODES and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    if mode == "area" and input.dim() in (3, 4, 5):
        from .. import functional as F  # (functional imports this module)
        pool = (F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d)[dim - 1]
        return pool(input, output_size)
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        return _upsample(input, mode, dim, output_size, scales, align_corners, antialias=True)
    if mode in ops.MODES and dim in ops.MODES[mode][1]:
        return _upsample(input, mode, dim, output_size, scales, align_corners)
    if mode in _NEEDS and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_NEEDS[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.dim()}D) for the modes: {_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """torch's deprecated spelling of ``interpolate`` (a warning at the caller's line)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """torch's deprecated ``interpolate(..., mode="nearest")``."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """torch's deprecated ``interpolate(..., mode="bilinear", align_corners=True)``."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _deprecated(name: str) -> None:
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=3)


def _sizes(input, dim: int, size, scale_factor) -> tuple:
    """(output_size, scale_factors), one of them None, as torch's interpolate reads them."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if not isinstance(size, (list, tuple)):
            return [size] * dim, None
        if len(size) != dim:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got input "
                f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format.")
        if not all(isinstance(s, (int, np.integer)) for s in size):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            "Tuple[int, int, int], but got size with types "
                            f"{[type(s) for s in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (list, tuple)):
        return None, [scale_factor] * dim
    if len(scale_factor) != dim:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
            f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format.")
    return None, list(scale_factor)


def _upsample(input, mode: str, dim: int, output_size, scales, align_corners,
              antialias: bool = False):
    """Run the op of ``mode`` in ``dim`` dims after torch's checks of sizes and dtype."""
    in_sizes = tuple(input.shape[2:])
    if output_size is None:   # torch's compute_output_size: floor(in * scale), in double
        output_size = [int(math.floor(n * float(s))) for n, s in zip(in_sizes, scales)]
    else:
        if not all(isinstance(s, (int, np.integer)) for s in output_size):
            raise TypeError(f"upsample_{mode.replace('-', '_')}{dim}d(): argument "
                            "'output_size' must be tuple of ints")
        scales = [None] * dim
    if min(in_sizes) <= 0 or min(output_size) <= 0:
        names = "DHW"[3 - dim:]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sizes))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, output_size))
        joint = " and" if dim == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({given}){joint} output ({wanted})")
    if math.prod(input.shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {dim + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(input.shape)}")
    if antialias:
        dtype = input._data.dtype   # torch has a uint8 kernel, in integer arithmetic
        if dtype != np.uint8 and (dtype.kind != "f" or dtype.itemsize < 4):
            raise kernel_missing("compute_index_ranges_weights", input.dtype)
        op = ops.UPSAMPLE_AA[mode]
    else:
        _check_dtype(input, mode, dim)
        op = ops.UPSAMPLE[(mode, dim)]
    return op(input, output_size=tuple(int(s) for s in output_size),
              scales=tuple(None if s is None else float(s) for s in scales),
              align_corners=align_corners if mode not in ("nearest", "nearest-exact") else None)


def _check_dtype(input, mode: str, dim: int) -> None:
    """torch's kernels are for floating dtypes (and uint8 images); each refusal names the
    kernel."""
    if input._data.dtype.kind == "f":
        return
    if input._data.dtype == np.uint8 and (mode in ("nearest", "nearest-exact")
                                          or (dim == 2 and mode in ops.UINT8_MODES)):
        return   # torch picks uint8 pixels, or resamples them in fixed point
    if dim == 2 and mode != "bicubic":
        kernel = f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    else:
        kernel = {"bicubic": "compute_indices_weights_cubic", "linear":
                  "compute_indices_weights_linear", "trilinear":
                  "compute_indices_weights_linear"}.get(mode, "compute_indices_weights_nearest")
    raise kernel_missing(kernel, input.dtype)

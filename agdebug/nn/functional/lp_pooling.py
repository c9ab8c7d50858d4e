"""Power-average pooling, ``lp_pool1d/2d/3d``: torch's composite, op for op, so the graph is
torch's (PowBackward0, AvgPool, SignBackward0 * ReluBackward0, MulBackward0, PowBackward0);
an infinite norm is a max pool of ``|x|``."""

from __future__ import annotations

import math

from .activation import relu
from .pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _sizes(kernel_size, n: int) -> tuple:
    return tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * n


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n: int, avg, max_pool):
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    window = math.prod(_sizes(kernel_size, n)) if n > 1 else kernel_size
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window (scaled as torch scales it)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d, max_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d, max_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d, max_pool3d)

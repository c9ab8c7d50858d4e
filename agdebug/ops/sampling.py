"""Spatial transformer ops: affine_grid (AffineGridGeneratorBackward0)."""

from __future__ import annotations

from ..backend import xp_of
from ..tensor import Tensor
from .registry import defop


def _steps(xp, n: int, align_corners: bool, dtype):
    """torch's ``linspace_from_neg_one``: n points over [-1, 1], pixel centres unless
    ``align_corners`` (then the corners); a single point is 0."""
    if n <= 1:
        return xp.zeros(max(n, 0), dtype=dtype)
    line = xp.linspace(-1.0, 1.0, n, dtype=dtype)
    return line if align_corners else line * ((n - 1) / n)


def _base_grid(xp, h: int, w: int, align_corners: bool, dtype):
    """(h * w, 3) rows (x, y, 1), x varying fastest."""
    xs, ys = _steps(xp, w, align_corners, dtype), _steps(xp, h, align_corners, dtype)
    base = xp.ones((h, w, 3), dtype=dtype)
    base[:, :, 0] = xs[None, :]
    base[:, :, 1] = ys[:, None]
    return base.reshape(h * w, 3)


@defop("affine_grid", node="AffineGridGeneratorBackward0")
def affine_grid(xp, theta, size=(), align_corners=False):
    """The (N, H, W, 2) sampling grid of the 2-D affine maps ``theta`` (N, 2, 3)."""
    n, _, h, w = size
    base = _base_grid(xp, h, w, align_corners, theta.dtype)
    return xp.matmul(base[None], xp.swapaxes(theta, 1, 2)).reshape(n, h, w, 2)


@affine_grid.vjp
def affine_grid_vjp(ctx, grad):
    n, _, h, w = ctx.size
    base = _base_grid(xp_of(grad._data), h, w, ctx.align_corners, grad._data.dtype)
    return (grad.reshape(n, h * w, 2).transpose(1, 2) @ Tensor._wrap(base),)

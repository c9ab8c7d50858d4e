"""Spatial transformer ops: affine_grid in 2-D and 3-D (AffineGridGeneratorBackward0)."""

from __future__ import annotations

from ...backend import xp_of
from ...tensor import Tensor
from ..core.registry import defop


def _steps(xp, n: int, align_corners: bool, dtype):
    """torch's ``linspace_from_neg_one``: n points over [-1, 1], pixel centres unless
    ``align_corners`` (then the corners); a single point is 0. In ``dtype``, with torch's
    roundings: its linspace counts the second half back from 1, each point one fused
    multiply-add (done here in float64, exact for narrower dtypes, then rounded once)."""
    if n <= 1:
        return xp.zeros(max(n, 0), dtype=dtype)
    t = xp.dtype(dtype).type
    step = float(t(2) / t(n - 1))
    i = xp.arange(n)
    line = xp.where(i < n // 2, -1.0 + step * i, 1.0 - step * (n - 1 - i)).astype(dtype)
    return line if align_corners else line * t(n - 1) / t(n)


def _base_grid(xp, spatial: tuple, align_corners: bool, dtype):
    """(prod(spatial), k + 1) rows (x, y[, z], 1) for ``spatial`` = (H, W) or (D, H, W),
    x varying fastest."""
    k = len(spatial)
    base = xp.ones((*spatial, k + 1), dtype=dtype)
    for axis, n in enumerate(reversed(spatial)):   # x along the last dim, y, then z
        shape = [1] * k
        shape[k - 1 - axis] = n
        base[..., axis] = _steps(xp, n, align_corners, dtype).reshape(shape)
    return base.reshape(-1, k + 1)


@defop("affine_grid", node="AffineGridGeneratorBackward0")
def affine_grid(xp, theta, size=(), align_corners=False):
    """The (N, H, W, 2) sampling grid of the 2-D affine maps ``theta`` (N, 2, 3), or the
    (N, D, H, W, 3) grid of the 3-D ones (N, 3, 4)."""
    n, _, *spatial = size
    base = _base_grid(xp, tuple(spatial), align_corners, theta.dtype)
    return xp.matmul(base[None], xp.swapaxes(theta, 1, 2)).reshape(n, *spatial, len(spatial))


@affine_grid.vjp
def affine_grid_vjp(ctx, grad):
    n, _, *spatial = ctx.size
    base = _base_grid(xp_of(grad._data), tuple(spatial), ctx.align_corners, grad._data.dtype)
    return (grad.reshape(n, -1, len(spatial)).transpose(1, 2) @ Tensor._wrap(base),)

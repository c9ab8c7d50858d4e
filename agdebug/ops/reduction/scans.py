"""Cumulative reductions: cumsum and cumprod."""

from __future__ import annotations

from ...tensor import Tensor
from ..pointwise.comparison import where
from ..core.registry import defop
from ..core.gradients import input_shape
from .sum_prod import _axes, _const, _int_as_long, _xp


# ----------------------------------------------------------------------------- cumsum

def _cumulative(scan, x, dim, dtype):
    """cumsum's and cumprod's forward: integers and bools accumulate as int64, as in torch."""
    axis = _axes(dim, x.ndim)
    if axis is None:   # a 0-d tensor: itself, in the result dtype
        return x.astype(dtype or _int_as_long(x) or x.dtype, copy=True)
    return scan(x, axis=axis[0], dtype=dtype if dtype is not None else _int_as_long(x))


@defop("cumsum", node="CumsumBackward0",
       saved_as={"dtype": None})
def cumsum(xp, x, dim=0, dtype=None):
    return _cumulative(xp.cumsum, x, dim, dtype)


@cumsum.vjp
def cumsum_vjp(ctx, grad):
    if not input_shape(ctx, 0):
        return (grad,)
    return (grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim),)


# ----------------------------------------------------------------------------- cumprod

@defop("cumprod", node="CumprodBackward0", saves=("x", "result"),
       saved_as={"dtype": None})
def cumprod(xp, x, dim=0, dtype=None):
    return _cumulative(xp.cumprod, x, dim, dtype)


@cumprod.vjp
def cumprod_vjp(ctx, grad):
    """d out_j / d x_i = out_j / x_i for j >= i: a reversed cumsum, divided by x.

    With a zero in ``x`` that division is 0/0, so the exact products of the others are
    used instead (as torch does); they cost n times the input, so only then.
    """
    x = ctx.x
    if not x.shape:
        return (grad,)
    dim = ctx.dim % x.ndim
    if not (x._data == 0).any():
        summed = (grad * ctx.result).flip(dim).cumsum(dim).flip(dim)
        return (summed / x,)
    return (_cumprod_with_zeros(grad, x, dim),)


def _cumprod_with_zeros(grad: Tensor, x: Tensor, dim: int) -> Tensor:
    """sum over j >= i of grad_j * prod(x_k, k <= j, k != i), written with cumprod itself
    (x_i replaced by 1 in row i) so every order of derivative is exact."""
    shape = tuple(x.shape)
    n = shape[dim]
    after = (1,) * (len(shape) - dim - 1)
    expanded = x.unsqueeze(dim).expand(shape[:dim] + (n,) + shape[dim:])   # [.., i, k, ..]
    xp = _xp(x)
    eye = xp.eye(n, dtype=bool).reshape((1,) * dim + (n, n) + after)
    others = cumprod(where(1.0, expanded, condition=Tensor._wrap(eye)), dim=dim + 1)
    later = xp.triu(xp.ones((n, n), dtype=bool)).reshape((1,) * dim + (n, n) + after)  # j >= i
    return (grad.unsqueeze(dim) * others * _const(later, grad)).sum(dim + 1)

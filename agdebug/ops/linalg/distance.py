"""Cross products and distances: cross / linalg.cross, cdist, dist, pdist.

The p-norm derivatives share one helper: the gradient of ``||d||_p`` with
respect to ``d``, written with tensor ops so it differentiates again.
"""

from __future__ import annotations

import math

from ...backend import xp_of
from ...tensor import Tensor
from .products import _name
from ..reduction.norms import check_inf_norm
from ..core.registry import defop
from ..core.checks import broadcast_shape, dims_of, kernel_missing
from ..core.arguments import must_be
from ..core.gradients import needs


def _const(array, like: Tensor) -> Tensor:
    """A constant (no graph) on ``like``'s device; NumPy scalars become 0-d arrays."""
    return Tensor._wrap(xp_of(like._data).asarray(array))


def _norm_grad(diff: Tensor, norm: Tensor, p: float) -> Tensor:
    """d||diff||_p / d diff, where ``norm`` (broadcastable to diff) is the norm itself."""
    if p == 0:
        return diff * 0
    if p == 1:
        return diff.sign()
    zero = norm._data == 0
    keep = _const((~zero).astype(norm._data.dtype), norm)
    if abs(p) == math.inf:   # the largest (smallest) |entries| share the gradient, as
        # torch's amax (amin) backward
        hits = diff.abs() == norm
        return diff.sign() * hits / hits.sum(-1, keepdim=True)
    safe = norm + _const(zero.astype(norm._data.dtype), norm)   # no gradient where the norm is 0
    if p == 2:
        return diff / safe * keep
    return diff.sign() * diff.abs() ** (p - 1) / safe ** (p - 1) * keep


# ----------------------------------------------------------------------------- cross

@defop("linalg_cross", node="LinalgCrossBackward0", saves=("self@1", "other@0"),
       broadcasts=True)
def linalg_cross_op(xp, self, other, dim=-1):
    return xp.cross(self, other, axis=dim)


@linalg_cross_op.vjp
def linalg_cross_vjp(ctx, grad):
    grad_self = linalg_cross_op(ctx.other, grad, dim=ctx.dim) if needs(ctx, 0) else None
    grad_other = linalg_cross_op(grad, ctx.self, dim=ctx.dim) if needs(ctx, 1) else None
    return grad_self, grad_other


def linalg_cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim``; batch dims broadcast.

    >>> import agdebug as ag
    >>> ag.linalg.cross(ag.tensor([1.0, 0.0, 0.0]), ag.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    ndim = input.ndim
    d = dims_of(dim, ndim)[0]
    n1, n2 = (_size_at(t, d - ndim) for t in (input, other))
    if n1 != 3 or n2 != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{n1} and {n2}")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(input)} but found {_name(other)}")
    return linalg_cross_op(input, other, dim=d - ndim)   # negative: counts for both shapes


def _size_at(t: Tensor, negative: int) -> int:
    return t.shape[negative] if -negative <= t.ndim else 1


def cross(input, other, dim=None):
    """``linalg.cross``; without ``dim`` the first dim of size 3 (torch warns it will
    become -1)."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


# ----------------------------------------------------------------------------- dist

@defop("dist", node="DistBackward0", saves=("self", "other", "result"), broadcasts=True)
def dist_op(xp, self, other, p=2.0):
    diff = xp.abs(self - other).reshape(-1)
    if p == 0:
        return xp.asarray((diff != 0).sum(), dtype=diff.dtype)
    if p == math.inf:   # (``dist`` refuses an empty difference, as torch)
        return diff.max()
    if p == -math.inf:
        return diff.min()
    if p == 1:
        return diff.sum()
    return xp.asarray((diff ** p).sum() ** (1 / p), dtype=diff.dtype)


@dist_op.vjp
def dist_vjp(ctx, grad):
    diff = ctx.self - ctx.other
    flat = diff.reshape(-1)
    g = grad * _norm_grad(flat, ctx.result, ctx.p).reshape(diff.shape)
    return (g if needs(ctx, 0) else None), (-g if needs(ctx, 1) else None)


def dist(input, other, p=2):
    """``||input - other||_p`` over all elements (broadcast) (DistBackward0).

    >>> import agdebug as ag
    >>> ag.dist(ag.tensor([3.0, 0.0]), ag.tensor([0.0, 4.0]))
    tensor(5.)
    """
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(input)} but found {_name(other)}")
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_name(input)} instead.")
    p = float(p)
    if abs(p) == math.inf:
        check_inf_norm(p, broadcast_shape(input.shape, other.shape), None)
    return dist_op(input, other, p=p)


# ----------------------------------------------------------------------------- cdist

def _pairwise(xp, x1, x2, p):
    diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == math.inf:
        return diff.max(-1) if diff.shape[-1] else xp.zeros(diff.shape[:-1], dtype=diff.dtype)
    if p == 1:
        return diff.sum(-1)
    return (diff ** p).sum(-1) ** (1 / p)


@defop("cdist", node="CdistBackward0", saves=("x1", "x2", "result"))
def cdist_op(xp, x1, x2, p=2.0):
    return _pairwise(xp, x1, x2, p)


@cdist_op.vjp
def cdist_vjp(ctx, grad):
    return _pairwise_grads(ctx, grad, ctx.p)


def _pairwise_grads(ctx, grad, p):
    diff = ctx.x1.unsqueeze(-2) - ctx.x2.unsqueeze(-3)    # [..., r1, r2, m]
    g = grad.unsqueeze(-1) * _norm_grad(diff, ctx.result.unsqueeze(-1), p)
    grad_x1 = g.sum(-2) if needs(ctx, 0) else None
    grad_x2 = -g.sum(-3) if needs(ctx, 1) else None
    return grad_x1, grad_x2


# torch computes p=2 distances through a matrix product once either set has more than 25
# points (compute_mode's default): another node, and values equal up to rounding.
@defop("euclidean_dist", node="EuclideanDistBackward0", saves=("x1", "x2", "result"))
def euclidean_dist_op(xp, x1, x2):
    sq1 = (x1 * x1).sum(-1)[..., :, None]
    sq2 = (x2 * x2).sum(-1)[..., None, :]
    square = sq1 + sq2 - 2 * xp.matmul(x1, xp.swapaxes(x2, -1, -2))
    return xp.sqrt(xp.clip(square, 0, None))


@euclidean_dist_op.vjp
def euclidean_dist_vjp(ctx, grad):
    return _pairwise_grads(ctx, grad, 2.0)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched).

    >>> import agdebug as ag
    >>> ag.cdist(ag.tensor([[0.0, 0.0]]), ag.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    _check_cdist(x1, x2, p)
    batch = broadcast_shape(x1.shape[:-2], x2.shape[:-2])   # torch's error, on every path
    r1, r2 = x1.shape[-2], x2.shape[-2]
    mm = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25))
    if p != 2 or not mm:
        return cdist_op(x1, x2, p=float(p))
    if x1.ndim == 2 and x2.ndim == 2:
        return euclidean_dist_op(x1, x2).view(r1, r2)
    count = math.prod(batch)
    t1 = x1.expand(*batch, r1, x1.shape[-1]).contiguous().view(count, r1, x1.shape[-1])
    t2 = x2.expand(*batch, r2, x2.shape[-1]).contiguous().view(count, r2, x2.shape[-1])
    return euclidean_dist_op(t1, t2).view(*batch, r1, r2)


def _check_cdist(x1, x2, p) -> None:
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x.ndim}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_name(x)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


# ----------------------------------------------------------------------------- pdist

def _pairs(xp, n: int):
    """The row pairs (i, j), i < j, in torch's order (the upper triangle, row by row)."""
    return xp.triu_indices(n, 1)


@defop("pdist", node="PdistBackward0", saves=("self", "result"))
def pdist_op(xp, self, p=2.0):
    i, j = _pairs(xp, self.shape[0])
    return _pairwise(xp, self[i][:, None, :], self[j][:, None, :], p)[:, 0, 0]


@pdist_op.vjp
def pdist_vjp(ctx, grad):
    xp = xp_of(ctx.self._data)
    i, j = (Tensor._wrap(k) for k in _pairs(xp, ctx.self.shape[0]))
    diff = ctx.self.index_select(0, i) - ctx.self.index_select(0, j)    # [pairs, m]
    g = grad.unsqueeze(-1) * _pdist_grad(diff, ctx.result.unsqueeze(-1), ctx.p)
    return (ctx.self * 0).index_add(0, i, g).index_add(0, j, -g),


def _pdist_grad(diff: Tensor, dist: Tensor, p: float) -> Tensor:
    """d dist / d diff as torch's _pdist_backward has it: 0 where the distance is 0 (and,
    for p < 1, where an entry of the difference is), every tied entry in full for p = inf."""
    if p == 0:
        return diff * 0
    if p == 1:
        return diff.sign()
    if p == math.inf:
        return diff.sign() * (diff.abs() == dist)
    keep = _const((dist._data != 0).astype(dist._data.dtype), dist)
    safe = dist + _const((dist._data == 0).astype(dist._data.dtype), dist)
    if p == 2:
        return diff / safe * keep
    size = diff.abs() + _const((diff._data == 0).astype(diff._data.dtype), diff)
    return diff.sign() * size ** (p - 1) / safe ** (p - 1) * keep


def pdist(input, p=2.0):
    """The ``p``-norm distance between every pair of rows of ``input`` (n x m): the upper
    triangle of ``cdist(input, input)``, row by row, n (n - 1) / 2 values (PdistBackward0).

    >>> import agdebug as ag
    >>> ag.pdist(ag.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    if not isinstance(p, (int, float)):
        raise must_be("pdist", "p", 2, "float", p)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if input._data.dtype.itemsize < 4:
        raise kernel_missing("pdist", input._data.dtype)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return pdist_op(input, p=float(p))


FUNCTIONS = {"cross": cross, "cdist": cdist, "dist": dist, "pdist": pdist}
METHODS = {"cross": cross, "dist": dist}

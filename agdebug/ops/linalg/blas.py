"""``beta * input + alpha * product``: addmv, addr, baddbmm, addbmm (addmm is in linalg).

Each is one node in torch, so one op here. ``input`` broadcasts to the product's
shape; the engine sums its gradient back. With ``beta == 0`` torch ignores
``input`` entirely (a NaN in it does not reach the result).
"""

from __future__ import annotations

from .products import _check_bmm, _check_expandable, _check_mv, _name, bmm_op, mv_op
from ..core.registry import defop
from ..core.gradients import input_shape, needs


def _combine(product, input, beta, alpha):
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + (input if beta == 1 else input * beta)


def _scaled(grad, factor):
    return grad if factor == 1 else grad * factor


def _input_grad(ctx, grad):
    return _scaled(grad, ctx.beta) if needs(ctx, 0) else None


@defop("addmv", node="AddmvBackward0", saves=("mat@2", "vec@1"))
def addmv_op(xp, self, mat, vec, beta=1, alpha=1):
    return _combine(mat @ vec, self, beta, alpha)


@addmv_op.vjp
def addmv_vjp(ctx, grad):
    scaled = _scaled(grad, ctx.alpha)
    grad_mat = scaled.reshape(-1, 1) * ctx.vec if needs(ctx, 1) else None
    grad_vec = mv_op(ctx.mat.t(), scaled) if needs(ctx, 2) else None
    return _input_grad(ctx, grad), grad_mat, grad_vec


@defop("addr", node="AddrBackward0", saves=("vec1@2", "vec2@1"))
def addr_op(xp, self, vec1, vec2, beta=1, alpha=1):
    return _combine(xp.outer(vec1, vec2), self, beta, alpha)


@addr_op.vjp
def addr_vjp(ctx, grad):
    scaled = _scaled(grad, ctx.alpha)
    grad_vec1 = mv_op(scaled, ctx.vec2) if needs(ctx, 1) else None
    grad_vec2 = mv_op(scaled.t(), ctx.vec1) if needs(ctx, 2) else None
    return _input_grad(ctx, grad), grad_vec1, grad_vec2


@defop("baddbmm", node="BaddbmmBackward0", saves=("batch1@2", "batch2@1"))
def baddbmm_op(xp, self, batch1, batch2, beta=1, alpha=1):
    return _combine(xp.matmul(batch1, batch2), self, beta, alpha)


@baddbmm_op.vjp
def baddbmm_vjp(ctx, grad):
    scaled = _scaled(grad, ctx.alpha)
    grad_b1 = bmm_op(scaled, ctx.batch2.transpose(1, 2)) if needs(ctx, 1) else None
    grad_b2 = bmm_op(ctx.batch1.transpose(1, 2), scaled) if needs(ctx, 2) else None
    return _input_grad(ctx, grad), grad_b1, grad_b2


@defop("addbmm", node="AddbmmBackward0", saves=("batch1@2", "batch2@1"))
def addbmm_op(xp, self, batch1, batch2, beta=1, alpha=1):
    return _combine(xp.matmul(batch1, batch2).sum(axis=0), self, beta, alpha)


@addbmm_op.vjp
def addbmm_vjp(ctx, grad):
    # Every batch's product received the same gradient.
    grad_b1 = grad_b2 = None
    if needs(ctx, 1) or needs(ctx, 2):
        batch = input_shape(ctx, 1 if needs(ctx, 1) else 2)[0]
        scaled = _scaled(grad, ctx.alpha).unsqueeze(0).expand(batch, *grad.shape)
    if needs(ctx, 1):
        grad_b1 = bmm_op(scaled, ctx.batch2.transpose(1, 2))
    if needs(ctx, 2):
        grad_b2 = bmm_op(ctx.batch1.transpose(1, 2), scaled)
    return _input_grad(ctx, grad), grad_b1, grad_b2


# ----------------------------------------------------------------------------- public API

def _same_dtype(input, other) -> None:
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(other)} but found {_name(input)}")


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` (AddmvBackward0).

    >>> import agdebug as ag
    >>> ag.addmv(ag.tensor([1.0]), ag.ones(1, 2), ag.tensor([2.0, 3.0]))
    tensor([6.])
    """
    _check_mv(mat, vec)
    if input.ndim == 1 and input.shape[0] not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    _check_expandable(tuple(input.shape), (mat.shape[0],))
    _same_dtype(input, mat)
    return addmv_op(input, mat, vec, beta=beta, alpha=alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (AddrBackward0)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _check_expandable(tuple(input.shape), (vec1.shape[0], vec2.shape[0]))
    _same_dtype(vec1, vec2)
    _same_dtype(input, vec1)
    return addr_op(input, vec1, vec2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` (BaddbmmBackward0)."""
    if batch1.ndim == 3 and batch2.ndim == 3:   # torch checks the input's shape first
        shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
        _check_expandable(tuple(input.shape), shape)
    _check_bmm(batch1, batch2)
    _same_dtype(input, batch1)
    return baddbmm_op(input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (AddbmmBackward0)."""
    if batch1.ndim >= 2 and batch2.ndim >= 3:   # torch checks the input's shape first
        _check_expandable(tuple(input.shape), (batch1.shape[1], batch2.shape[2]))
    _check_bmm(batch1, batch2)
    _same_dtype(input, batch1)
    return addbmm_op(input, batch1, batch2, beta=beta, alpha=alpha)


FUNCTIONS = {"addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm}
METHODS = dict(FUNCTIONS)

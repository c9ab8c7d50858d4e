"""Matrix structure: diagonal, diag, diag_embed, trace, tril/triu, block_diag, kron.

``diagonal`` is a view (writes through it reach the base, as in torch); its
derivative writes the gradient onto the diagonal of zeros, and the derivative
of that reads the diagonal back, so every order has a graph.
"""

from __future__ import annotations

import numpy as np

from ... import backend
from ...backend import xp_of
from ...tensor import Tensor
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..shape.views_copies import narrow, unsafe_view
from ..core.checks import dims_of, kernel_missing
from ..core.gradients import input_shape, needs


# ----------------------------------------------------------------------------- diagonals

def _diagonal_view(xp, x, offset: int, dim1: int, dim2: int):
    """A writable strided view of the diagonal (NumPy's ``diagonal`` is read-only)."""
    start = [slice(None)] * x.ndim
    start[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    y = x[tuple(start)]
    length = max(min(y.shape[dim1], y.shape[dim2]), 0)
    keep = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    shape = tuple(y.shape[d] for d in keep) + (length,)
    strides = tuple(y.strides[d] for d in keep) + (y.strides[dim1] + y.strides[dim2],)
    return xp.lib.stride_tricks.as_strided(y, shape, strides)


@defop("diagonal", node="DiagonalBackward0", view=True, sizes=SELF_SIZES)
def diagonal_op(xp, x, offset=0, dim1=0, dim2=1):
    return _diagonal_view(xp, x, offset, dim1, dim2)


# torch.diag of a matrix runs diagonal_copy: a copy, with this (generated) node name.
@defop("diagonal_copy", node="DiagonalBackward0_copy", sizes=SELF_SIZES)
def diagonal_copy_op(xp, x, offset=0, dim1=0, dim2=1):
    return _diagonal_view(xp, x, offset, dim1, dim2).copy()


def _diagonal_vjp(ctx, grad):
    return (diagonal_backward(grad, shape=input_shape(ctx, 0), offset=ctx.offset,
                              dim1=ctx.dim1, dim2=ctx.dim2),)


diagonal_op.vjp(_diagonal_vjp)
diagonal_copy_op.vjp(_diagonal_vjp)


@defop("diagonal_backward", node="DiagonalBackwardBackward0")
def diagonal_backward(xp, grad, shape=(), offset=0, dim1=0, dim2=1):
    out = xp.zeros(shape, dtype=grad.dtype)
    _diagonal_view(xp, out, offset, dim1, dim2)[...] = grad
    return out


@diagonal_backward.vjp
def diagonal_backward_vjp(ctx, grad):
    return (diagonal_op(grad, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2),)


@defop("diag_embed", node="DiagEmbedBackward0")
def diag_embed_op(xp, x, offset=0, dim1=0, dim2=1):
    n = x.shape[-1] + abs(offset) if x.ndim else 1
    shape = list(x.shape[:-1])
    for d in sorted((dim1, dim2)):
        shape.insert(d, n)
    out = xp.zeros(shape, dtype=x.dtype)
    _diagonal_view(xp, out, offset, dim1, dim2)[...] = x
    return out


@diag_embed_op.vjp
def diag_embed_vjp(ctx, grad):
    return (diagonal_op(grad, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2),)


def _two_dims(dim1, dim2, ndim: int) -> tuple:
    d1, d2 = dims_of(dim1, ndim)[0], dims_of(dim2, ndim)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of ``input`` over ``dim1``/``dim2``, as a view appended as the last dim.

    >>> import agdebug as ag
    >>> ag.arange(9.0).reshape(3, 3).diagonal(1)
    tensor([1., 5.])
    """
    d1, d2 = _two_dims(dim1, dim2, input.ndim)
    return diagonal_op(input, offset=int(offset), dim1=d1, dim2=d2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose ``dim1``/``dim2`` diagonals (at ``offset``) are ``input``'s last dim."""
    d1, d2 = _two_dims(dim1, dim2, input.ndim + 1)
    return diag_embed_op(input, offset=int(offset), dim1=d1, dim2=d2)


def diag(input, diagonal=0):
    """A 1-D tensor as a diagonal matrix, or a matrix's diagonal as a 1-D tensor (a copy).

    >>> import agdebug as ag
    >>> ag.diag(ag.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if input.ndim == 1:
        return diag_embed_op(input, offset=int(diagonal), dim1=0, dim2=1)
    if input.ndim == 2:
        return diagonal_copy_op(input, offset=int(diagonal), dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    """``input`` flattened, as the ``offset`` diagonal of a square matrix."""
    return diag_embed_op(input.reshape(-1), offset=int(offset), dim1=0, dim2=1)


# ----------------------------------------------------------------------------- trace

@defop("trace", node="TraceBackward0", sizes=SELF_SIZES)
def trace_op(xp, x):
    dtype = np.int64 if x.dtype.kind in "iu" else x.dtype   # integers sum as int64
    return xp.asarray(xp.trace(x, dtype=dtype))


@trace_op.vjp
def trace_vjp(ctx, grad):
    rows, cols = input_shape(ctx, 0)
    eye = Tensor._wrap(xp_of(grad._data).eye(rows, cols, dtype=grad._data.dtype))
    return (grad * eye,)


def trace(input):
    """The sum of a matrix's main diagonal (TraceBackward0).

    >>> import agdebug as ag
    >>> ag.eye(3).trace()
    tensor(3.)
    """
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._data.dtype == np.bool_:
        raise kernel_missing("trace", input._data.dtype)
    return trace_op(input)


# ----------------------------------------------------------------------------- triangles

@defop("tril", node="TrilBackward0")
def tril_op(xp, x, diagonal=0):
    return xp.tril(x, diagonal)


@tril_op.vjp
def tril_vjp(ctx, grad):
    return (tril_op(grad, diagonal=ctx.diagonal),)


@defop("triu", node="TriuBackward0")
def triu_op(xp, x, diagonal=0):
    return xp.triu(x, diagonal)


@triu_op.vjp
def triu_vjp(ctx, grad):
    return (triu_op(grad, diagonal=ctx.diagonal),)


def _check_triangle(name: str, input) -> None:
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    """The lower triangle of (each matrix of) ``input``; the rest zeroed (TrilBackward0).

    >>> import agdebug as ag
    >>> ag.ones(2, 2).tril()
    tensor([[1., 0.],
            [1., 1.]])
    """
    _check_triangle("tril", input)
    return tril_op(input, diagonal=int(diagonal))


def triu(input, diagonal=0):
    """The upper triangle of (each matrix of) ``input``; the rest zeroed (TriuBackward0)."""
    _check_triangle("triu", input)
    return triu_op(input, diagonal=int(diagonal))


def tril_(self, diagonal=0):
    """In-place ``tril``."""
    _check_triangle("tril", self)
    return apply_inplace(tril_op, self, (), {"diagonal": int(diagonal)})


def triu_(self, diagonal=0):
    """In-place ``triu``."""
    _check_triangle("triu", self)
    return apply_inplace(triu_op, self, (), {"diagonal": int(diagonal)})


def _indices(name: str, row, col, offset, dtype, device, pick) -> Tensor:
    from ... import backend
    dtype = backend.int64 if dtype is None else dtype
    if dtype not in (backend.int64, backend.int32):
        raise kernel_missing(name, dtype)
    for what, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{what} must be non-negative, got{n}")
    rows, cols = pick(int(row), int(offset), int(col))
    out = Tensor._wrap(np.stack([rows, cols]).astype(dtype.np).reshape(2, -1))
    return out if device is None else out.to(device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row/column indices of a ``row`` x ``col`` matrix's lower triangle.

    >>> import agdebug as ag
    >>> ag.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _indices("tril_indices", row, col, offset, dtype, device, np.tril_indices)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row/column indices of a ``row`` x ``col`` matrix's upper triangle."""
    return _indices("triu_indices", row, col, offset, dtype, device, np.triu_indices)


# ----------------------------------------------------------------------------- block_diag, kron

@defop("block_diag", node="BlockDiagBackward0")
def block_diag_op(xp, *xs, shapes=()):
    from ..shape.views_copies import _common_dtype
    mats = [x.reshape(s) for x, s in zip(xs, _block_shapes(shapes))]
    dtype = _common_dtype(mats) if mats else backend.DEFAULT_FLOAT.np
    rows = sum(m.shape[0] for m in mats) if mats else 1   # (torch: no blocks, one empty row)
    out = xp.zeros((rows, sum(m.shape[1] for m in mats)), dtype=dtype)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _block_shapes(shapes) -> list:
    """Each input's shape as a matrix: a scalar is 1 x 1, a vector one row."""
    return [tuple(s) if len(s) == 2 else (1, int(np.prod(s))) for s in shapes]


@block_diag_op.vjp
def block_diag_vjp(ctx, grad):
    grads, r, c = [], 0, 0
    for i, (shape, (rows, cols)) in enumerate(zip(ctx.shapes, _block_shapes(ctx.shapes))):
        if needs(ctx, i):
            block = narrow(narrow(grad, dim=0, start=r, length=rows), dim=1, start=c, length=cols)
            grads.append(block.reshape(shape))
        else:
            grads.append(None)
        r, c = r + rows, c + cols
    return tuple(grads)


def block_diag(*tensors):
    """The tensors (at most 2-D) placed on the diagonal of one block matrix.

    >>> import agdebug as ag
    >>> ag.block_diag(ag.ones(1, 1), ag.tensor([2.0, 3.0]))
    tensor([[1., 0., 0.],
            [0., 2., 3.]])
    """
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
    return block_diag_op(*tensors, shapes=tuple(tuple(t.shape) for t in tensors))


def kron(input, other):
    """The Kronecker product, built as torch builds it: two reshapes, a product, a reshape.

    >>> import agdebug as ag
    >>> ag.kron(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 10.0]))
    tensor([ 1., 10.,  2., 20.])
    """
    ndim = max(input.ndim, other.ndim)
    a = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b = (1,) * (ndim - other.ndim) + tuple(other.shape)
    a_shape = tuple(s for n in a for s in (n, 1))
    b_shape = tuple(s for n in b for s in (1, n))
    product = unsafe_view(input, shape=a_shape) * unsafe_view(other, shape=b_shape)
    return unsafe_view(product, shape=tuple(x * y for x, y in zip(a, b)))


FUNCTIONS = {
    "diagonal": diagonal, "diag": diag, "diag_embed": diag_embed, "diagflat": diagflat,
    "trace": trace, "tril": tril, "triu": triu, "tril_indices": tril_indices,
    "triu_indices": triu_indices, "block_diag": block_diag, "kron": kron,
}

METHODS = {
    "diagonal": diagonal, "diag": diag, "diag_embed": diag_embed, "diagflat": diagflat,
    "trace": trace, "tril": tril, "triu": triu, "tril_": tril_, "triu_": triu_, "kron": kron,
}

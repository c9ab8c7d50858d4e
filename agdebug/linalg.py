"""``agdebug.linalg``: the part of ``torch.linalg`` agdebug has (no decompositions).

Products (matmul, multi_dot, cross, vecdot-free), norms (norm, vector_norm,
matrix_norm for 'fro', 1, -1, inf, -inf) and diagonal. Matrix norms that need
a singular value decomposition ('nuc', 2, -2) are refused.

>>> import agdebug as ag
>>> ag.linalg.norm(ag.tensor([3.0, 4.0]))
tensor(5.)
"""

from __future__ import annotations

import math

from .ops.contract import multi_dot
from .ops.distance import linalg_cross as cross
from .ops.linalg import matmul
from .ops.matrix import diagonal as _diagonal
from .ops.reduce import vector_norm
from .ops.util import dims_of

__all__ = ["matmul", "multi_dot", "cross", "norm", "vector_norm", "matrix_norm", "diagonal"]


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in ``A`` (a view), as ``torch.linalg.diagonal``."""
    return _diagonal(A, offset, dim1, dim2)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm of each matrix over ``dim``: 'fro', or the max/min absolute column
    (ord 1/-1) or row (inf/-inf) sum.

    >>> import agdebug as ag
    >>> ag.linalg.matrix_norm(ag.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = dims_of(tuple(dim), A.ndim)
    if len(dims) != 2 or dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, dim=dims, keepdim=keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs a singular value "
                                  "decomposition, which agdebug does not have")
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    first, second = dims if abs(ord) == 1 else dims[::-1]   # column sums, or row sums
    if not keepdim and first < second:
        second -= 1
    sums = vector_norm(A, 1, dim=first, keepdim=keepdim, dtype=dtype)
    return sums.amax(second, keepdim) if ord > 0 else sums.amin(second, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm, or a matrix norm where ``dim`` names two dims or ``ord`` is given
    for a matrix, as ``torch.linalg.norm``.

    >>> import agdebug as ag
    >>> ag.linalg.norm(ag.ones(2, 2), "fro")
    tensor(2.)
    """
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, dim=dim, keepdim=keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Expected a number as ord, got {ord!r}")
    return vector_norm(A, ord, dim=dim, keepdim=keepdim, dtype=dtype)

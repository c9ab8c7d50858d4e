"""``F.linear`` and ``F.bilinear``.

>>> import agdebug as ag
>>> ag.nn.functional.linear(ag.ones(2, 3), ag.ones(4, 3)).shape
agdebug.Size([2, 4])
"""

from __future__ import annotations

from ...ops.linalg import products as linalg
from ...ops.linalg.bilinear import bilinear
from ...ops.shape.views_copies import t as transpose_2d
from ._parser import torch_words

__all__ = ["bilinear", "linear"]


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; a 2D input with a bias is one ``AddmmBackward0`` node.

    >>> import agdebug as ag
    >>> x, w, b = ag.ones(2, 3), ag.ones(4, 3, requires_grad=True), ag.zeros(4)
    >>> ag.nn.functional.linear(x, w, b).grad_fn.name()
    'AddmmBackward0'
    """
    ndim, weight_ndim = input._data.ndim, weight._data.ndim
    if ndim == 0 or weight_ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{ndim}D and {weight_ndim}D")
    if ndim == 2 and bias is not None:
        return linalg.addmm(bias, input, _t(weight))
    if ndim == 2 and weight_ndim == 2:   # torch's matmul: mm here, mv for a 1D weight
        return linalg.mm(input, _t(weight))
    if bias is not None:
        flat = input.reshape(-1, input.shape[-1])
        out = linalg.addmm(bias, flat, _t(weight))
        return out.view(tuple(input.shape[:-1]) + (weight.shape[0],))
    return linalg.matmul(input, _t(weight))


def _t(weight):
    """``weight.t()``: for a matrix its op (TBackward0) directly, without the method's layer
    of argument checks (every Linear layer's call)."""
    return transpose_2d(weight) if weight._data.ndim == 2 else weight.t()

torch_words(globals(), ["linear"])

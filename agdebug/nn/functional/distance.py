"""Distance functions: ``F.cosine_similarity``, ``F.pairwise_distance`` and ``F.pdist``.

>>> import agdebug as ag
>>> ag.nn.functional.pairwise_distance(ag.zeros(1, 2), ag.ones(1, 2))
tensor([1.4142])
"""

from __future__ import annotations

from ...ops.linalg import distance as distance_ops
from ...ops.nn import loss_pieces as loss_ops
from ._parser import torch_words
from .loss import _broadcast_pair, _no_grad

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``."""
    from ...ops.reduction.signatures import vector_norm
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with _no_grad():   # torch clamps the norms outside the graph (the clone keeps them apart)
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (NormBackward1)."""
    dim = 0 if max(x1.ndim, x2.ndim) == 1 else -1
    diff = loss_ops.add_scalar(x1 - x2, other=eps)
    return loss_ops.norm_p_dim(diff, ord=float(p), dim=(dim % max(diff.ndim, 1),),
                               keepdim=keepdim)



def pdist(input, p=2.0):
    """``torch.pdist``: the ``p``-norm distance between every pair of rows (PdistBackward0)."""
    return distance_ops.pdist(input, p)


torch_words(globals(), __all__)

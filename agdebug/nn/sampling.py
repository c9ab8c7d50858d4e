"""Sampling and spatial transformers: ``F.gumbel_softmax`` (built from ops, as torch builds
it), ``F.affine_grid`` and ``F.grid_sample`` (one node each; the maths is in
:mod:`agdebug.ops.sampling`).

>>> import agdebug as ag
>>> _ = ag.manual_seed(0)
>>> y = ag.nn.functional.gumbel_softmax(ag.zeros(2, 3, requires_grad=True), hard=True)
>>> y.sum(-1), y.grad_fn.name()
(tensor([1., 1.], grad_fn=<SumBackward1>), 'AddBackward0')
"""

from __future__ import annotations

import warnings

from .. import creation

__all__ = ["gumbel_softmax"]


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax distribution over ``dim``: soft (a softmax of the
    noisy logits / tau) or, with ``hard=True``, one-hot rows whose gradient is the soft
    sample's (the straight-through estimator). Draws from agdebug's generator.

    >>> import agdebug as ag
    >>> _ = ag.manual_seed(0)
    >>> ag.nn.functional.gumbel_softmax(ag.tensor([[0.0, 9.0]]), hard=True)
    tensor([[0., 1.]])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -creation.empty_like(logits).exponential_().log()   # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft

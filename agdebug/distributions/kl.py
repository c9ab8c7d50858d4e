"""``kl_divergence(p, q)``: KL(p || q) for the pairs of distributions registered here."""

from __future__ import annotations

import math

from ..nn.functional import softplus
from .bernoulli import Bernoulli
from .categorical import Categorical
from .independent import Independent, sum_rightmost
from .normal import Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes KL(p || q) for these two types (and subclasses)."""
    def register(fn):
        _KL[type_p, type_q] = fn
        return fn
    return register


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    for type_p in type(p).__mro__:
        for type_q in type(q).__mro__:
            if (type_p, type_q) in _KL:
                return _KL[type_p, type_q](p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                              f"{p.__class__.__name__} and q type {q.__class__.__name__}")


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)

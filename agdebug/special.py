"""``torch.special`` for agdebug: the special functions agdebug has, under torch's names.

Each is the same function as its top-level name (``special.expit`` is ``agdebug.sigmoid``,
``special.psi`` is ``agdebug.digamma``), so it records the same node torch records
(SigmoidBackward0, DigammaBackward0...). The functions agdebug lacks (Bessel functions,
``entr``, ``ndtr``, the orthogonal polynomials...) are simply absent: under
``--engine agdebug`` asking for one is an AttributeError that names it.

>>> import agdebug as ag
>>> ag.special.expit(ag.tensor([0.0])).tolist()
[0.5]
"""

from __future__ import annotations

from .functions import (digamma, erf, erfc, erfinv, exp2, expm1, i0, lgamma, log1p,
                        log_softmax, logit, logsumexp, mvlgamma, polygamma, sigmoid, sinc,
                        softmax, xlogy)
from .ops.pointwise.special import special_i1 as i1
from .ops.pointwise.unary import round_decimals

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0",
           "i1", "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "polygamma", "psi",
           "round", "sinc", "softmax", "xlogy"]

expit = sigmoid
psi = digamma
gammaln = lgamma
multigammaln = mvlgamma


def round(input, *, decimals: int = 0):   # noqa: A001 - torch's name
    """torch.special.round is ``round.decimals`` whatever ``decimals`` is (RoundBackward1)."""
    return round_decimals(input, decimals=decimals)

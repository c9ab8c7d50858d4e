"""``torch.distributions`` for agdebug: Normal, Uniform, Bernoulli, Categorical, Independent,
with ``sample``, ``rsample`` (differentiable, where torch has it), ``log_prob``, ``entropy``
and ``kl_divergence``, validating their arguments as torch does.

>>> import agdebug as ag
>>> from agdebug.distributions import Categorical
>>> logits = ag.zeros(3, requires_grad=True)
>>> policy = Categorical(logits=logits)
>>> policy.log_prob(ag.tensor(1)).backward()
>>> logits.grad
tensor([-0.3333,  0.6667, -0.3333])
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "Normal", "Uniform",
           "constraints", "kl_divergence", "register_kl"]

"""``torch.optim`` for agdebug: SGD and Adam.

>>> import agdebug as ag
>>> net = ag.nn.Linear(2, 1)
>>> opt = ag.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
>>> net(ag.ones(4, 2)).pow(2).mean().backward()
>>> opt.step()
>>> opt.zero_grad()
>>> net.weight.grad is None
True
"""

from __future__ import annotations

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]

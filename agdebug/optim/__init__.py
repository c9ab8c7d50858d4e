"""``torch.optim`` for agdebug: the optimizers and ``lr_scheduler``.

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

from .. import gaps
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam",
           "lr_scheduler", "swa_utils"]


def __getattr__(name: str):
    """A name torch has and agdebug lacks says so (``agdebug.gaps``)."""
    raise gaps.missing("optim", "module 'agdebug.optim'", name)

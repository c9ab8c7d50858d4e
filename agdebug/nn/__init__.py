"""``torch.nn`` for agdebug: Module, Parameter, layers, losses, ``functional``, ``init``
and ``utils``.

>>> import agdebug as ag
>>> net = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.Tanh(), ag.nn.Linear(3, 1))
>>> sum(p.numel() for p in net.parameters())
13
"""

from __future__ import annotations

from .. import gaps
from . import functional, init, modules, parallel, utils
from .modules import *  # noqa: F403 - every layer, as torch.nn re-exports torch.nn.modules
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [*modules.__all__, "Buffer", "DataParallel", "Parameter", "UninitializedBuffer",
           "UninitializedParameter", "functional", "init", "parallel", "utils"]


def __getattr__(name: str):
    """A name torch has and agdebug lacks says so (``agdebug.gaps``)."""
    raise gaps.missing("nn", "module 'agdebug.nn'", name)

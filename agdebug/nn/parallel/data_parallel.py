"""``DataParallel``: on one device, a pass-through to the module it wraps."""

from __future__ import annotations

from ..modules.module import Module


class DataParallel(Module):
    """Runs ``module`` on the batch as it is, as torch's DataParallel does where there is no
    GPU to split it over: its parameters are the module's (``module.`` in the state dict).

    >>> import agdebug as ag
    >>> net = ag.nn.DataParallel(ag.nn.Linear(2, 3))
    >>> list(net.state_dict())
    ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(*inputs, **module_kwargs)``: there is one device to run it on."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*inputs, **(module_kwargs or {}))

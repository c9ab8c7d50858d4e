"""``LazyModuleMixin``: a module whose parameters get their shapes from its first input.

Its uninitialized parameters and buffers are materialised by a forward pre-hook (or by
``load_state_dict`` from initialized tensors), initialised as the module's non-lazy class
would be (the same random draws), and the module then becomes that class (``cls_to_become``).
"""

from __future__ import annotations

import itertools

from ...graph.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """torch's mixin: put it before the module class, set ``cls_to_become`` and write
    ``initialize_parameters(*args, **kwargs)``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized tensor is saved as it is (it has no data to detach)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialise each uninitialized tensor that the state dict has initialized."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and \
                    not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise and initialise the parameters from the first input."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer is still uninitialized."""
        tensors = itertools.chain(self._parameters.values(), self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise, drop both hooks, become ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")

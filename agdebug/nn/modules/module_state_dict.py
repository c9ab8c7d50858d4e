"""``Module``'s state dict: ``state_dict``, ``load_state_dict`` and their hooks, as torch's.

``state_dict`` walks the module tree (``_save_to_state_dict`` per module) and records each
module's ``_version`` in ``destination._metadata``; ``load_state_dict`` walks it again
(``_load_from_state_dict`` per module, the override point torch's own modules use) and
collects missing keys, unexpected keys and error messages before raising once.

>>> import agdebug as ag
>>> net = ag.nn.Sequential(ag.nn.Linear(2, 2))
>>> sd = net.state_dict()
>>> list(sd), dict(sd._metadata)
(['0.weight', '0.bias'], {'': {'version': 1}, '0': {'version': 1}})
>>> net.load_state_dict(sd)
<All keys matched successfully>
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ...graph.grad_mode import no_grad
from ...tensor import Tensor
from .module_hooks import RemovableHandle, add_module_hook
from ..parameter import Parameter, is_lazy

__all__ = ["StateDictMixin"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
_POSITIONAL = ("Positional args are being deprecated, use kwargs instead. Refer to "
               "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
               "#torch.nn.Module.state_dict for details.")
_NEVER_CALLED = ("Reached a code path in Module.{}() that should never be called. Please file an "
                 "issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                 "to report this bug.")
_POST_HOOK_RETURNED = (
    "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return "
    "new values, if incompatible_keys need to be modified, it should be done inplace.")


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _WrappedHook:
    """A load pre-hook, given its module (held weakly) as first argument if ``module``."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if not self.with_module:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class StateDictMixin:
    """The state-dict half of ``Module`` (its hook tables are made by ``Module.__init__``)."""

    _version: int = 1   # saved as ``state_dict._metadata[prefix]["version"]``

    # -- hooks ------------------------------------------------------------------------------------

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; a
        returned dict replaces the result (honoured for the root module only)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return add_module_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module's
        entries are in ``state_dict`` (it may edit it in place; it must return None).

        >>> import agdebug as ag
        >>> m = ag.nn.Linear(2, 2)
        >>> h = m.register_state_dict_post_hook(lambda mod, sd, p, md: sd.__delitem__(p + "bias"))
        >>> list(m.state_dict())
        ['weight']
        """
        hook._from_public_api = True   # tells state_dict to refuse a returned value
        return add_module_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before this module's ``state_dict``."""
        return add_module_hook(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """Run ``hook([module,] state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries."""
        return add_module_hook(self._load_state_dict_pre_hooks,
                               _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries (it may rename
        keys of ``state_dict``: a copy)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` once this module and its children are
        loaded; clearing ``incompatible_keys``' lists in place avoids the strict error.

        >>> import agdebug as ag
        >>> m = ag.nn.Linear(2, 2)
        >>> h = m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
        >>> m.load_state_dict({})
        <All keys matched successfully>
        """
        return add_module_hook(self._load_state_dict_post_hooks, hook)

    # -- extra state ----------------------------------------------------------------------------

    def get_extra_state(self):
        """Non-tensor state saved under ``<prefix>_extra_state`` (define it to use it)."""
        raise RuntimeError(_NEVER_CALLED.format("get_extra_state"))

    def set_extra_state(self, state) -> None:
        """Restore what ``get_extra_state`` returned (define both to use them)."""
        raise RuntimeError(_NEVER_CALLED.format("set_extra_state"))

    def _has_own(self, method: str) -> bool:
        own = getattr(type(self), method, None)
        return own is not getattr(StateDictMixin, method)

    # -- saving ---------------------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Put this module's parameters and persistent buffers (not its children's) in
        ``destination``."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_own("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name, detached unless ``keep_vars``
        (they share storage); ``_metadata`` holds each module's version.

        >>> import agdebug as ag
        >>> list(ag.nn.BatchNorm1d(2).state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        """
        if args:
            warnings.warn(_POSITIONAL, FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():   # a shared child is saved under each name
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return self._run_state_dict_hooks(destination, prefix, local_metadata)

    def _run_state_dict_hooks(self, destination, prefix: str, local_metadata: dict):
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                destination = destination if result is None else result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    # -- loading --------------------------------------------------------------------------------

    def _load_from_state_dict(self, state_dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:
        """Load this module's own parameters and buffers (not its children's) from
        ``state_dict``, adding to ``missing_keys``, ``unexpected_keys`` and ``error_msgs``;
        override it to convert old checkpoints (``local_metadata.get("version")``)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                self._load_one(name, key, param, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_own("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            unexpected_keys.extend(self._unexpected(state_dict, prefix, local_state, extra_key))

    def _unexpected(self, state_dict, prefix: str, local_state: dict, extra_key: str) -> list:
        found = []
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head = key[len(prefix):].split(".", 1)
                known = self._modules if len(head) > 1 else local_state   # dotted: a child's
                if head[0] not in known:
                    found.append(key)
        return found

    def _load_one(self, name: str, key: str, param: Tensor, input_param, assign: bool,
                  error_msgs: list) -> None:
        if not isinstance(input_param, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                              f"or Tensor-like object from checkpoint but received "
                              f"{type(input_param)}")
            return
        if is_lazy(param):   # torch copies nothing into it (the pre-hook shaped the others)
            return
        # torch 0.3 saved scalars as shape (1,): load them into 0-d parameters
        if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
            input_param = input_param[0]
        if input_param.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{input_param.shape} from checkpoint, the shape in current model "
                              f"is {param.shape}.")
            return
        try:
            with no_grad():
                if assign:
                    setattr(self, name, _as_assigned(param, input_param))
                else:
                    param.copy_(input_param)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                              f"the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {input_param.size()}, an exception occurred : "
                              f"{ex.args}.")

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy ``state_dict``'s tensors into the parameters and buffers (``assign``: put the
        tensors themselves in their place); returns the missing and unexpected keys and,
        when ``strict``, raises torch's RuntimeError listing them.

        >>> import agdebug as ag
        >>> ag.nn.Linear(2, 2).load_state_dict({"weight": ag.zeros(2, 2)}, strict=False)
        _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)   # a copy that the pre-hooks may edit
        if metadata is not None:
            state_dict._metadata = metadata
        _load_tree(self, state_dict, "", metadata, assign, (missing_keys, unexpected_keys,
                                                            error_msgs))
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)


def _load_tree(module, local_state_dict, prefix: str, metadata, assign: bool, lists) -> None:
    """``module._load_from_state_dict``, then each child's (with its own keys), then
    ``module``'s load post-hooks: torch's ``load`` closure."""
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, *lists)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state_dict = {k: v for k, v in local_state_dict.items()
                                if k.startswith(child_prefix)}
            _load_tree(child, child_state_dict, child_prefix, metadata, assign, lists)
    incompatible_keys = _IncompatibleKeys(lists[0], lists[1])
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible_keys) is not None:
            raise AssertionError(_POST_HOOK_RETURNED)


def _as_assigned(param: Tensor, input_param: Tensor) -> Tensor:
    """What ``assign=True`` puts in place: the checkpoint's tensor, a Parameter where the
    module had one, keeping the module's ``requires_grad``."""
    if not isinstance(param, Parameter):
        return input_param
    if not isinstance(input_param, Parameter):
        return Parameter(input_param, requires_grad=param.requires_grad)
    return input_param.requires_grad_(param.requires_grad)

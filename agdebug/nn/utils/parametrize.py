"""``torch.nn.utils.parametrize``: a module's tensor computed from other tensors on each access.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that
returns ``p(original)``. As in torch, the property lives on a class made for that one module
(``ParametrizedLinear``), so other instances are untouched, and the state_dict keys are
torch's (``parametrizations.weight.original``).

>>> import agdebug as ag
>>> from agdebug.nn.utils import parametrize
>>> class Symmetric(ag.nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).mT
>>> m = parametrize.register_parametrization(ag.nn.Linear(3, 3), "weight", Symmetric())
>>> type(m).__name__, bool((m.weight == m.weight.T).all())
('ParametrizedLinear', True)
"""

from __future__ import annotations

import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ...graph.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

# torch's module-level cache: a count of open ``cached()`` blocks and the tensors they keep.
_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Within this block each parametrized tensor is computed once, on first access.

    >>> import agdebug as ag
    >>> from agdebug.nn.utils import parametrize
    >>> m = parametrize.register_parametrization(ag.nn.Linear(2, 2), "weight", ag.nn.Tanh())
    >>> with parametrize.cached():
    ...     m.weight is m.weight
    True
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, X: Tensor) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """torch's ``dest.set_(src)``: ``dest`` (the same object) now holds ``src``'s data."""
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and the unparametrized tensor(s) they start from:
    ``original``, or ``original0``, ``original1``... where ``right_inverse`` returns several."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._register_one(original, new)
        else:
            self._register_many(original, new)
        if not self.unsafe:
            _check_unchanged(self(), original_dtype, original_shape)

    def _register_one(self, original: Tensor, new: Tensor) -> None:
        for what in ("dtype", "device"):
            if getattr(original, what) != getattr(new, what):
                raise ValueError(
                    f"When `right_inverse` outputs one tensor, it may not change the {what}.\n"
                    f"original.{what}: {getattr(original, what)}\n"
                    f"right_inverse(original).{what}: {getattr(new, what)}")
        with no_grad():
            _maybe_set(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _register_many(self, original: Tensor, new) -> None:
        for i, originali in enumerate(new):
            if not isinstance(originali, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 f"(list, tuple...). Got element {i} of the sequence with type "
                                 f"{type(originali).__name__}.")
            if isinstance(original, Parameter):
                originali = Parameter(originali, original.requires_grad)
            originali.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", originali)

    def right_inverse(self, value: Tensor) -> None:
        """Set the original tensor(s) so the parametrized tensor becomes ``value`` (each
        parametrization's ``right_inverse``, last first), under ``no_grad``."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                self._set_one(value)
            else:
                self._set_many(value)

    def _set_one(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                             f"while `original` has dtype {self.original.dtype}")
        _maybe_set(self.original, value)

    def _set_many(self, value) -> None:
        if not isinstance(value, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a sequence of tensors. "
                             f"Got {type(value).__name__}.")
        if len(value) != self.ntensors:
            raise ValueError("'right_inverse' must return a sequence of tensors of length "
                             f"{self.ntensors}. Got a sequence of length {len(value)}.")
        for i, tensor in enumerate(value):
            original_i = getattr(self, f"original{i}")
            if not isinstance(tensor, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors or "
                                 f"reference-type opaques. Got element {i} of type "
                                 f"{type(tensor).__name__}.")
            if original_i.dtype != tensor.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                 f"{tensor.dtype} while `original{i}` has dtype "
                                 f"{original_i.dtype}")
            _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        index = 1
        while hasattr(self, str(index)):
            x = self[index](x)
            index += 1
        return x


def _check_unchanged(Z, dtype, shape) -> None:
    """A safe parametrization returns a tensor of the original's dtype and shape."""
    if not isinstance(Z, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
    if Z.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless `unsafe` flag is enabled.\n"
                         f"unparametrized dtype: {dtype}\nparametrized dtype: {Z.dtype}")
    if Z.shape != shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless `unsafe` flag is enabled.\n"
                         f"unparametrized shape: {shape}\nparametrized shape: {Z.shape}")


def _default_deepcopy(self, memo):
    obj = memo.get(id(self), None)
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own (``Parametrized<Name>``) to hold the properties."""
    cls = module.__class__
    dct = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    """``module.<tensor_name>``: the parametrization's output on read, its right inverse
    on assignment."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on the original tensor
    (kept as ``module.parametrizations.<tensor_name>.original``); a second registration on
    the same name chains after the first.

    ``unsafe=True`` lets the parametrization change the tensor's shape or dtype.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_appended(module: Module, name: str, parametrization: Module) -> None:
    """torch's checks on a parametrization chained after others: dtype and shape kept, by
    the parametrization and by its right inverse."""
    Y = getattr(module, name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    for what in ("dtype", "shape"):
        if getattr(X, what) != getattr(Y, what):
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, "
                "unless the `unsafe` flag is enabled.\n"
                f"module.{name}.{what}: {getattr(Y, what)}\n"
                f"parametrization(module.{name}).{what}: {getattr(X, what)}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(Z).__name__}")
    for what in ("dtype", "shape"):
        if getattr(Z, what) != getattr(Y, what):
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same "
                f"{what} as module.{name}, unless the `unsafe` flag is enabled.\n"
                f"module.{name}.{what}: {getattr(Y, what)}\n"
                f"returned {what}: {getattr(Z, what)}")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo ``register_parametrization``: ``module.<tensor_name>`` becomes a plain parameter
    (or buffer) again, holding the parametrized value (``leave_parametrized=True``) or the
    original one. The module gets its own class back once nothing is parametrized.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _maybe_set(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before it was parametrized (its own class otherwise)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations (of ``tensor_name``, or all) on
    ``to_module`` too, sharing the original tensors."""
    if not is_parametrized(from_module):
        return to_module
    names = from_module.parametrizations if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
            continue
        num = 0
        while hasattr(source, f"original{num}"):
            setattr(target, f"original{num}", getattr(source, f"original{num}"))
            num += 1
    return to_module

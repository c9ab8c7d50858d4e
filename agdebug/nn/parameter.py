"""``Parameter``: a tensor that a Module registers as one of its learnable weights."""

from __future__ import annotations

from .. import creation
from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and is collected by ``Module.parameters()``.

    It shares storage (and version counter) with the tensor it wraps, as torch's does.

    >>> import agdebug as ag
    >>> ag.nn.Parameter(ag.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__}")
        p = cls._wrap(data._data, None, 0, data._version_counter())
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach().numpy().copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        copied = Parameter(Tensor._wrap(self._data.copy()), self._requires_grad)
        memo[id(self)] = copied
        return copied


def _rebuild_parameter(array, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._wrap(array), requires_grad)

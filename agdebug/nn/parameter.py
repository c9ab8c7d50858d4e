"""``Parameter``: a tensor that a Module registers as one of its learnable weights;
``Buffer``: one it registers as state (``running_mean``) when assigned as an attribute."""

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


class Buffer(Tensor):
    """A tensor that a Module registers as a buffer when it is assigned as an attribute
    (``persistent=False``: left out of ``state_dict``).

    torch's returns a plain ``torch.Tensor`` carrying ``persistent`` and ``_is_buffer`` in its
    ``__dict__`` (``isinstance(t, Buffer)`` reads that flag). agdebug's Tensor has slots and no
    ``__dict__``, so a Buffer is an instance of this subclass (which has one): the same
    attributes, ``isinstance`` and registration; only ``type(b)`` is ``Buffer``, not ``Tensor``.
    It shares storage and version counter with ``data``, keeping its ``requires_grad``.

    >>> import agdebug as ag
    >>> m = ag.nn.Module()
    >>> m.stats = ag.nn.Buffer(ag.zeros(2), persistent=False)
    >>> [name for name, _ in m.named_buffers()], list(m.state_dict())
    (['stats'], [])
    """

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = creation.empty(0)
        b = cls._wrap(data._data, None, 0, data._version_counter())
        b._inference = data._inference
        b.requires_grad_(data.requires_grad)
        b.persistent = persistent
        b._is_buffer = True
        return b

    def __reduce_ex__(self, protocol):
        _, args = super().__reduce_ex__(protocol)
        return (_rebuild_buffer, (*args, self.__dict__.copy()))

    def __deepcopy__(self, memo):
        tensor = super().__deepcopy__(memo)
        copied = memo[id(self)] = Buffer(tensor)
        copied._grad = tensor._grad
        copied.__dict__.update(self.__dict__)
        return copied


def _rebuild_buffer(array, requires_grad: bool, attributes: dict) -> Buffer:
    b = Buffer(Tensor._wrap(array).requires_grad_(requires_grad))
    b.__dict__.update(attributes)
    return b

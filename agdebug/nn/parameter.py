"""``Parameter``: a tensor that a Module registers as one of its learnable weights;
``Buffer``: one it registers as state (``running_mean``) when assigned as an attribute;
``UninitializedParameter`` / ``UninitializedBuffer``: a lazy module's, shaped on first use."""

from __future__ import annotations

import copy

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


class _BufferMeta(type):
    """torch's: a tensor flagged ``_is_buffer`` (a materialised UninitializedBuffer) is a
    Buffer to isinstance."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and \
                getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
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


# ----------------------------------------------------------------------------- uninitialized

_DATA = Tensor._data   # the slot: the uninitialized classes hide it behind a refusing property
_ALLOWED = ("size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
            "char", "short", "int", "long", "cuda", "cpu", "to", "get_device")


def _refusal(cls) -> ValueError:
    return ValueError(
        "Attempted to use an uninitialized parameter in an agdebug operation. This error "
        "happens when you are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling torch functions")


_QUERIES = ("size", "copy_", "is_complex", "is_floating_point", "get_device")


def _allowed(name: str):
    """``name`` run on a plain leaf of the (empty) data: torch lets these through. A cast or a
    move of a buffer is an uninitialized buffer again; a parameter's is a plain tensor (its
    class, a Parameter, turns torch's subclass results off)."""
    def method(self, *args, **kwargs):
        plain = Tensor._wrap(_DATA.__get__(self))
        plain._requires_grad = self._requires_grad
        result = getattr(plain, name)(*args, **kwargs)
        if name in _QUERIES or isinstance(self, Parameter):
            return result
        moved = copy.copy(self)
        _DATA.__set__(moved, result._data)
        return moved
    method.__name__ = method.__qualname__ = name
    return method


class UninitializedTensorMixin:
    """What the uninitialized parameter and buffer share: empty data that every operation but
    torch's few (``size``, ``to``, the casts...) refuses, until ``materialize(shape)`` gives
    it a shape and makes it a ``cls_to_become``.

    torch refuses in ``__torch_function__`` and names the function; agdebug has none, so the
    refusal is in the data's accessor and names no function."""

    cls_to_become = None

    @property
    def _data(self):
        raise _refusal(type(self))

    @_data.setter
    def _data(self, value) -> None:
        _DATA.__set__(self, value)

    @property
    def data(self) -> Tensor:
        return Tensor._wrap(_DATA.__get__(self))

    @data.setter
    def data(self, value: Tensor) -> None:   # (Module._apply sets it to a cast of itself)
        _DATA.__set__(self, _DATA.__get__(value) if is_lazy(value) else value._data)

    @property
    def dtype(self):
        return Tensor._wrap(_DATA.__get__(self)).dtype

    @property
    def device(self):
        return Tensor._wrap(_DATA.__get__(self)).device

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give it empty data of ``shape`` and become ``cls_to_become`` (same object)."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        _DATA.__set__(self, creation.empty(shape, device=device, dtype=dtype)._data)
        self.__class__ = self.cls_to_become

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]

    locals().update({name: _allowed(name) for name in _ALLOWED})


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of no shape yet, which a lazy module materialises on its first forward.

    >>> import agdebug as ag
    >>> p = ag.nn.UninitializedParameter()
    >>> p, p.requires_grad
    (<UninitializedParameter>, True)
    >>> p.materialize((2, 3))
    >>> type(p).__name__, tuple(p.shape)
    ('Parameter', (2, 3))
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        p = cls._wrap(creation.empty(0, device=device, dtype=dtype)._data)
        p._requires_grad = bool(requires_grad)   # (a leaf's flag; requires_grad_ is refused)
        return p


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of no shape yet, which a lazy module materialises on its first forward; a
    ``Buffer`` to isinstance (it is flagged ``_is_buffer``), not a subclass, as torch's.

    torch's becomes a plain Tensor that keeps ``persistent`` and ``_is_buffer``; agdebug's
    Tensor has no ``__dict__`` to keep them in, so it becomes a :class:`Buffer`.
    """

    cls_to_become = Buffer

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        b = cls._wrap(creation.empty(0, device=device, dtype=dtype)._data)
        b._requires_grad = bool(requires_grad)
        b.persistent, b._is_buffer = persistent, True
        return b

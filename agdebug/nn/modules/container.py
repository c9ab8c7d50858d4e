"""``ModuleDict``, ``ParameterList`` and ``ParameterDict``: registered collections.

Their entries are registered under their index or key, so ``parameters()`` finds them and
``state_dict()`` names them as torch does (``plist.0``, ``pdict.key``, ``mdict.key.weight``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from ...tensor import Tensor
from .module import Module
from ..parameter import Parameter

__all__ = ["ModuleDict", "ParameterList", "ParameterDict"]


def _pairs(values, kind: str, sort_plain_dicts: bool = False):
    """(key, value) pairs from a mapping or an iterable of pairs. torch's ParameterDict sorts
    a plain dict's items (ModuleDict keeps their order)."""
    if isinstance(values, (OrderedDict, ModuleDict, ParameterDict)):
        return list(values.items())
    if isinstance(values, Mapping):
        return sorted(values.items()) if sort_plain_dicts else list(values.items())
    pairs = []
    for j, entry in enumerate(values):
        if not hasattr(entry, "__len__") or isinstance(entry, (str, Tensor)):
            raise TypeError(f"{kind}.update expects an iterable of key/value pairs, but element "
                            f"#{j} is {type(entry).__name__}")
        if len(entry) != 2:
            raise ValueError(f"{kind}.update expects an iterable of key/value pairs, but element "
                             f"#{j} has length {len(entry)}; 2 is required")
        pairs.append(tuple(entry))
    return pairs


class ModuleDict(Module):
    """Submodules by name, registered in insertion order.

    >>> import agdebug as ag
    >>> heads = ag.nn.ModuleDict({"cls": ag.nn.Linear(4, 3), "box": ag.nn.Linear(4, 2)})
    >>> list(heads.keys()), [name for name, _ in heads.named_parameters()][:2]
    (['cls', 'box'], ['cls.weight', 'cls.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Add (or replace) entries from a mapping or an iterable of (key, module) pairs."""
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module


class ParameterList(Module):
    """Parameters by position; a plain tensor is wrapped in a ``Parameter`` as torch does.

    >>> import agdebug as ag
    >>> plist = ag.nn.ParameterList([ag.ones(2), ag.nn.Parameter(ag.zeros(3))])
    >>> [name for name, _ in plist.named_parameters()], type(plist[0]).__name__
    (['0', '1'], 'Parameter')
    """

    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _index(self, idx: int) -> str:
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param) -> None:
        key = self._index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        """Add ``value`` at the end (a tensor becomes a ``Parameter``)."""
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): " + _describe(p, str(p.dtype) if isinstance(p, Tensor)
                                                   else "") for k, p in enumerate(self))


class ParameterDict(Module):
    """Parameters by name; a plain tensor is wrapped in a ``Parameter`` as torch does.

    >>> import agdebug as ag
    >>> pdict = ag.nn.ParameterDict({"scale": ag.ones(2)})
    >>> [name for name, _ in pdict.named_parameters()]
    ['scale']
    """

    def __init__(self, parameters=None):
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self))
        return key, self.pop(key)

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        """Add (or replace) entries from a mapping or an iterable of (key, value) pairs."""
        for key, value in _pairs(parameters, "ParametersDict", sort_plain_dicts=True):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): " + _describe(p, p.type() if isinstance(p, Tensor) else "")
                         for k, p in self.items())


def _describe(value, type_text: str) -> str:
    """torch's one-line description of a container entry."""
    if not isinstance(value, Tensor):
        return "Object of type: " + type(value).__name__
    size = "x".join(str(s) for s in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{type_text} of size {size}{device}]"

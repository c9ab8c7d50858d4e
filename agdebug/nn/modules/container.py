"""``ModuleDict``, ``ParameterList`` and ``ParameterDict``: registered collections.

Their entries are registered under their index or key, so ``parameters()`` finds them and
``state_dict()`` names them as torch does (``plist.0``, ``pdict.key``, ``mdict.key.weight``).
"""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Mapping

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


class Container(Module):
    """torch's deprecated container: the keyword modules as submodules (a FutureWarning)."""

    def __init__(self, **kwargs) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class _NumberedModules(Module):
    """What Sequential and ModuleList share: submodules named 0, 1, 2... that are set and
    deleted by position (deleting renumbers the rest, as torch does)."""

    def __setitem__(self, idx: int, module) -> None:
        setattr(self, _key_at(self._modules, idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else \
            [_key_at(self._modules, idx)]
        for key in keys:
            delattr(self, key)
        _renumber(self._modules)


class Sequential(_NumberedModules):
    """Modules applied in order; indexed, sliced, edited and combined as a list.

    >>> import agdebug as ag
    >>> net = ag.nn.Sequential(ag.nn.Linear(2, 4), ag.nn.ReLU(), ag.nn.Linear(4, 1))
    >>> len(net), tuple(net(ag.ones(3, 2)).shape)
    (3, (3, 1))
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[_key_at(self._modules, idx)]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __add__(self, other):
        _check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        _check_sequential(other)
        return self.extend(other)

    def __mul__(self, other: int):
        _check_factor(self, other)
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def __imul__(self, other: int):
        _check_factor(self, other)
        return self.extend(list(self) * (other - 1))

    def append(self, module):
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module):
        """Put ``module`` before position ``index`` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        _insert(self._modules, index + n if index < 0 else index, module)
        return self

    def extend(self, sequential):
        """Append each module of ``sequential`` (any iterable of modules)."""
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key):
        """Remove the module (or the Sequential of a slice) at ``key`` and return it."""
        value = self[key]
        del self[key]
        return value

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


def _key_at(modules: dict, idx) -> str:
    """The key of the entry at position ``idx`` (negative counts from the end)."""
    idx = operator.index(idx)
    if not -len(modules) <= idx < len(modules):
        raise IndexError(f"index {idx} is out of range")
    return list(modules)[idx]


def _renumber(modules: dict) -> None:
    """Keys back to 0, 1, 2... after a deletion, as torch renumbers them (names are lost)."""
    values = list(modules.values())
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(values))


def _insert(modules: dict, index: int, module) -> None:
    """torch's insert: entries from ``index`` move up one number, keys included."""
    for i in range(len(modules), index, -1):
        modules[str(i)] = modules[str(i - 1)]
    modules[str(index)] = module


def _check_sequential(other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but "
                         f"{type(other)} is given.")


def _check_factor(seq, other) -> None:
    if not isinstance(other, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(other)}")
    if other <= 0:
        raise ValueError(f"Non-positive multiplication factor {other} for {type(seq)}")


class ModuleList(_NumberedModules):
    """A list of modules, registered so their parameters are found.

    >>> import agdebug as ag
    >>> layers = ag.nn.ModuleList([ag.nn.Linear(2, 2) for _ in range(3)])
    >>> del layers[0]
    >>> len(layers), [name for name, _ in layers.named_parameters()][:2]
    (2, ['0.weight', '0.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[_key_at(self._modules, idx)]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def __repr__(self) -> str:
        """torch's: a run of equal entries is shown once, as ``(i-j): n x <module>``; a
        subclass shows its own name."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i == len(reprs) or reprs[i] != reprs[start]:
                label = f"({start})" if i - 1 == start else \
                    f"({start}-{i - 1}): {i - start} x"
                lines.append(f"{label}{':' if i - 1 == start else ''} "
                             + reprs[start].replace("\n", "\n  "))
                start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def append(self, module):
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module) -> None:
        """Put ``module`` before position ``index``."""
        _insert(self._modules, index, module)

    def extend(self, modules):
        """Append each module of an iterable."""
        if not hasattr(modules, "__iter__"):   # collections.abc.Iterable's own test
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        for module in list(modules):
            self.append(module)
        return self

    def pop(self, key):
        """Remove the module (or the ModuleList of a slice) at ``key`` and return it."""
        value = self[key]
        del self[key]
        return value


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

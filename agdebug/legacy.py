"""torch's legacy tensor types: ``torch.Tensor(2, 3)``, ``torch.FloatTensor([1, 2])``,
``torch.LongTensor(3)``, and ``isinstance(t, torch.FloatTensor)``, still common in tutorials.

Their constructor reads its arguments as torch's ``new()`` does: ints (or one ``Size``) are
the sizes of a new tensor, one sequence or array is data, one tensor is returned as an alias.

>>> import agdebug as ag
>>> ag.Tensor(2, 3).shape, ag.LongTensor([1.7, 2]).tolist(), ag.Tensor((2, 3)).tolist()
(torch.Size([2, 3]), [1, 2], [2.0, 3.0])
>>> isinstance(ag.ones(2), ag.FloatTensor), isinstance(ag.ones(2), ag.LongTensor)
(True, False)
"""

from __future__ import annotations

import warnings

import numpy as np

from . import backend, creation
from .ops.core.arguments import warning_level
from .backend import cpp_name
from .tensor import Size, Tensor

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
           "HalfTensor", "IntTensor", "LongTensor", "ShortTensor", "torch_range"]


def new(dtype, args: tuple, device=None) -> Tensor:
    """What ``torch.<Type>Tensor(*args)`` makes; ``dtype`` None is ``torch.Tensor``'s."""
    made = dtype or backend.DEFAULT_FLOAT
    if not args:
        return creation.empty(0, dtype=made, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return _alias(args[0], dtype)
    if len(args) == 1 and isinstance(args[0], Size) or all(_is_int(a) for a in args):
        sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
        return creation.empty(sizes, dtype=made, device=device)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        return creation.tensor(args[0], dtype=made, device=device)
    if len(args) == 1:
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got})")


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _alias(t: Tensor, dtype) -> Tensor:
    """``torch.FloatTensor(t)``: ``t`` itself under a new name (an AliasBackward0 view)."""
    if dtype is not None and t.dtype is not dtype:
        raise TypeError(f"expected {_options(dtype)} (got {_options(t.dtype)})")
    from .ops.indexing.subscript import alias
    return alias(t)


def _options(dtype) -> str:
    return (f"TensorOptions(dtype={cpp_name(dtype.np)}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


class _LegacyType(type):
    """The metaclass of ``FloatTensor`` & co.: calling one makes a tensor of its dtype, and a
    CPU tensor of that dtype is an instance of it."""

    def __call__(cls, *args, device=None):
        return new(cls.dtype, args, device)

    def __instancecheck__(cls, instance) -> bool:
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and instance.device.type == "cpu")

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_type(dtype) -> _LegacyType:
    name = f"{dtype._legacy}Tensor"
    return _LegacyType(name, (), {"dtype": dtype, "__doc__": f"torch.{name}: {dtype} tensors."})


FloatTensor = _legacy_type(backend.float32)
DoubleTensor = _legacy_type(backend.float64)
HalfTensor = _legacy_type(backend.float16)
LongTensor = _legacy_type(backend.int64)
IntTensor = _legacy_type(backend.int32)
ShortTensor = _legacy_type(backend.int16)
CharTensor = _legacy_type(backend.int8)
ByteTensor = _legacy_type(backend.uint8)
BoolTensor = _legacy_type(backend.bool_)


RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its "
                 "behavior is inconsistent with Python's range builtin. Instead, use "
                 "torch.arange, which produces values in [start, end).")


def torch_range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
                out=None) -> Tensor:
    """``torch.range`` (named so here: it would shadow Python's ``range``), deprecated:
    ``start, start + step, ...`` up to ``end`` *included*, of the default float dtype unless
    ``dtype`` says otherwise (use :func:`arange`).

    >>> import warnings, agdebug as ag
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ag.range(0, 2)
    tensor([0., 1., 2.])
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(RANGE_WARNING, UserWarning, stacklevel=warning_level(2))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(np.isfinite(float(v)) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = int(np.floor((end - start) / step)) + 1   # torch's count: ``end`` included
    array = start + np.arange(size, dtype=np.float64) * step   # in double, as torch's kernel
    dtype = backend.DEFAULT_FLOAT if dtype is None else dtype
    return creation._finish(array, dtype, device, requires_grad)

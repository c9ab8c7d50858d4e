"""``Tensor.to``, ``.cuda()``, ``.cpu()`` and the dtype shorthands (``.double()``...)."""

from __future__ import annotations

from ... import backend
from ...tensor import Tensor
from ..pointwise import copying

_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")


def to(self: Tensor, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None) -> Tensor:
    """A copy with another dtype and/or device, or ``self`` when nothing changes.

    Every spelling of torch's three overloads works: ``x.to(torch.float64)``,
    ``x.to("cuda")``, ``x.to("cpu", torch.float16)``, ``x.to(other)``, ``x.to(device=...,
    dtype=..., copy=True)``. A change records one ``ToCopyBackward0`` node.

    >>> import agdebug as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> x.to("cpu") is x, x.to(ag.float64).grad_fn.name()
    (True, 'ToCopyBackward0')
    """
    dtype, device, copy = _parse(args, dtype, device, non_blocking, copy)
    target = self.device if device is None else backend.as_device(device)
    np_dtype = None if dtype is None else backend.to_numpy_dtype(dtype)
    same_dtype = np_dtype is None or np_dtype == self._data.dtype
    if not same_dtype and np_dtype.kind not in "fc" and self.requires_grad:
        # An integer or bool copy is not differentiable: no grad_fn, as in torch.
        return to(self.detach(), target, backend.get_dtype(np_dtype), copy=copy)
    if target == self.device:
        if same_dtype and not copy:
            return self
        if not copy:
            return copying.to_dtype(self, dtype=np_dtype)
    from .device import to_device
    return to_device(self, target, None if same_dtype else np_dtype)


def _parse(args: tuple, dtype, device, non_blocking, copy) -> tuple:
    """torch's overloads of ``to``: (device, dtype, ...), (dtype, ...), (tensor, ...)."""
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dtype, device = other.dtype, other.device
    elif rest and backend.as_dtype(rest[0]) is not None:
        dtype = backend.as_dtype(rest.pop(0))
    elif rest and _is_device(rest[0]):
        device = rest.pop(0)
        if rest and backend.as_dtype(rest[0]) is not None:
            dtype = backend.as_dtype(rest.pop(0))
    flags = [non_blocking, copy]
    if len(rest) > 2 or not all(isinstance(a, bool) for a in rest):
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n{_TO_SIGNATURES}")
    flags[:len(rest)] = rest
    return dtype, device, flags[1]


def _is_device(value) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (str, backend.Device, int))


def cuda(self: Tensor, device=None, non_blocking: bool = False) -> Tensor:
    """A copy on a CUDA device (``cuda:0`` by default); ``self`` if it is already there."""
    return to(self, backend.as_device("cuda" if device is None else device))


def cpu(self: Tensor) -> Tensor:
    """A copy in host memory; ``self`` if it is already there."""
    return to(self, backend.CPU)


def cast(dtype):
    """``x.float()``, ``x.long()``...: ``x.to(dtype)``, its common cases without the parsing
    of ``to``'s overloads (every state tensor of a training loop passes here)."""
    np_dtype = dtype.np

    def method(self: Tensor) -> Tensor:
        if self._data.dtype == np_dtype:
            return self
        if np_dtype.kind in "fc" or not self.requires_grad:
            return copying.to_dtype(self, dtype=np_dtype)
        return to(self, dtype)   # (an integer copy of a tensor that requires grad)
    return method


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return to(self, other.dtype)


METHODS = {"cuda": cuda, "cpu": cpu, "float": cast(backend.float32),
           "double": cast(backend.float64), "half": cast(backend.float16),
           "long": cast(backend.int64), "int": cast(backend.int32), "bool": cast(backend.bool_),
           "type_as": type_as}

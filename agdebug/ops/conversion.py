"""``Tensor.to``: dtype and device changes (the device half lives in the backend)."""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import elementwise as ew


def to(self: Tensor, *args, dtype=None, device=None, non_blocking=False, copy=False):
    """``x.to(torch.float64)``, ``x.to("cuda")``, ``x.to(other)``, ``x.to("cpu", torch.float16)``."""
    for a in args:
        if isinstance(a, backend.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, backend.Device, int)):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    out = self
    if device is not None and backend.as_device(device) != self.device:
        from .device import to_device
        out = to_device(out, backend.as_device(device))
    if dtype is not None and dtype.np != out._data.dtype:
        out = ew.to_dtype(out, dtype=dtype.np)
    if copy and out is self:
        out = ew.clone(self)
    return out


def cuda(self: Tensor, device=None, non_blocking=False) -> Tensor:
    return to(self, backend.as_device("cuda" if device is None else device))


def cpu(self: Tensor) -> Tensor:
    return to(self, backend.CPU)


def cast(dtype):
    def method(self: Tensor) -> Tensor:
        return to(self, dtype)
    return method


METHODS = {"cuda": cuda, "cpu": cpu, "float": cast(backend.float32),
           "double": cast(backend.float64), "half": cast(backend.float16),
           "long": cast(backend.int64), "int": cast(backend.int32), "bool": cast(backend.bool_),
           "type_as": lambda self, other: to(self, other.dtype)}

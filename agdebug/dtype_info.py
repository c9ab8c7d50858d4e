"""``torch.finfo`` and ``torch.iinfo``: the limits of floating and integer dtypes.

>>> import agdebug as ag
>>> ag.finfo(ag.float32).eps
1.1920928955078125e-07
>>> ag.iinfo(ag.uint8).max
255
"""

from __future__ import annotations

import numpy as np

from . import backend

__all__ = ["finfo", "iinfo"]


class finfo:   # noqa: N801 - torch's name
    """The limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):   # noqa: A002 - torch's argument name
        dtype = backend.DEFAULT_FLOAT if type is None else type
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(dtype.np)
        self.bits, self.eps = info.bits, float(info.eps)
        self.resolution = 10.0 ** -info.precision   # torch's (NumPy rounds it to the dtype)
        self.max, self.min = float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.dtype = dtype.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:   # noqa: N801 - torch's name
    """The limits of an integer dtype."""

    def __init__(self, type):   # noqa: A002 - torch's argument name
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        if type.np == np.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min = info.bits, int(info.max), int(info.min)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

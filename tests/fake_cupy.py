"""A CuPy test double on NumPy, so the CUDA code paths run on a machine without a GPU.

What it keeps of CuPy's contract, because agdebug's device routing depends on it:

* ``ndarray`` is its own type (a numpy subclass here) with ``.device.id`` and ``.get()``;
  ``agdebug.backend.is_cpu_array`` tells it from numpy's by exact type;
* new arrays are allocated on the current device (``with cuda.Device(i):``), views keep
  their base's device, and ``copy`` copies onto the current device (CuPy's peer copy);
* mixing a numpy array into a CuPy function or ufunc raises CuPy's ``TypeError``;
* full reductions return 0-d arrays, never numpy scalars;
* ``flags`` has only ``c_contiguous``, ``f_contiguous`` and ``owndata`` (no ``writeable``).

What it cannot catch: ``np.asarray(gpu_array)`` silently works here (real CuPy refuses an
implicit device-to-host copy).

>>> cp = FakeCupy(device_count=2)
>>> x = cp.asarray([1.0, 2.0])
>>> (x * 2).device.id, type(x.get()).__name__
(0, 'ndarray')
"""

from __future__ import annotations

import math
import sys
import types

import numpy as np

# Names whose job is to bring host data onto the device: numpy input is allowed.
_TRANSFERS = {"asarray", "array", "asanyarray", "ascontiguousarray"}


class Device:
    """``cupy.cuda.Device``: an id, and a context manager making it the current device."""

    def __init__(self, device=None):
        self.id = _STATE.current[-1] if device is None else int(device)

    def __enter__(self):
        if not 0 <= self.id < _STATE.device_count:
            raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal ({self.id})")
        _STATE.current.append(self.id)
        return self

    def __exit__(self, *exc) -> None:
        _STATE.current.pop()

    def use(self) -> None:
        _STATE.current[-1] = self.id

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


class _State:
    """The fake driver: device count, the current-device stack, a sync counter."""

    def __init__(self):
        self.device_count = 1
        self.current = [0]
        self.syncs = 0
        self.transfers = 0    # device-to-host reads: each one is a sync on a real GPU


_STATE = _State()


class Flags:
    """``cupy.ndarray.flags``: exactly the three flags CuPy has."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, array: np.ndarray):
        flags = array.view(np.ndarray).flags
        self.c_contiguous = flags.c_contiguous
        self.f_contiguous = flags.f_contiguous
        self.owndata = flags.owndata


class ndarray(np.ndarray):  # CuPy's name, lower case
    """A "GPU" array: numpy memory tagged with the device it lives on."""

    _device_id = 0

    def max(self, *args, **kwargs):
        _refuse_keywords("ndarray.max", kwargs, ("initial", "where"))
        return super().max(*args, **kwargs)

    def min(self, *args, **kwargs):
        _refuse_keywords("ndarray.min", kwargs, ("initial", "where"))
        return super().min(*args, **kwargs)

    def __array_finalize__(self, obj) -> None:
        if isinstance(obj, ndarray) and self.base is not None:
            self._device_id = obj._device_id          # a view: same memory, same device
        else:
            self._device_id = _STATE.current[-1]      # a new allocation: the current device

    @property
    def device(self) -> Device:
        return Device(self._device_id)

    @property
    def flags(self) -> Flags:
        return Flags(self)

    def get(self, stream=None) -> np.ndarray:
        """A host copy (``cupy.ndarray.get``)."""
        _STATE.transfers += 1
        return np.array(self.view(np.ndarray), copy=True)

    def item(self, *args):
        _STATE.transfers += 1
        return self.view(np.ndarray).item(*args)

    def tolist(self):
        _STATE.transfers += 1
        return self.view(np.ndarray).tolist()

    def __float__(self):
        _STATE.transfers += 1
        return float(self.view(np.ndarray))

    def __int__(self):
        _STATE.transfers += 1
        return int(self.view(np.ndarray))

    def __bool__(self):
        _STATE.transfers += 1
        return bool(self.view(np.ndarray))

    def copy(self, order="C") -> ndarray:
        return _wrap(np.ndarray.copy(self.view(np.ndarray), order))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _refuse_host_arrays(ufunc.__name__, inputs)
        out = kwargs.get("out")
        if out is not None:
            _refuse_host_arrays(ufunc.__name__, out)
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*(_unwrap(a) for a in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        _refuse_host_arrays(func.__name__, args, kwargs)
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))


def _unwrap(value):
    """Plain numpy views of fake arrays, inside lists, tuples and dicts too."""
    if isinstance(value, ndarray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return _same_sequence(value, [_unwrap(v) for v in value])
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value):
    """Fake arrays on the current device; numpy scalars become 0-d arrays, as in CuPy."""
    if isinstance(value, ndarray):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value)
        if value.base is not None:
            return value.view(ndarray)      # a view stays a view (``.base`` is set)
        fresh = np.ndarray.__new__(ndarray, value.shape, value.dtype)
        fresh[...] = value                  # a new array owns its memory, as CuPy's do
        return fresh
    if isinstance(value, (list, tuple)):
        return _same_sequence(value, [_wrap(v) for v in value])
    return value


def _same_sequence(like, items: list):
    """A list or tuple of ``like``'s type; a named tuple (``linalg.svd``'s) takes fields."""
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


# Keywords NumPy takes and CuPy does not (CuPy raises TypeError for them).
_MISSING_KEYWORDS = {"count_nonzero": ("keepdims",)}
# Ufuncs whose ``accumulate`` CuPy does not support (it raises NotImplementedError).
_NO_ACCUMULATE = ("maximum", "minimum")


def _refuse_keywords(name: str, kwargs: dict, missing) -> None:
    for key in missing:
        if key in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")


class _NoAccumulate:
    """A ufunc as CuPy has it: called as usual, but with no ``accumulate``."""

    def __init__(self, ufunc):
        self._ufunc = ufunc

    def __call__(self, *args, **kwargs):
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, name: str):
        if name == "accumulate":
            raise NotImplementedError(f"`cupy_{self._ufunc.__name__}.accumulate` is not "
                                      "supported yet")
        return getattr(self._ufunc, name)


def _refuse_host_arrays(name: str, *groups) -> None:
    """CuPy takes its own arrays and Python scalars: a NumPy array is refused, and so is any
    other array-like object (an agdebug Tensor), which NumPy would have converted."""
    for group in groups:
        values = group.values() if isinstance(group, dict) else group
        for v in values:
            if isinstance(v, (list, tuple)):
                _refuse_host_arrays(name, v)
            elif type(v) is np.ndarray or (hasattr(v, "__array__") and
                                           not isinstance(v, (ndarray, np.generic, type))):
                raise TypeError(f"Unsupported type {type(v)} (in cupy.{name})")


def _forward(name: str, fn):
    """A numpy function run the CuPy way: no host arrays in, device arrays out."""
    def function(*args, **kwargs):
        _refuse_keywords(name, kwargs, _MISSING_KEYWORDS.get(name, ()))
        if name not in _TRANSFERS:
            _refuse_host_arrays(name, args, kwargs)
        if name in _TRANSFERS and isinstance(args[0], ndarray):
            # cupy.asarray never moves a device array: it is returned where it is; cupy.array
            # copies it unless told not to (``copy=True`` is its default, as numpy's).
            dtype = kwargs.get("dtype")
            if name == "array" and kwargs.get("copy", True):
                return args[0].astype(dtype or args[0].dtype, copy=True)
            return args[0] if dtype is None or dtype == args[0].dtype else args[0].astype(dtype)
        return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))
    function.__name__ = name
    return function


class FakeCupy(types.ModuleType):
    """The module object installed as ``cupy``: numpy's namespace, the CuPy way."""

    def __init__(self, device_count: int = 1):
        super().__init__("cupy")
        self.__file__ = __file__
        _STATE.device_count = device_count
        _STATE.current[:] = [0]
        _STATE.syncs = _STATE.transfers = 0
        self.ndarray = ndarray
        self.cuda = _cuda_namespace()
        self.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
            as_strided=_as_strided))
        self.state = _STATE

    def __getattr__(self, name: str):
        value = getattr(np, name)   # AttributeError for names numpy lacks, as CuPy would
        if name in _NO_ACCUMULATE:
            return _NoAccumulate(value)
        if isinstance(value, (type, np.ufunc, types.ModuleType)) or not callable(value):
            return value            # dtypes, ufuncs (they keep the subclass), constants
        return _forward(name, value)

    @staticmethod
    def asnumpy(array) -> np.ndarray:
        return array.get() if isinstance(array, ndarray) else np.asarray(array)

    @staticmethod
    def get_array_module(*arrays):
        return sys.modules["cupy"] if any(isinstance(a, ndarray) for a in arrays) else np


def _as_strided(x, shape=None, strides=None):
    """``cupy.lib.stride_tricks.as_strided``: a view of a device array, on its device."""
    _refuse_host_arrays("as_strided", (x,))
    view = np.lib.stride_tricks.as_strided(x.view(np.ndarray), shape, strides).view(ndarray)
    view._device_id = x._device_id
    return view


def _cuda_namespace() -> types.SimpleNamespace:
    stream = types.SimpleNamespace(synchronize=_synchronize)
    runtime = types.SimpleNamespace(getDeviceCount=lambda: _STATE.device_count,
                                    getDevice=lambda: _STATE.current[-1],
                                    getDeviceProperties=_properties)
    return types.SimpleNamespace(Device=Device, runtime=runtime,
                                 get_current_stream=lambda: stream)


def _properties(index: int) -> dict:
    if not 0 <= index < _STATE.device_count:
        raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal ({index})")
    return {"name": b"Fake CUDA Device", "totalGlobalMem": 1 << 30}


def _synchronize() -> None:
    _STATE.syncs += 1


def install(monkeypatch, device_count: int = 1) -> FakeCupy:
    """Make ``cupy`` (and ``cupyx.scipy.special``) the fake for one test; undone after it."""
    from agdebug import backend
    fake = FakeCupy(device_count)
    monkeypatch.setitem(sys.modules, "cupy", fake)
    for name, module in cupyx_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(backend, "_cupy", fake)
    return fake


def _special_function(name: str, scalar):
    vector = np.vectorize(scalar, otypes=[np.float64])

    def function(x):
        _refuse_host_arrays(name, (x,))
        return _wrap(vector(_unwrap(x)).astype(x.dtype))
    return function


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:   # a pole: scipy's gammaln gives inf
        return math.inf


def cupyx_modules() -> dict:
    """``cupyx.scipy.special`` with what agdebug uses on the GPU: erf, erfc, erfinv, gammaln."""
    from agdebug.ops.pointwise.rounding_trig import _erfinv_scalar
    special = types.ModuleType("cupyx.scipy.special")
    for name, scalar in (("erf", math.erf), ("erfc", math.erfc), ("erfinv", _erfinv_scalar),
                         ("gammaln", _lgamma)):
        setattr(special, name, _special_function(name, scalar))
    scipy = types.ModuleType("cupyx.scipy")
    scipy.special = special
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = scipy
    return {"cupyx": cupyx, "cupyx.scipy": scipy, "cupyx.scipy.special": special}

"""Arrays, devices and dtypes: the only module that knows numpy from cupy.

Op code is written once against an array module ``xp`` obtained from
:func:`array_module`; CuPy is imported the first time a CUDA device is used.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "Device", "device", "dtype", "array_module", "as_device", "get_dtype",
    "float16", "float32", "float64", "int32", "int64", "bool_", "result_dtype",
]


class dtype:
    """A tensor element type, e.g. ``agdebug.float32`` (printed as torch prints it)."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "_legacy")

    def __init__(self, name: str, np_dtype, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._legacy = legacy  # "Float" in "torch.FloatTensor"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (get_dtype, (self.np.str,))


float16 = dtype("float16", np.float16, "Half")
float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
int8 = dtype("int8", np.int8, "Char")
uint8 = dtype("uint8", np.uint8, "Byte")
int16 = dtype("int16", np.int16, "Short")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
bool_ = dtype("bool", np.bool_, "Bool")

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64,
                               bool_)}


class MissingDtype(dtype):
    """A torch dtype agdebug has no tensors of (``torch.bfloat16``): a script may name it
    (in a table of choices, say); making a tensor of it is refused in one line."""

    __slots__ = ()

    def __init__(self, name: str, kind: str, itemsize: int, legacy: str):
        self.name, self.itemsize, self._legacy = name, itemsize, legacy
        self.is_floating_point, self.is_complex = kind == "f", kind == "c"
        self.is_signed = True

    @property
    def np(self):
        raise TypeError(f"agdebug has no torch.{self.name} tensors (its tensors hold NumPy's "
                        "real floating, integer and bool types)")


bfloat16 = MissingDtype("bfloat16", "f", 2, "BFloat16")
complex64 = MissingDtype("complex64", "c", 8, "ComplexFloat")
complex128 = MissingDtype("complex128", "c", 16, "ComplexDouble")
# torch.set_default_dtype changes it: read it as ``backend.DEFAULT_FLOAT``, never import its value
DEFAULT_FLOAT = float32


def set_default_float(d: dtype) -> None:
    """Make ``d`` the default float (the checks of torch.set_default_dtype come first)."""
    global DEFAULT_FLOAT
    DEFAULT_FLOAT = d


# ``dtype=float``: Python's types name torch's double, long and bool.
PYTHON_TYPES = {float: float64, int: int64, bool: bool_}


def as_dtype(d):
    """The agdebug dtype ``d`` names (an agdebug dtype, or Python's float, int or bool), or
    None where it names none."""
    if isinstance(d, dtype):
        return d
    return PYTHON_TYPES[d] if d is float or d is int or d is bool else None


# The C++ type names torch's messages give dtypes in some checks (``long int``, ``c10::Half``).
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def cpp_name(np_dtype) -> str:
    """The C++ name of a numpy/cupy dtype as torch's messages print it (``long int``)."""
    name = np.dtype(np_dtype).name
    return _CPP_NAMES.get(name, name)


def dtype_name(np_dtype) -> str:
    """``np_dtype.name`` (``"float32"``) read from agdebug's table, whose names are numpy's:
    numpy formats the name on each call, some 3 us, and random draws ask for it each time."""
    return get_dtype(np_dtype).name


def get_dtype(np_dtype) -> dtype:
    """The agdebug dtype of a numpy/cupy dtype (or anything ``np.dtype`` accepts)."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        found = _BY_NUMPY.get(np.dtype(np_dtype))
        if found is None:
            raise TypeError(f"agdebug does not support arrays of dtype {np.dtype(np_dtype)}")
    return found


def to_numpy_dtype(d) -> np.dtype:
    """The array dtype for ``d``: an agdebug dtype, Python's float/int/bool (torch reads float
    as double, not as the default dtype), or anything ``np.dtype`` accepts."""
    named = as_dtype(d)
    return named.np if named is not None else get_dtype(d).np


# ----------------------------------------------------------------------------- devices

class Device:
    """Where a tensor lives: ``device(type='cpu')`` or ``device(type='cuda', index=0)``.

    Devices are interned, so ``a.device is b.device`` whenever they are equal.
    """

    __slots__ = ("type", "index")

    def __new__(cls, type, index: int | None = None):
        if isinstance(type, Device):
            return type
        return as_device(type if index is None else f"{type}:{index}")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = as_device(other)
        return self is other

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (as_device, (str(self),))


def _intern(kind: str, index: int | None) -> Device:
    found = _DEVICES.get((kind, index))
    if found is None:
        found = object.__new__(Device)
        found.type, found.index = kind, index
        _DEVICES[(kind, index)] = found
    return found


_DEVICES: dict[tuple[str, int | None], Device] = {}
CPU = _intern("cpu", None)


def as_device(spec=None) -> Device:
    """The interned Device for ``"cpu"``, ``"cuda"``, ``"cuda:1"``, an int or a Device."""
    if spec is None:
        return CPU
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        return _intern("cuda", spec)
    if not isinstance(spec, str):
        raise TypeError(f"device() received an invalid combination of arguments - got "
                        f"({type(spec).__name__}), but expected one of:")
    kind, _, index = spec.partition(":")
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of "
                           f"device string: {spec}")
    if kind not in ("cpu", "cuda") or (index and not index.isdigit()):
        # (a type torch knows that agdebug has no backend for: ``mps``, ``xla``...)
        raise RuntimeError(f"Invalid device string: '{spec}'" if kind in ("cpu", "cuda") else
                           f"agdebug has no {kind} backend: only cpu and cuda devices")
    if kind == "cpu":
        return CPU
    return _intern("cuda", int(index) if index else 0)


device = Device  # ``agdebug.device("cuda:0")`` is spelled like torch's

# torch's device types, in the order its device-string error lists them.
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


def allocation_error(error: MemoryError, shape=None, dtype=None) -> RuntimeError:
    """NumPy's MemoryError in the words of torch's CPU allocator: the bytes of the tensor
    asked for (``shape`` and ``dtype``; else those of the array NumPy could not make)."""
    shape = getattr(error, "shape", None) if shape is None else shape
    dtype = getattr(error, "dtype", None) if dtype is None else np.dtype(dtype)
    if shape is None or dtype is None:
        return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: {error}")
    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
    return RuntimeError("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
                        f"can't allocate memory: you tried to allocate {nbytes} bytes. Error "
                        "code 12 (Cannot allocate memory)")


_cupy = None


def cupy_module():
    """Import CuPy on first use, with a clear message where it is missing."""
    global _cupy
    if _cupy is None:
        try:
            import cupy
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise RuntimeError(
                "Found no NVIDIA driver on your system or CuPy is not installed: "
                "CUDA tensors need `pip install agdebug[gpu]` and a CUDA GPU.") from exc
        _cupy = cupy
    return _cupy


def find_cupy():
    """CuPy if it can be imported here, else None (never raises)."""
    try:
        return cupy_module()
    except RuntimeError:
        return None


def array_module(dev: Device):
    """numpy for the CPU, cupy for CUDA devices."""
    if dev.type == "cpu":
        return np
    return cupy_module()


def is_array(value) -> bool:
    """Whether ``value`` is a numpy or CuPy array (a scalar is not)."""
    return isinstance(value, np.ndarray) or (
        _cupy is not None and isinstance(value, _cupy.ndarray))


def is_cpu_array(array) -> bool:
    """Whether ``array`` is host data: a numpy array or scalar, or a Python number."""
    # Exact type first: CuPy's test double in tests/ subclasses numpy's ndarray. numpy 2
    # arrays and scalars have ``.device == "cpu"``; a CuPy array's is a cupy.cuda.Device.
    return type(array) is np.ndarray or isinstance(getattr(array, "device", "cpu"), str)


def xp_of(array):
    """The array module of an existing array."""
    return np if is_cpu_array(array) else cupy_module()


def device_of_array(array) -> Device:
    if is_cpu_array(array):
        return CPU
    return _intern("cuda", int(array.device.id))


def move_array(array, dev: Device):
    """Copy an array to ``dev`` (no copy if it is already there)."""
    if dev.type == "cpu":
        return array if is_cpu_array(array) else array.get()
    on_host = is_cpu_array(array)
    if not on_host and int(array.device.id) == dev.index:
        return array
    cp = cupy_module()
    with cp.cuda.Device(dev.index):
        # cupy.asarray of a GPU array returns it where it is; .copy() copies onto the
        # current device, which is how CuPy moves an array between GPUs.
        return cp.asarray(array) if on_host else array.copy()


# ----------------------------------------------------------------------------- promotion

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def result_dtype(a, b, a_dim: int, b_dim: int) -> np.dtype:
    """torch's type promotion for two operands (arrays or Python scalars).

    Operands rank by priority: dimensioned tensors, then 0-dim tensors, then
    Python scalars (``*_dim`` is -1 for those).  A lower-priority operand only
    lifts the result's *category* (bool < int < float), never its width:
    ``int64 + 2.5`` is float32, ``float32 + float64(0-d)`` is float32.
    """
    da, db = _operand_dtype(a), _operand_dtype(b)
    if da == db:
        return da
    pa, pb = _priority(a_dim), _priority(b_dim)
    if pa == pb:
        return promote_types(da, db)
    hi, (lo, lo_dim) = (da, (db, b_dim)) if pa > pb else (db, (da, a_dim))
    if _CATEGORY[lo.kind] <= _CATEGORY[hi.kind]:
        return hi
    if lo_dim == -1 and lo.kind == "f":
        return DEFAULT_FLOAT.np
    return lo


def promote_types(da: np.dtype, db: np.dtype) -> np.dtype:
    """torch's table: a higher category wins whatever the width (int64 + float32 is float32)."""
    ca, cb = _CATEGORY[da.kind], _CATEGORY[db.kind]
    if ca != cb:
        return da if ca > cb else db
    return np.promote_types(da, db)


def _priority(ndim: int) -> int:
    return 2 if ndim > 0 else (1 if ndim == 0 else 0)


def _operand_dtype(x) -> np.dtype:
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, int):
        return np.dtype(np.int64)
    if isinstance(x, float):
        return np.dtype(np.float64)
    return x.dtype

"""Creation functions: ``tensor``, ``zeros``, ``randn``... with torch's defaults.

Floats default to float32, integers to int64; ``device=`` picks numpy or cupy.
"""

from __future__ import annotations

import operator

import numpy as np

from . import backend
from .backend import as_device, to_numpy_dtype
from .events import WATCH, probe
from .generator import Generator, default_generator
from .graph.grad_mode import MODE
from .ops.core.arguments import check_namespace, warning_level
from .ops.tensor_methods.views import shape_arg
from .tensor import Size, Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "eye", "rand", "randn", "randint", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "manual_seed", "initial_seed",
           "seed", "get_rng_state", "set_rng_state"]

def manual_seed(seed: int) -> Generator:
    """Seed the default generator (``rand``, ``randn``, initialisers, dropout...): the same
    seed draws the same numbers as torch's CPU generator. Returns it, as torch does."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The seed the default generator started from."""
    return default_generator.initial_seed()


def seed() -> int:
    """Reseed the default generator from the system's entropy; returns the seed."""
    return default_generator.seed()


def get_rng_state() -> Tensor:
    """The default generator's state, for ``set_rng_state`` (agdebug's own layout)."""
    return _new(default_generator.get_state())


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(backend.move_array(new_state._data, backend.CPU))


def generator(given: Generator | None = None) -> Generator:
    """The generator a draw uses: the one given (``generator=``), else the default."""
    return default_generator if given is None else given


def _finish(array, dtype, device, requires_grad: bool) -> Tensor:
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    backend.get_dtype(array.dtype)   # refuses dtypes agdebug does not support (complex...)
    dev = as_device(device)
    if dev.type != "cpu":
        array = backend.move_array(array, dev)
    t = _new(array)
    if requires_grad:
        if array.dtype.kind not in "fc":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
        if WATCH.on:   # a new leaf: the probe names it after the user's line
            probe.leaf_made(t)
    return t


def _default_array(data, dtype=None) -> np.ndarray:
    if isinstance(data, Tensor):
        return backend.move_array(data._data, backend.CPU).copy()
    if isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flat(data)):
        data = _nested_values(data)
    from_numpy_data = isinstance(data, (np.ndarray, np.generic))
    if dtype is not None:   # straight to the asked dtype: no float32 round trip
        try:
            with np.errstate(over="ignore", invalid="ignore"):   # torch casts silently
                return np.array(data, dtype=to_numpy_dtype(dtype))
        except OverflowError:   # NumPy 2 refuses an int out of the dtype's range
            return _checked_ints(data, to_numpy_dtype(dtype))
        except (ValueError, TypeError):   # ragged, strings, None: torch's words for it
            return _empty_or_raise(data, to_numpy_dtype(dtype))
    try:
        array = np.array(data)
    except ValueError:   # ragged: torch's words for where it is
        return _empty_or_raise(data, backend.DEFAULT_FLOAT.np)
    if array.dtype.kind in "uO" and not from_numpy_data:   # an int beyond int64 made them
        array = _beyond_longs(data, array)
    if array.dtype.kind in "USO" and not from_numpy_data:
        raise _data_error(data)
    if array.dtype == np.float64 and not from_numpy_data:
        with np.errstate(over="ignore"):   # 1e300 is inf in float32, silently in torch
            array = array.astype(backend.DEFAULT_FLOAT.np)
    elif array.dtype.kind in "iu" and array.dtype != np.int64 and not from_numpy_data:
        array = array.astype(np.int64)
    return array


def _empty_or_raise(data, np_dtype) -> np.ndarray:
    """torch reads the shape from the first elements and reads no element when it holds none:
    ``tensor([[], [1]])`` is an empty (2, 0) tensor. Anything else ragged is refused."""
    shape, first = [], data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        if not first:
            return np.empty(shape, dtype=np_dtype)
        first = first[0]
    raise _data_error(data) from None


def _data_error(data) -> Exception:
    """torch's error for data that is no (rectangular) nested sequence of numbers: its
    shape is read from the first elements, then every sequence is checked against it."""
    if isinstance(data, (str, bytes)):
        return TypeError(f"new(): invalid data type '{type(data).__name__}'")
    shape, first = [], data
    while isinstance(first, (list, tuple)) and first:
        shape.append(len(first))
        first = first[0]
    if isinstance(first, str):
        return ValueError("too many dimensions 'str'")
    if not isinstance(data, (list, tuple)):
        return RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    return _nested_error(data, shape, 0, isinstance(first, float)) or \
        TypeError(f"Could not infer dtype of {type(data).__name__}")


def _nested_error(items, shape: list, dim: int, floating: bool):
    """The first error torch meets walking ``items`` (at ``dim`` of ``shape``), or None."""
    if len(items) != shape[dim]:
        return ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                          f"(got {len(items)})")
    for item in items:
        inner = isinstance(item, (list, tuple))
        if dim + 1 < len(shape):
            found = _nested_error(item, shape, dim + 1, floating) if inner else \
                TypeError("not a sequence")
        elif inner:
            found = TypeError(f"must be real number, not {type(item).__name__}") if floating \
                else TypeError(f"'{type(item).__name__}' object cannot be interpreted as an "
                               "integer")
        elif isinstance(item, (str, bytes)):
            found = TypeError(f"new(): invalid data type '{type(item).__name__}'")
        elif not isinstance(item, (bool, int, float, complex, np.generic, Tensor)):
            found = RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        else:
            found = None
        if found is not None:
            return found
    return None


def _checked_ints(data, np_dtype) -> np.ndarray:
    """Python ints into an integer dtype as torch converts them: out of range is an error,
    except that an unsigned dtype takes negatives down to -max, wrapped (``-1`` is 255)."""
    _check_longs(data)
    info = np.iinfo(np_dtype)
    low = -int(info.max) if info.min == 0 else int(info.min)
    for value in np.array(data, dtype=object).ravel():
        if not low <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without "
                               "overflow")
    return np.array(data, dtype=np.int64).astype(np_dtype)


def _check_longs(data) -> None:
    """torch reads each Python int of integral data as a C ``long long``."""
    for value in _flat(data if isinstance(data, (list, tuple)) else [data]):
        if type(value) is int and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")


def _beyond_longs(data, array: np.ndarray) -> np.ndarray:
    """Data with an int beyond int64: floats if any number is a float (as torch infers
    the dtype first), else torch's overflow error."""
    values = list(_flat(data if isinstance(data, (list, tuple)) else [data]))
    if any(type(v) is float for v in values) and \
            all(type(v) in (bool, int, float) for v in values):
        return np.array(data, dtype=np.float64)
    _check_longs(data)
    return array


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


def _nested_values(data):
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_nested_values(d) for d in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data``.

    >>> import agdebug as ag
    >>> ag.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        import warnings
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning, stacklevel=warning_level(2))
    return _finish(_default_array(data, dtype), dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    if isinstance(data, np.ndarray):
        return _finish(_plain(data), dtype, device, False)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    backend.get_dtype(array.dtype)
    return _new(_plain(array))


def _new(array) -> Tensor:
    t = Tensor._wrap(array)
    t._inference = MODE.inference   # made in inference mode: an inference tensor, as in torch
    return t


def _plain(array: np.ndarray) -> np.ndarray:
    """A NumPy subclass (``np.memmap``, ``np.matrix``) as a plain ndarray over the same memory:
    ops tell host from GPU arrays by exact type, and torch keeps only the memory too."""
    if type(array) is np.ndarray or not backend.is_cpu_array(array):
        return array
    return array.view(np.ndarray)


def _sized(name, fill, size, dtype, device, requires_grad, default=None):
    shape = _size_arg(name, size)
    np_dtype = (to_numpy_dtype(dtype) if dtype is not None else
                default or backend.DEFAULT_FLOAT.np)
    try:
        array = fill(shape, np_dtype)
    except MemoryError as error:
        raise backend.allocation_error(error, shape, np_dtype) from None
    return _finish(array, None, device, requires_grad)


def _size_arg(name: str, size: tuple) -> tuple:
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` as a shape, refused in torch's words."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    elif len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    if all(type(s) is int and s >= 0 for s in size):   # the common case, in one pass
        return tuple(size)
    for i, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
    shape = tuple(operator.index(s) for s in size)
    negative = next((s for s in shape if s < 0), None)
    if negative is not None:
        if name == "zeros":   # (torch's zeros checks in its own words)
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: "
                           f"{list(shape)}")
    return shape


def _is_int(value) -> bool:
    if isinstance(value, float):
        return False
    try:
        operator.index(value)   # ints, NumPy ints, integer 0-d tensors
    except TypeError:
        return False
    return True


def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _sized("zeros", np.zeros, size, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _sized("ones", np.ones, size, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _sized("empty", np.zeros, size, dtype, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    default = (np.dtype(np.bool_) if isinstance(fill_value, bool) else
               np.dtype(np.int64) if isinstance(fill_value, int) else
               backend.DEFAULT_FLOAT.np)
    from .ops.pointwise.promotion import converted  # torch's overflow check of the value

    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _sized("full", lambda s, d: np.full(s, converted(fill_value, d), dtype=d), (size,),
                  dtype, device, requires_grad, default)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    if end is None:
        start, end = 0, start
    integral = all(isinstance(v, int) for v in (start, end, step))
    default = np.dtype(np.int64) if integral else backend.DEFAULT_FLOAT.np
    array = np.arange(start, end, step, dtype=default)
    return _finish(array, dtype, device, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    # computed in float64 and cast once, to the dtype asked for (float64 used to come through
    # float32, 4e-8 off); torch's own kernel may still differ from it in the last bit
    array = np.linspace(start, end, steps, dtype=np.float64)
    dtype = backend.DEFAULT_FLOAT if dtype is None else dtype
    return _finish(array, dtype, device, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(np.eye(n, m, dtype=backend.DEFAULT_FLOAT.np), dtype, device, requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
         pin_memory=False) -> Tensor:
    g = _generator(generator)
    return _sized("rand", lambda s, d: g.uniform(s, backend.dtype_name(d)), size, dtype, device,
                  requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
          pin_memory=False) -> Tensor:
    g = _generator(generator)
    return _sized("randn", lambda s, d: g.normal(s, backend.dtype_name(d)), size, dtype, device,
                  requires_grad)


def randint(*args, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
            pin_memory=False, **bounds) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    low, high, size = _randint_arguments(args, bounds)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    values = _generator(generator).randint(int(low), int(high), shape_arg((size,)))
    return _finish(values, dtype, device, requires_grad)


def _randint_arguments(args: tuple, bounds: dict) -> tuple:
    """(low, high, size) from torch's two signatures, ``(high, size)`` and
    ``(low, high, size)``, positional or by keyword."""
    names = ("low", "high", "size") if len(args) == 3 or "low" in bounds else ("high", "size")
    given = dict(zip(names, args))
    for name, value in bounds.items():
        if name in given or name not in ("low", "high", "size"):
            given = {}   # a repeated or unknown argument: torch's words below
            break
        given[name] = value
    if "high" not in given or "size" not in given:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"randint() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:")
    return given.get("low", 0), given["high"], given["size"]


def _generator(given):
    if given is not None and not isinstance(given, Generator):
        raise TypeError(f"generator must be a torch.Generator, not {type(given).__name__}")
    return generator(given)


def _like(fn, t: Tensor, dtype, device, requires_grad, **kw) -> Tensor:
    return fn(t.shape, dtype=dtype or t.dtype, device=device or t.device,
              requires_grad=requires_grad, **kw)


def zeros_like(t, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(zeros, t, dtype, device, requires_grad)


def ones_like(t, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(ones, t, dtype, device, requires_grad)


def empty_like(t, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(empty, t, dtype, device, requires_grad)


def full_like(t, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device,
                requires_grad=requires_grad)


def rand_like(t, *, dtype=None, device=None, requires_grad=False):
    return _like(rand, t, dtype, device, requires_grad)


def randn_like(t, *, dtype=None, device=None, requires_grad=False):
    return _like(randn, t, dtype, device, requires_grad)


# torch's parser words for a wrong argument (``dtype=3``), worked out only on failure;
# their required arguments are data and sizes, not input tensors
check_namespace(globals(), [n for n in __all__ if n != "manual_seed"], inputs=False)

"""torch-level functions: ``agdebug.exp(x)``, ``agdebug.sum(x, 0)``, ``agdebug.where(...)``."""

from __future__ import annotations

from .ops.pointwise import activations, copying, unary
from .ops.pointwise import arithmetic as ew
from .ops.pointwise import comparison as cmp
from .ops import functions as _module_functions
from .ops import _checked
from .ops.tensor_methods import operators as m, views

__all__ = ["add", "sub", "mul", "div", "pow", "neg", "exp", "expm1", "log", "log2", "log1p",
           "sqrt", "rsqrt", "abs", "sign", "floor", "round", "sin", "cos", "tan", "tanh",
           "sigmoid", "relu", "erf", "clamp", "clip", "maximum", "minimum", "where", "sum",
           "mean", "reciprocal", "square", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
           "logical_or", "logical_not", "isnan", "isinf", "isfinite", "clone", "reshape"]

add, sub, mul, div, pow = m.add, m.sub, m.mul, m.div, m.pow
neg, exp, expm1 = ew.neg, unary.exp, unary.expm1
log, log2, log1p = unary.log, unary.log2, unary.log1p
sqrt, rsqrt, abs, sign, floor = unary.sqrt, unary.rsqrt, unary.abs_, unary.sign, unary.floor
sin, cos, tan, tanh = unary.sin, unary.cos, unary.tan, unary.tanh
sigmoid, relu, erf = unary.sigmoid, activations.relu, activations.erf_op
clamp = clip = m.clamp
maximum, minimum, where, sum, mean = m.maximum, m.minimum, m.where, m.sum, m.mean
reciprocal = ew.reciprocal
eq, ne, lt, le, gt, ge = cmp.eq, cmp.ne, cmp.lt, cmp.le, cmp.gt, cmp.ge
logical_and, logical_or, logical_not = cmp.logical_and, cmp.logical_or, cmp.logical_not
isnan, isinf, isfinite = cmp.isnan, cmp.isinf, cmp.isfinite


def round(input, *, decimals=0):
    return unary.round_(input, decimals=decimals)


def square(input):
    return ew.pow_scalar(input, exponent=2)


def clone(input, *, memory_format=None):
    return copying.clone(input)


def reshape(input, shape):
    return views.reshape(input, shape)


# torch's words for a wrong argument (the ops among them check theirs in the registry)
globals().update({name: _checked(globals()[name], name) for name in __all__})
globals().update(_module_functions())
__all__ += list(_module_functions())


def get_default_dtype():
    """The dtype of floating tensors made from Python floats: ``torch.float32`` unless
    :func:`set_default_dtype` changed it."""
    from . import backend
    return backend.DEFAULT_FLOAT


def set_default_dtype(d) -> None:
    """Make ``d`` the dtype of new floating tensors, as torch's (process-wide, not per thread):
    factories, Python floats, nn parameters, integers promoted by true division.

    >>> import agdebug as ag
    >>> ag.set_default_dtype(ag.float64); (ag.tensor(1.5).dtype, ag.tensor([1, 2]) / 2)
    (torch.float64, tensor([0.5000, 1.0000]))
    >>> ag.set_default_dtype(ag.float32)
    """
    from . import backend
    if not isinstance(d, backend.dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    d.np   # noqa: B018 (a dtype agdebug has no tensors of, bfloat16, refuses in one line)
    backend.set_default_float(d)


def promote_types(type1, type2):
    """torch's promotion of two dtypes (``int64`` with ``float32`` gives ``float32``)."""
    from . import backend
    return backend.get_dtype(backend.promote_types(type1.np, type2.np))


def result_type(tensor1, tensor2):
    """The dtype ``tensor1 op tensor2`` would have (Python numbers count weakly)."""
    from . import backend
    from .tensor import Tensor

    def operand(x):
        return (x._data, x._data.ndim) if isinstance(x, Tensor) else (x, -1)
    (a, a_dim), (b, b_dim) = operand(tensor1), operand(tensor2)
    return backend.get_dtype(backend.result_dtype(a, b, a_dim, b_dim))


# Settings that change how torch chooses kernels. agdebug has one kernel per op (NumPy's),
# deterministic and in full float32 precision, so these are remembered and change nothing.
_SETTINGS = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Remembered: agdebug's ops are deterministic whatever this says."""
    _SETTINGS.update(deterministic=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled() -> bool:
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _SETTINGS["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Remembered (agdebug's float32 products are always full precision); an unknown value
    is ignored with torch's warning."""
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _SETTINGS["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _SETTINGS["matmul_precision"]


def set_warn_always(b: bool) -> None:
    """Remembered: agdebug's once-per-process warnings are Python's, filtered as Python's."""
    _SETTINGS["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _SETTINGS.get("warn_always", False)


def set_flush_denormal(mode: bool) -> bool:
    """False: NumPy gives agdebug no way to flush denormal numbers to zero (torch answers
    False too where the CPU cannot), so denormals stay as they are."""
    return False


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Anomaly mode on or off for the rest of the program (``set_detect_anomaly`` without
    its block)."""
    from .graph.anomaly_flag import ANOMALY
    ANOMALY.enabled, ANOMALY.check_nan = bool(enabled), bool(check_nan)


def get_default_device():
    """``device(type='cpu')``: agdebug's factories make CPU tensors unless told otherwise."""
    from .backend import device
    return device("cpu")


def set_default_device(device) -> None:
    """Only the CPU (or None) is accepted: agdebug's factories cannot default to a GPU."""
    from .backend import device as as_device
    if device is not None and as_device(device).type != "cpu":
        raise RuntimeError(f"set_default_device({str(device)!r}): agdebug's factories make CPU "
                           "tensors by default; pass device= to each one instead")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,
            options=None, name=None, disable=False, **kwargs):
    """``torch.compile``: agdebug runs every program eagerly, so the model (or function) is
    returned as it is, and works as before (as torch's ``backend="eager"`` would).

    >>> import agdebug as ag
    >>> net = ag.nn.Linear(2, 2)
    >>> ag.compile(net) is net
    True
    """
    if model is None:   # @torch.compile(...) as a decorator factory
        return lambda function: function
    return model


__all__ += ["get_default_dtype", "set_default_dtype", "promote_types", "result_type",
            "use_deterministic_algorithms",
            "are_deterministic_algorithms_enabled",
            "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
            "get_float32_matmul_precision", "compile", "set_warn_always",
            "is_warn_always_enabled", "set_flush_denormal", "set_anomaly_enabled",
            "get_default_device", "set_default_device"]

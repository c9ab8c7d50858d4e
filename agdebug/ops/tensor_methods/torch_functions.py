"""torch's query, creation and integer-index functions: ``is_tensor``, ``logspace``, ``isin``,
``bincount``, ``combinations``, ``gcd``... (``randperm``, ``normal`` and ``poisson`` are in
random/sampling.py; ``bernoulli`` and ``multinomial`` in inplace_variants.py, with the
in-place samplers.)

Composites (``cartesian_prod``, ``combinations``) are built from existing ops so the
recorded graph is torch's.
"""

from __future__ import annotations

import numpy as np

from ... import backend, creation
from ...backend import to_numpy_dtype
from ...tensor import Tensor
from ..pointwise import promotion, arithmetic as ew
from .operators import operand
from ..core.registry import defop
from ..core.checks import kernel_missing
from ..core.gradients import needs
from ..random.sampling import _placed_like, normal, poisson, randint_like, randperm


# ----------------------------------------------------------------------------- queries


def is_tensor(obj) -> bool:
    """True if ``obj`` is an agdebug tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    """True if ``input``'s dtype is a floating point dtype."""
    return input.is_floating_point()


def is_complex(input) -> bool:
    """True if ``input``'s dtype is complex (never, in agdebug)."""
    return input.is_complex()


def numel(input) -> int:
    """The number of elements of ``input``."""
    return input.numel()


def typename(obj) -> str:
    """The type name of ``obj``: ``'torch.FloatTensor'`` for a float32 tensor."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# ----------------------------------------------------------------------------- creation

def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=None) -> Tensor:
    """A 0-d tensor holding ``s`` (the default float dtype unless ``dtype`` is given)."""
    return creation.full((), operand(s), dtype=dtype or backend.DEFAULT_FLOAT,
                         device=device, requires_grad=requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    """``obj`` as a tensor, sharing its memory where it can (a tensor itself, unchanged,
    unless ``dtype``/``device`` ask for a conversion or ``copy=True``)."""
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None or device is not None:
            out = out.to(dtype=dtype, device=device)
        if copy and out is obj:
            out = obj.clone()
        if copy is False and out is not obj:
            raise ValueError("can't alias tensor from variable of type ... without copying")
        return out
    if isinstance(obj, np.ndarray) and not copy and dtype is None and device is None:
        out = creation.from_numpy(obj)
    else:
        out = creation.as_tensor(obj, dtype=dtype, device=device) if not copy else \
            creation.tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_(True) if requires_grad else out


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             layout=None) -> Tensor:
    """``steps`` points ``base ** linspace(start, end, steps)``.

    >>> import agdebug as ag
    >>> ag.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    exponents = np.linspace(float(start), float(end), int(steps), dtype=np.float64)
    values = np.power(float(base), exponents)
    if dtype is not None and to_numpy_dtype(dtype).kind in "iu":
        values = np.round(values)   # 10 ** 2 computed as 99.999... would truncate to 99
    return creation.tensor(values, dtype=dtype or backend.DEFAULT_FLOAT,
                           device=device, requires_grad=requires_grad)


# ----------------------------------------------------------------------------- integers

def _as_operand_tensor(value, like: Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else \
        Tensor._wrap(np.asarray(value, dtype=like._data.dtype))


def isin(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor:
    """A bool tensor: whether each of ``elements`` is in ``test_elements``."""
    if not isinstance(elements, Tensor):
        elements = _as_operand_tensor(elements, test_elements)
    if not isinstance(test_elements, Tensor):
        test_elements = _as_operand_tensor(test_elements, elements)
    a, b = promotion.promote(elements._data, test_elements._data)
    xp = backend.xp_of(a)
    found = xp.isin(a, b, invert=bool(invert))
    return Tensor._wrap(xp.asarray(found))


def bincount(input, weights=None, minlength=0) -> Tensor:
    """The count (or summed ``weights``) of each value of the 1-d non-negative integer
    ``input``; never differentiable (torch records NotImplemented with weights)."""
    data = input._data
    if data.dtype.kind not in "iu":
        raise kernel_missing("bincount_cpu", data.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and int(data.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        xp = backend.xp_of(data)
        return Tensor._wrap(xp.bincount(data, minlength=minlength).astype(np.int64))
    if weights.ndim != 1 or weights.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    return bincount_weighted(input, weights, minlength=int(minlength))


@defop("bincount_weighted", node="NotImplemented")
def bincount_weighted(xp, x, weights, minlength=0):
    out_dtype = np.float32 if weights.dtype == np.float32 else np.float64
    counts = xp.bincount(x, weights=weights.astype(np.float64), minlength=minlength)
    return counts.astype(out_dtype)


@bincount_weighted.vjp
def bincount_weighted_vjp(ctx, grad):
    raise RuntimeError("derivative for aten::bincount is not implemented")


def _meshgrid(tensors):
    from ..shape.composition import meshgrid
    return meshgrid(*tensors, indexing="ij")


def cartesian_prod(*tensors) -> Tensor:
    """The cartesian product of 1-d tensors, one row per combination (StackBackward0).

    >>> import agdebug as ag
    >>> ag.cartesian_prod(ag.tensor([1, 2]), ag.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from ..shape.joining import stack
    return stack([g.flatten() for g in _meshgrid(tensors)], 1)


def combinations(input, r=2, with_replacement=False) -> Tensor:
    """The length-``r`` combinations of the 1-d ``input``'s elements, one row each (torch's
    graph: meshgrid, masked_select with an upper-triangle mask, stack)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._wrap(backend.xp_of(input._data).zeros(0, dtype=input._data.dtype))
    grids = _meshgrid([input] * r)
    mask = _triu_mask(input.shape[0], r, with_replacement, input)
    from ..shape.joining import stack
    return stack([g.masked_select(mask) for g in grids], 1)


def _triu_mask(n: int, dims: int, diagonal: bool, like: Tensor) -> Tensor:
    """True where the index tuple is increasing (non-decreasing with ``diagonal``)."""
    ranges = np.meshgrid(*[np.arange(n)] * dims, indexing="ij")
    mask = np.ones((n,) * dims, dtype=bool)
    for lo, hi in zip(ranges, ranges[1:]):
        mask &= (lo <= hi) if diagonal else (lo < hi)
    return Tensor._wrap(_placed_like(mask, like))


def unravel_index(indices, shape) -> tuple:
    """Flat ``indices`` as a tuple of coordinate tensors into a tensor of ``shape``."""
    if not isinstance(indices, Tensor):
        indices = creation.tensor(indices)
    data = indices._data
    if data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got "
                             f"{tuple(shape)}")
    total = int(np.prod(shape))
    flat = data.astype(np.int64) % max(total, 1)
    coords = backend.xp_of(data).unravel_index(flat, shape) if shape else ()
    return tuple(Tensor._wrap(c.astype(np.int64)) for c in coords)


def argwhere(input) -> Tensor:
    """The indices of the non-zero elements of ``input``, one row each."""
    from ..indexing.gather_scatter import nonzero
    return nonzero(input)


@defop("rsub_tensor", node="RsubBackward0", broadcasts=True)
def rsub_tensor(xp, x, other, alpha=1):
    if x.dtype.kind == "b" or other.dtype.kind == "b":
        promotion._check_bool_sub(x, other)
    x, other = promotion.promote(x, other)
    return other - x if alpha == 1 else other - ew._times_alpha(x, alpha, other)


@rsub_tensor.vjp
def rsub_tensor_vjp(ctx, grad):
    alpha = ctx.alpha
    grad_x = (-grad if alpha == 1 else grad * -alpha) if needs(ctx, 0) else None
    return grad_x, (grad if needs(ctx, 1) else None)


@defop("rsub_alpha", node="RsubBackward1")
def rsub_alpha(xp, x, other=0, alpha=1):
    if x.dtype.kind == "b" or type(other) is bool:
        promotion._check_bool_sub(x, other)
    x, other = promotion.promote(x, other)
    return other - ew._times_alpha(x, alpha, other)


@rsub_alpha.vjp
def rsub_alpha_vjp(ctx, grad):
    return (grad * -ctx.alpha,)


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``: RsubBackward0 for a tensor ``other``, RsubBackward1 for a
    number.

    >>> import agdebug as ag
    >>> ag.rsub(ag.tensor([1.0, 2.0]), 5.0, alpha=2)
    tensor([3., 1.])
    """
    if isinstance(other, Tensor):
        return rsub_tensor(input, other, alpha=alpha)
    if alpha == 1:
        return ew.rsub(input, operand(other))
    return rsub_alpha(input, other=operand(other), alpha=operand(alpha))


def _integer_binary(name: str, fn):
    """gcd/lcm: integer tensors only (both tensors), never differentiable."""
    @defop(name, node="NotDifferentiable", differentiable=False, broadcasts=True)
    def forward(xp, x, y):
        x, y = promotion.promote(x, y)
        if x.dtype.kind not in "iu":
            raise kernel_missing(f"{name}_{'cpu' if xp is np else 'cuda'}", x.dtype)
        return fn(xp, x, y)

    def function(input, other):
        for arg, value, position in (("input", input, 1), ("other", other, 2)):
            if not isinstance(value, Tensor):
                raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be "
                                f"Tensor, not {type(value).__name__}")
        return forward(input, other)
    function.__name__ = name
    function.__doc__ = f"The elementwise {name} of two integer tensors."
    return forward, function


gcd_op, gcd = _integer_binary("gcd", lambda xp, x, y: xp.gcd(x, y))
lcm_op, lcm = _integer_binary("lcm", lambda xp, x, y: xp.lcm(x, y))


def _require_tensor(name: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _bool_result(array) -> Tensor:
    return Tensor._wrap(array.astype(np.bool_, copy=False))


def signbit(input) -> Tensor:
    """Whether each element's sign bit is set (true for -0.0)."""
    _require_tensor("signbit", input)
    data = input._data
    xp = backend.xp_of(data)
    return _bool_result(xp.signbit(data) if data.dtype.kind != "b" else xp.zeros_like(data))


def isposinf(input) -> Tensor:
    """Whether each element is +inf."""
    _require_tensor("isposinf", input)
    data = input._data
    return _bool_result(backend.xp_of(data).isposinf(data) if data.dtype.kind == "f"
                        else data != data)


def isneginf(input) -> Tensor:
    """Whether each element is -inf."""
    _require_tensor("isneginf", input)
    data = input._data
    return _bool_result(backend.xp_of(data).isneginf(data) if data.dtype.kind == "f"
                        else data != data)


def isreal(input) -> Tensor:
    """Whether each element has no imaginary part (always, for real dtypes)."""
    _require_tensor("isreal", input)
    return _bool_result(backend.xp_of(input._data).ones(input._data.shape, dtype=bool))


def _inplace(fn):
    from ..core.inplace import apply_inplace
    return lambda self, other: apply_inplace(fn, self, (other,), {})


FUNCTIONS = {"is_tensor": is_tensor, "is_floating_point": is_floating_point,
             "is_complex": is_complex, "numel": numel, "typename": typename,
             "scalar_tensor": scalar_tensor, "asarray": asarray, "logspace": logspace,
             "randperm": randperm, "randint_like": randint_like, "normal": normal,
             "poisson": poisson,
             "isin": isin, "bincount": bincount, "cartesian_prod": cartesian_prod,
             "combinations": combinations, "unravel_index": unravel_index,
             "argwhere": argwhere, "rsub": rsub, "gcd": gcd, "lcm": lcm, "signbit": signbit,
             "isneginf": isneginf, "isposinf": isposinf, "isreal": isreal}
# bernoulli and multinomial (functions and methods) and the in-place samplers (bernoulli_,
# normal_...) live in tensor_methods/inplace_variants.py.
METHODS = {"bincount": bincount, "argwhere": argwhere, "gcd": gcd,
           "lcm": lcm, "gcd_": _inplace(gcd_op), "lcm_": _inplace(lcm_op), "signbit": signbit,
           "isneginf": isneginf, "isposinf": isposinf, "isreal": isreal}

"""torch's call signatures for the reductions (``x.sum(0)``, ``agdebug.max(x, 1)``,
``x.var(unbiased=False)``) and their Tensor methods."""

from __future__ import annotations

from ...tensor import Tensor
from ..core.gradients import return_type
from .sum_prod import prod_all, prod_dim, std, var
from .extremes import all_, amax, amin, any_, argmax, argmin, max_all, max_dim, min_all, min_dim
from .norms import logsumexp, norm
from .scans import cumprod, cumsum


# ----------------------------------------------------------------------------- signatures

# torch.return_types of the (values, indices) results; order_statistics.py adds its own names
values_indices = {name: return_type(name, ("values", "indices"))
                  for name in ("max", "min", "sort", "topk")}


def _correction(name: str, unbiased, correction) -> int:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both "
                        "unbiased and correction")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _variance(op, name):
    def method(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):          # x.var(False): the unbiased flag, not a dim
            dim, unbiased = None, dim
        return op(input, dim=dim, correction=_correction(name, unbiased, correction),
                  keepdim=keepdim)
    method.__name__ = name
    return method


def prod(input, dim=None, keepdim=False, *, dtype=None):
    np_dtype = _np_dtype(dtype)
    if dim is None:
        return prod_all(input, dtype=np_dtype)
    if not isinstance(dim, int):
        raise TypeError(f"prod() received an invalid combination of arguments - got "
                        f"(dim={type(dim).__name__}), but expected one of: (int dim)")
    return prod_dim(input, dim=dim, keepdim=keepdim, dtype=np_dtype)


def _selecting(all_op, dim_op, elementwise_name: str, name: str):
    """torch.max / torch.min: all elements, along a dim (values, indices), or elementwise."""
    def method(input, dim=None, keepdim=False, *, other=None):
        if isinstance(dim, Tensor) or other is not None:
            from ..pointwise import comparison
            return getattr(comparison, elementwise_name)(input, other if other is not None
                                                         else dim)
        if dim is None:
            return all_op(input)
        return values_indices[name](*dim_op(input, dim=dim, keepdim=keepdim))
    method.__name__ = name
    return method


def _extreme(op, name):
    def method(input, dim=(), keepdim=False):
        return op(input, dim=dim, keepdim=keepdim)
    method.__name__ = name
    return method


def _over_dim(op, name):
    def method(input, dim=None, keepdim=False):
        return op(input, dim=dim, keepdim=keepdim)
    method.__name__ = name
    return method


def missing_arguments(name: str, *missing: str) -> TypeError:
    """torch's TypeError for required arguments left out (its parser's words, grammar and
    quotes: ``cumsum() missing 1 required positional arguments: "dim"``)."""
    if len(missing) == 1:
        return TypeError(f'{name}() missing 1 required positional arguments: "{missing[0]}"')
    return TypeError(f"{name}() missing {len(missing)} required positional argument: "
                     + ", ".join(f'"{m}"' for m in missing))


NO_DIM = object()   # a required ``dim`` left out: torch's TypeError, not Python's


def logsumexp_(input, dim=NO_DIM, keepdim=False):
    if dim is NO_DIM:
        raise missing_arguments("logsumexp", "dim")
    return logsumexp(input, dim=dim, keepdim=keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm."""
    if dtype is not None:
        x = x.to(dtype)
    return norm(x, ord=float(ord), dim=dim, keepdim=keepdim)


def norm_(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``x.norm()`` / ``torch.norm``: vector norms (``'fro'`` is the 2-norm)."""
    if p == "fro":
        p = 2
    elif isinstance(p, str):
        raise RuntimeError(f"agdebug supports vector norms only (p a number or 'fro'), got "
                           f"p={p!r}")
    return vector_norm(input, p, dim=dim, keepdim=keepdim, dtype=dtype)


def _scan_signature(op, name: str):
    """``torch.cumsum(input, dim, *, dtype=None)`` and cumprod's: ``dim`` is required."""
    def method(input, dim=NO_DIM, *, dtype=None):
        if dim is NO_DIM:
            raise missing_arguments(name, "dim")
        return op(input, dim=dim, dtype=_np_dtype(dtype))
    method.__name__ = name
    return method


def _np_dtype(dtype):
    if dtype is None:
        return None
    from ...backend import to_numpy_dtype
    return to_numpy_dtype(dtype)


FUNCTIONS = {
    "var": _variance(var, "var"), "std": _variance(std, "std"), "prod": prod,
    "max": _selecting(max_all, max_dim, "maximum", "max"),
    "min": _selecting(min_all, min_dim, "minimum", "min"),
    "amax": _extreme(amax, "amax"), "amin": _extreme(amin, "amin"),
    "argmax": _over_dim(argmax, "argmax"), "argmin": _over_dim(argmin, "argmin"),
    "all": _over_dim(all_, "all"), "any": _over_dim(any_, "any"),
    "logsumexp": logsumexp_, "norm": norm_, "cumsum": _scan_signature(cumsum, "cumsum"),
    "cumprod": _scan_signature(cumprod, "cumprod"),
}
METHODS = dict(FUNCTIONS)

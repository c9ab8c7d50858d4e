"""``quantile`` and ``nanquantile``, built as torch builds them (``quantile_impl`` in
ATen's Sorting.cpp) so the recorded graph is torch's: sort (after flattening, or moving
``dim`` last), view, gather the neighbouring order statistics, ``lerp_`` between them, and
squeeze the quantile dim away in place (SqueezeBackward4 on top).

>>> import agdebug as ag
>>> ag.quantile(ag.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
tensor(2.5000)
"""

from __future__ import annotations

import numbers

from ...tensor import Tensor
from ..shape.signatures import _dim

__all__ = ["quantile", "nanquantile"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` (over ``dim``, or all elements), interpolating
    between order statistics; a NaN makes its quantiles NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaNs (all-NaN rows give NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool):
    # torch's messages say quantile() for both, and print q as C++ does (6 digits)
    from ... import creation
    if isinstance(q, numbers.Real) and not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        q = creation.tensor(float(q), dtype=input.dtype, device=input.device)
    elif not isinstance(q, Tensor):
        raise TypeError("quantile() received an invalid combination of arguments - got (Tensor, "
                        f"{type(q).__name__}), but expected one of:")
    if interpolation not in _MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    _check(input, q)
    wrapped = None if dim is None else _dim(dim, input.ndim)
    out_shape = _output_shape(input, q, wrapped, keepdim)
    values = _compute(input, q, wrapped, interpolation, ignore_nan, out_shape)
    if q.ndim == 0:
        return values.squeeze_(-1)   # the quantile dim (torch's is last here)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _check(input, q) -> None:
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._data.dtype.name not in ("float32", "float64"):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _output_shape(input, q, dim, keepdim: bool) -> list:
    """torch's: the reduced shape (``dim`` kept as 1 with ``keepdim``), q's size first."""
    shape = []
    if dim is not None and input.ndim > 0:
        shape = list(input.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
    elif keepdim:
        shape = [1] * input.ndim
    return [q.numel()] + shape


def _compute(input, q, dim, interpolation: str, ignore_nan: bool, out_shape: list):
    if not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = input.flatten().sort()[0]
    elif dim == input.ndim - 1:
        ordered = input.sort()[0]
    else:
        ordered = input.unsqueeze(-1).transpose(dim, -1).sort()[0]
    # the reduced dims first, the sorted values last
    ordered = ordered.view(out_shape[1:] + [ordered.shape[-1]])
    ranks = _ranks(ordered, q, ignore_nan)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    below = ranks.long()
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full(tuple(ranks.shape), 0.5) if interpolation == "midpoint" \
            else ranks - below
        above = ordered.gather(-1, ranks.ceil_().long())
        values.lerp_(above, weights)
    return values


def _ranks(ordered, q, ignore_nan: bool):
    """Fractional positions of the quantiles among the sorted values (NaNs sort last)."""
    if ignore_nan:   # among the values that are not NaN; all NaN: rank 0, so NaN
        ranks = q * (ordered.isnan().logical_not().sum(-1, keepdim=True) - 1)
        return ranks.masked_fill(ranks < 0, 0)
    last = ordered.shape[-1] - 1   # a NaN in the row: the last rank, so NaN
    ranks, has_nan = _broadcast(q * last, ordered.isnan().any(-1, keepdim=True))
    return ranks.masked_fill(has_nan, last)


def _broadcast(a, b):
    from ... import functions
    return functions.broadcast_tensors(a, b)


FUNCTIONS = {"quantile": quantile, "nanquantile": nanquantile}
METHODS = dict(FUNCTIONS)

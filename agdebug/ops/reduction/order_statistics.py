"""Order statistics and running extremes: median, nanmedian, mode, kthvalue, cummax, cummin.

Each ``dim`` form returns values and int64 indices (a named tuple, as ``max(dim)``);
the values' gradient goes to the index returned (torch's
``value_selecting_reduction_backward``), so ties are resolved exactly as torch's CPU
kernels resolve them (see core/tie_order.py): the gradient reaches the same element.
"""

from __future__ import annotations

import numpy as np

from ..core import tie_order
from ..indexing.gather_scatter import scatter_add_op
from .extremes import _evenly, _to_index
from .signatures import missing_arguments, values_indices
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..core.checks import dims_of, kernel_missing
from ..core.gradients import input_shape, return_type, zeros_grad

for _name in ("median", "nanmedian", "mode", "kthvalue", "cummax", "cummin"):
    values_indices.setdefault(_name, return_type(_name, ("values", "indices")))


def _host(array) -> np.ndarray:
    return array.get() if hasattr(array, "get") else array


def _rows(xp, x, dim: int):
    """``x`` with ``dim`` moved last, as a (rows, n) array."""
    moved = xp.moveaxis(x, dim, -1)
    return moved.reshape(-1, x.shape[dim] if x.ndim else 1)


def _pick(xp, x, dim: int, keepdim: bool, rows_index):
    """``(values, indices)`` from ``rows_index(rows) -> (rows,) indices``."""
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=np.int64)
    shape = list(x.shape)
    shape[dim] = 1
    moved = shape[:dim] + shape[dim + 1:] + [1]
    rows = _rows(xp, x, dim)
    index = xp.asarray(rows_index(rows), dtype=np.int64).reshape(moved)
    index = xp.ascontiguousarray(xp.moveaxis(index, -1, dim))
    values = xp.take_along_axis(x, index, axis=dim)
    if keepdim:
        return values, index
    return values.squeeze(dim), index.squeeze(dim)


def _check_dim(x, dim: int, name: str) -> int:
    dim = dims_of(dim, x.ndim)[0]
    if x.ndim and x.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


def _check_dtype(x, kernel: str) -> None:
    if x.dtype == np.bool_ or x.dtype.kind == "c":
        raise kernel_missing(kernel, x.dtype)


# ----------------------------------------------------------------------------- median

def _median_rows(rows, ignore_nan: bool):
    """torch's index: the element at (n - 1) // 2 in a stable sort (NaN last); median
    returns the first NaN of a row that has one; nanmedian skips NaNs."""
    rows = _host(rows)
    n = rows.shape[1]
    order = np.argsort(rows, axis=1, kind="stable")
    nan = np.isnan(rows) if rows.dtype.kind in "fc" else np.zeros(rows.shape, bool)
    count = nan.sum(axis=1)
    if not ignore_nan:
        picked = order[:, (n - 1) // 2]
        return np.where(count > 0, nan.argmax(axis=1), picked)
    position = np.maximum(n - count - 1, 0) // 2
    picked = np.take_along_axis(order, position[:, None], axis=1)[:, 0]
    for r in np.flatnonzero((count == n) & (n > 3)):   # all NaN: where nth_element stops
        picked[r] = tie_order.nth_element(list(range(n)), 0, lambda i, j: False)[0]
    return picked


def _median_all(xp, x, ignore_nan: bool):
    flat = x.reshape(-1)
    if x.dtype.kind in "fc":
        nan = xp.isnan(flat)
        if ignore_nan:
            flat = flat[~nan]
        elif bool(nan.any()):
            return xp.asarray(np.nan, dtype=x.dtype)
    if flat.size == 0:   # torch: NaN (the lowest integer for integer dtypes)
        fill = np.nan if x.dtype.kind in "fc" else np.iinfo(x.dtype).min
        return xp.asarray(fill, dtype=x.dtype)
    return xp.sort(flat)[(flat.size - 1) // 2]


@defop("median", node="MedianBackward0", saves=("x", "result"))
def median_all(xp, x):
    _check_dtype(x, "median_cpu")
    return _median_all(xp, x, False)


@median_all.vjp
def median_all_vjp(ctx, grad):
    """median's and nanmedian's: split evenly between the elements equal to the result."""
    return (_evenly(grad, ctx.x, ctx.result, None, False),)


@defop("nanmedian", node="NanmedianBackward0", saves=("x", "result"))
def nanmedian_all(xp, x):
    _check_dtype(x, "nanmedian_cpu")
    return _median_all(xp, x, True)


nanmedian_all.vjp(median_all_vjp)


def _value_selecting_vjp(ctx, grad):
    """The values' gradient sent to the index each value came from."""
    return (_to_index(grad, ctx),)


def _selecting_op(name: str, node: str, forward):
    # torch keeps the indices as returned (``_saved_indices``, squeezed unless keepdim), not k
    op = defop(name, node=node, outputs=2, nondiff_outputs=(1,), saves=("indices=result1",),
               sizes=SELF_SIZES, saved_as={"k": None})(forward)
    op.vjp(_value_selecting_vjp)
    return op


def _median_dim(xp, x, dim=0, keepdim=False):
    return _pick(xp, x, dim, keepdim, lambda rows: _median_rows(rows, False))


def _nanmedian_dim(xp, x, dim=0, keepdim=False):
    return _pick(xp, x, dim, keepdim, lambda rows: _median_rows(rows, True))


median_dim = _selecting_op("median_dim", "MedianBackward1", _median_dim)
nanmedian_dim = _selecting_op("nanmedian_dim", "NanmedianBackward1", _nanmedian_dim)


# ----------------------------------------------------------------------------- mode

def _mode_row(row: list) -> int:
    """torch's CPU mode: std::sort of (value, index) by value, then the first longest run;
    the index is that of the run's last element."""
    pairs = tie_order.std_sort(list(zip(row, range(len(row)))), lambda a, b: a[0] < b[0])
    best, best_index, run = 0, 0, 0
    for i, (value, index) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:
            if run > best:
                best, best_index = run, index
            run = 0
    return best_index


def _mode_rows(rows):
    rows = _host(rows)
    # Up to 16 elements std::sort is an insertion sort: a stable sort, unless a NaN (which
    # ``<`` cannot order) stops an insertion short.
    nan = np.isnan(rows).any(axis=1) if rows.dtype.kind == "f" else np.zeros(len(rows), bool)
    return [_mode_stable(r) if rows.shape[1] <= 16 and not has_nan else _mode_row(r.tolist())
            for r, has_nan in zip(rows, nan)]


def _mode_stable(row) -> int:
    order = np.argsort(row, kind="stable")
    values = row[order]
    ends = np.flatnonzero(np.append(values[1:] != values[:-1], True))   # each run's last
    runs = np.diff(np.append(-1, ends))
    return int(order[ends[int(np.argmax(runs))]])


def _mode_dim(xp, x, dim=-1, keepdim=False):
    return _pick(xp, x, dim, keepdim, _mode_rows)


mode_op = _selecting_op("mode", "ModeBackward0", _mode_dim)


# ----------------------------------------------------------------------------- kthvalue

def _kth_rows(rows, k: int):
    """Stable order's (k-1)-th, unless the k-th value ties: then TH's quickselect decides."""
    rows = _host(rows)
    order = np.argsort(rows, axis=1, kind="stable")
    picked = order[:, k - 1].copy()
    ranked = np.take_along_axis(rows, order, axis=1)
    kth = ranked[:, k - 1:k]
    same = (ranked == kth) | (np.isnan(ranked) & np.isnan(kth)) if rows.dtype.kind == "f" \
        else ranked == kth
    for r in np.flatnonzero(same.sum(axis=1) > 1):
        picked[r] = tie_order.quick_select(rows[r].tolist(), k - 1)
    return picked


def _kthvalue_dim(xp, x, k=1, dim=-1, keepdim=False):
    return _pick(xp, x, dim, keepdim, lambda rows: _kth_rows(rows, k))


kthvalue_op = _selecting_op("kthvalue", "KthvalueBackward0", _kthvalue_dim)


# ----------------------------------------------------------------------------- cummax, cummin

def _running(xp, x, dim: int, largest: bool):
    """``((values, indices), indices)``: torch's index is the last position at or before
    each one whose element equals the running extreme (a NaN, once seen, stays)."""
    if x.ndim == 0:
        index = xp.zeros((), dtype=np.int64)
        return (x.copy(), index), index
    values = _accumulate(xp, xp.maximum if largest else xp.minimum, x, dim) \
        if x.shape[dim] else x.copy()
    hit = values == x
    if x.dtype.kind in "fc":
        hit |= xp.isnan(values) & xp.isnan(x)
    shape = [1] * x.ndim
    shape[dim] = x.shape[dim]
    positions = xp.where(hit, xp.arange(x.shape[dim]).reshape(shape), 0)
    index = _accumulate(xp, xp.maximum, positions, dim).astype(np.int64) if x.size else \
        positions.astype(np.int64)
    return (values, index), index


def _accumulate(xp, ufunc, x, axis: int):
    """``ufunc.accumulate(x, axis)``; CuPy has no ``accumulate`` for maximum and minimum, so
    there the running result is built one position at a time."""
    if xp is np:
        return ufunc.accumulate(x, axis=axis)
    out = xp.moveaxis(x, axis, 0).copy()
    for i in range(1, out.shape[0]):
        out[i] = ufunc(out[i - 1], out[i])
    return xp.moveaxis(out, 0, axis)


def _cumulative_vjp(ctx, grad):
    """cummax's and cummin's: each gradient added at the index its value came from."""
    shape = input_shape(ctx, 0)
    if not shape:
        return (grad,)
    return (scatter_add_op(zeros_grad(grad, shape), grad, index=ctx.indices._data,
                           dim=ctx.dim),)


@defop("cummax", node="CummaxBackward0", outputs=2, nondiff_outputs=(1,), extras=("indices",),
       saves=("x", "indices"))
def cummax_op(xp, x, dim=0):
    return _running(xp, x, dim, True)


@defop("cummin", node="CumminBackward0", outputs=2, nondiff_outputs=(1,), extras=("indices",),
       saves=("x", "indices"))
def cummin_op(xp, x, dim=0):
    return _running(xp, x, dim, False)


cummax_op.vjp(_cumulative_vjp)
cummin_op.vjp(_cumulative_vjp)


# ----------------------------------------------------------------------------- signatures

_NO_DIM = object()


def _median_function(all_op, dim_op, name: str):
    def method(input, dim=_NO_DIM, keepdim=False):
        if dim is _NO_DIM:
            if keepdim:
                raise missing_arguments(name, "dim")
            return all_op(input)
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        _check_dtype(input._data, f"{name}_out")
        dim = _check_dim(input._data, dim, "median")   # nanmedian's errors say median too
        return values_indices[name](*dim_op(input, dim=dim, keepdim=bool(keepdim)))
    method.__name__ = name
    method.__doc__ = (f"torch.{name}: the lower median of all elements, or ``(values, indices)`` "
                      "along ``dim``.")
    return method


median = _median_function(median_all, median_dim, "median")
nanmedian = _median_function(nanmedian_all, nanmedian_dim, "nanmedian")


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and
    its index.

    >>> import agdebug as ag
    >>> ag.tensor([2.0, 1.0, 2.0, 3.0]).mode()
    torch.return_types.mode(
    values=tensor(2.),
    indices=tensor(2))
    """
    if input._data.dtype.kind == "c":
        raise kernel_missing("mode_cpu", input._data.dtype)
    dim = _check_dim(input._data, dim, "mode")
    return values_indices["mode"](*mode_op(input, dim=dim, keepdim=bool(keepdim)))


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index."""
    _check_dtype(input._data, "kthvalue_cpu")
    dim = _check_dim(input._data, dim, "kthvalue")
    size = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= size and input.numel():
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return values_indices["kthvalue"](*kthvalue_op(input, k=int(k), dim=dim,
                                                    keepdim=bool(keepdim)))


def _running_function(op, name: str):
    def method(input, dim=_NO_DIM):
        if dim is _NO_DIM:
            raise missing_arguments(name, "dim")
        if input._data.dtype.kind == "c":
            raise kernel_missing(f"{name}_cpu", input._data.dtype)
        dim = dims_of(dim, input.ndim)[0]
        return values_indices[name](*op(input, dim=dim))
    method.__name__ = name
    method.__doc__ = (f"torch.{name}: the running {name[3:]}imum along ``dim`` and the index "
                      "of each.")
    return method


cummax = _running_function(cummax_op, "cummax")
cummin = _running_function(cummin_op, "cummin")

FUNCTIONS = {"median": median, "nanmedian": nanmedian, "mode": mode, "kthvalue": kthvalue,
             "cummax": cummax, "cummin": cummin}
METHODS = dict(FUNCTIONS)

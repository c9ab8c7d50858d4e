"""Cases for agdebug/ops/indexing/sorting.py (see harness.py for the format).

Inputs have no ties: the order of tied values (and so which one a gradient reaches) is
torch's implementation detail, and central differences cannot pick one either.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.permutation(np.arange(12.0)).reshape(3, 4) / 4 - 1   # distinct values
C = rng.permutation(np.arange(24.0)).reshape(2, 3, 4) / 8
SCALAR = np.array(0.6)

CASES = [
    Case("sort", lambda t, x: t.sort(x).values ** 2, [A], grad_fn="PowBackward0"),
    Case("sort", lambda t, x: x.sort(0, True), [A], id="sort_descending_dim0"),
    Case("sort", lambda t, x: t.sort(x, dim=1)[0] * x.sort(-1)[0], [C], id="sort_dim_mid"),
    Case("sort", lambda t, x: x.sort(), [SCALAR], id="sort_0d"),
    Case("sort_stable", lambda t, x: t.sort(x, stable=True, descending=True), [A],
         grad_fn="SortBackward1"),
    Case("sort_stable", lambda t, x: x.sort(dim=1, stable=False).values ** 2, [C],
         id="sort_stable_false"),
    Case("topk", lambda t, x: t.topk(x, 2), [A], grad_fn="TopkBackward0"),
    Case("topk", lambda t, x: x.topk(2, dim=0, largest=False).values ** 2, [C],
         id="topk_smallest_dim0"),
    Case("topk", lambda t, x: x.topk(0).values, [A], id="topk_zero"),
    Case("topk", lambda t, x: x.topk(1), [SCALAR], id="topk_0d"),
    Case("sort", lambda t, x: t.argsort(x, 1, True) * 1.0 + x, [A], id="argsort"),
]

# ----------------------------------------------------------------------------- selection.py
# Ties are included where torch picks one index (median, mode, kthvalue, cummax): the
# gradient goes to that index, so torch's values and gradients are compared, not central
# differences (which would split it).
TIED = np.array([[3.0, 1.0, 3.0, 1.0, 2.0], [5.0, 5.0, 5.0, 0.0, 0.0]])

CASES += [
    Case("median", lambda t, x: x.median(), [A], grad_fn="MedianBackward0"),
    Case("median", lambda t, x: t.median(x), [TIED], id="median_ties", numeric=False),
    Case("median_dim", lambda t, x: x.median(1), [A], grad_fn="MedianBackward1"),
    Case("median_dim", lambda t, x: t.median(x, 0, keepdim=True), [TIED], id="median_dim_ties",
         numeric=False),
    Case("median_dim", lambda t, x: x.median(0), [SCALAR], id="median_dim_0d"),
    Case("nanmedian", lambda t, x: x.nanmedian(), [C], grad_fn="NanmedianBackward0"),
    Case("nanmedian_dim", lambda t, x: t.nanmedian(x, -1), [C], grad_fn="NanmedianBackward1"),
    Case("mode", lambda t, x: x.mode(), [A], grad_fn="ModeBackward0"),
    Case("mode", lambda t, x: t.mode(x, 1), [TIED], id="mode_ties", numeric=False),
    Case("mode", lambda t, x: x.mode(0, True), [C], id="mode_dim0_keepdim"),
    Case("kthvalue", lambda t, x: x.kthvalue(2), [A], grad_fn="KthvalueBackward0"),
    Case("kthvalue", lambda t, x: t.kthvalue(x, 4, 1), [TIED], id="kthvalue_ties",
         numeric=False),
    Case("kthvalue", lambda t, x: x.kthvalue(1, dim=0, keepdim=True), [C], id="kthvalue_dim0"),
    Case("cummax", lambda t, x: x.cummax(1), [A], grad_fn="CummaxBackward0"),
    Case("cummax", lambda t, x: t.cummax(x, 1).values ** 2, [TIED], id="cummax_ties",
         numeric=False),
    Case("cummax", lambda t, x: x.cummax(0), [SCALAR], id="cummax_0d"),
    Case("cummin", lambda t, x: t.cummin(x, dim=-1), [C], grad_fn="CumminBackward0"),
    Case("cummin", lambda t, x: x.cummin(1), [TIED], id="cummin_ties", numeric=False),
]

# ----------------------------------------------------------------------------- search, unique
# unique's nodes have no derivative (torch's raise NotImplementedError, as agdebug's do: see
# test_reduce_parity.py): integer inputs here, so only values are compared.
EDGES = np.array([-0.5, 0.0, 0.0, 0.75])
REPEATS = np.array([[3, 1, 3], [1, 1, 2], [3, 1, 3]])

CASES += [
    Case("sort", lambda t, x: x.msort() ** 2, [A], id="msort"),
    Case("searchsorted", lambda t, e, x: t.searchsorted(e, x), [EDGES, A]),
    Case("searchsorted", lambda t, e, x: t.bucketize(x, e, right=True, out_int32=True),
         [EDGES, C], id="bucketize_right_int32"),
    Case("histc", lambda t, x: x.histc(4).long(), [A]),   # (float, no grad: as counts)
    Case("histc", lambda t, x: t.histc(x, bins=3, min=-1, max=1).long(), [C], id="histc_range"),
    Case("unique", lambda t, x: t.unique(x, return_inverse=True, return_counts=True),
         [REPEATS]),
    Case("unique_dim", lambda t, x: x.unique(dim=0, return_inverse=True), [REPEATS]),
    Case("unique_consecutive", lambda t, x: x.unique_consecutive(return_counts=True),
         [REPEATS]),
    Case("unique_consecutive", lambda t, x: t.unique_consecutive(x, dim=1), [REPEATS],
         id="unique_consecutive_dim"),
]

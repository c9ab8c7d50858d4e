"""Cases for agdebug/ops/indexing/subscript.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(3)
A = rng.standard_normal((3, 4))
B3 = rng.standard_normal((2, 3, 4))
ROW = rng.standard_normal(4)
COL = rng.standard_normal(3)
IDX = np.array([[0, 2, 2], [1, 0, 3], [2, 2, 1]])     # repeated entries on purpose
PERM = np.array([[2, 0, 1, 3], [1, 3, 0, 2], [0, 1, 3, 2]])   # no repeats: scatter is exact
MASK = A > 0.2
S = rng.standard_normal(())


def _setitem_basic(t, x, v):
    y = x * 1
    y[1, 1:3] = v[:2]
    return y


def _setitem_scalar(t, x):
    y = x * 1
    y[:, 0] = 2.5
    return y


def _setitem_advanced(t, x, v):
    y = x * 1
    y[[0, 2], [1, 3]] = v[:2]
    return y


def _setitem_mask(t, x, m, s):
    y = x * 1
    y[m] = s
    return y


def _index_put_acc(t, x, v):
    return x.index_put((t.tensor([0, 0, 2]),), v, accumulate=True)


def _masked_fill_inplace(t, x, m):
    return (x * 1).masked_fill_(m, -1.0)


def _scatter_inplace(t, x, i, s):
    return (x * 1).scatter_(1, i, s)


CASES = [
    Case("select", lambda t, x: x[1], [A], grad_fn="SelectBackward0"),
    Case("select", lambda t, x: x[-1, 2], [A], id="select_twice_negative"),
    Case("select", lambda t, x: x.select(1, -2), [A], id="select_method"),
    Case("slice", lambda t, x: x[1:], [A], grad_fn="SliceBackward0"),
    Case("slice", lambda t, x: x[:, ::2], [A], id="slice_step"),
    Case("slice", lambda t, x: x[-2:10, 1:3], [A], id="slice_clamped"),
    Case("slice", lambda t, x: x[:], [A], id="slice_full"),
    Case("alias", lambda t, x: x[...], [A], grad_fn="AliasBackward0"),
    Case("alias", lambda t, x: x[:, :] * x, [A], id="alias_full_slices"),
    Case("unsqueeze", lambda t, x: x[None, ..., None], [A], id="getitem_none"),
    Case("select", lambda t, x: x[0, ..., 1:], [B3], id="getitem_mixed"),
    Case("index", lambda t, x: x[[0, 2, 0]], [A], grad_fn="IndexBackward0"),
    Case("index", lambda t, x: x[[0, 2], [1, 1]], [A], id="index_pairs"),
    Case("index", lambda t, x: x[:, [3, -1, 0, 3]], [A], id="index_dim1_negative_repeat"),
    Case("index", lambda t, x, i: x[i], [ROW, IDX], id="index_tensor_2d"),
    Case("index", lambda t, x, m: x[m], [A, MASK], id="index_mask"),
    Case("index", lambda t, x, m: x[:, m[0]], [A, MASK], id="index_mask_dim1"),
    Case("index", lambda t, x: x[0, [1, 1]], [B3], id="index_after_select"),
    Case("index", lambda t, x: x[[0, 1], :, [2, 2]], [B3], id="index_split_dims"),
    Case("index", lambda t, x: x[True], [A], id="index_true"),
    Case("copy_slices", _setitem_basic, [A, ROW], torch=False, grad_fn="CopySlices"),
    Case("copy_slices", _setitem_scalar, [A], torch=False, id="copy_slices_scalar"),
    Case("index_put", _setitem_advanced, [A, ROW], grad_fn="IndexPutBackward0"),
    Case("index_put", _setitem_mask, [A, MASK, S], id="index_put_mask_value"),
    Case("index_put", _index_put_acc, [A, ROW], id="index_put_accumulate"),
    Case("gather", lambda t, x, i: t.gather(x, 1, i), [A, IDX], grad_fn="GatherBackward0"),
    Case("gather", lambda t, x, i: x.gather(0, i[:2, :2]), [A, IDX], id="gather_dim0_small"),
    Case("gather", lambda t, x, i: t.take_along_dim(x, i, 1), [A, IDX], id="take_along_dim"),
    Case("gather", lambda t, x: t.take_along_dim(x, t.tensor([0, 11, 5])), [A],
         id="take_along_dim_flat"),
    Case("scatter_add", lambda t, x, i, s: x.scatter_add(1, i, s), [A, IDX, A[:, :3] * 2],
         grad_fn="ScatterAddBackward0"),
    # torch 2.13 cannot backpropagate a src larger than index (its engine rejects the shape).
    Case("scatter_add", lambda t, x, i, s: t.scatter_add(x, 0, i, s), [A, IDX[:2] % 3, A],
         torch=False, id="scatter_add_larger_src"),
    Case("scatter", lambda t, x, i, s: x.scatter(1, i, s), [A, PERM, A * 3],
         grad_fn="ScatterBackward0"),
    Case("scatter", _scatter_inplace, [A, PERM[:, :2], A[:, :2]], id="scatter_inplace"),
    Case("scatter_value", lambda t, x, i: x.scatter(1, i, 1.5), [A, PERM],
         grad_fn="ScatterBackward1"),
    Case("index_select", lambda t, x: x.index_select(1, t.tensor([3, 0, 3])), [A],
         grad_fn="IndexSelectBackward0"),
    Case("index_select", lambda t, x: t.index_select(x, 0, t.tensor(1)), [A],
         id="index_select_scalar_index"),
    Case("index_add", lambda t, x, s: x.index_add(1, t.tensor([1, 1, 0]), s, alpha=2.0),
         [A, A[:, :3]], grad_fn="IndexAddBackward0"),
    Case("masked_fill", lambda t, x, m: x.masked_fill(m, 0.5), [A, MASK],
         grad_fn="MaskedFillBackward0"),
    Case("masked_fill", lambda t, x, m: x.masked_fill(m[0], -2.0), [A, MASK],
         id="masked_fill_broadcast_mask"),
    Case("masked_fill", _masked_fill_inplace, [A, MASK], id="masked_fill_inplace"),
    Case("masked_fill_tensor", lambda t, x, m, s: x.masked_fill(m, s), [A, MASK, S],
         grad_fn="MaskedFillBackward1"),
    Case("nonzero", lambda t, m: t.nonzero(m), [MASK]),
    Case("nonzero", lambda t, x: x.nonzero(), [A * MASK], id="nonzero_float"),
]

# ----------------------------------------------------------------------------- scatter.py
SRC = rng.standard_normal((3, 3))
SRC_IDX = np.array([[0, 2, 0], [1, 1, 3], [3, 2, 3]])   # repeats: several src per slot


def _reduce_case(reduce: str, include_self: bool = True):
    def fn(t, x, s, i):
        return x.scatter_reduce(1, i, s, reduce, include_self=include_self)
    return Case("scatter_reduce", fn, [A, SRC, SRC_IDX], id=f"scatter_reduce_{reduce}"
                f"{'' if include_self else '_exclude_self'}")


CASES += [
    Case("index_fill", lambda t, x: x.index_fill(1, t.tensor([0, 2, 0]), -1.5), [A],
         grad_fn="IndexFillBackward0"),
    Case("index_fill", lambda t, x: (x * 1).index_fill_(0, t.tensor([-1]), 2.0), [A],
         id="index_fill_inplace_negative"),
    Case("index_fill_tensor", lambda t, x, v: t.index_fill(x, 1, t.tensor([1, 1, 3]), v),
         [A, S], grad_fn="IndexFillBackward1"),
    Case("index_copy", lambda t, x, s: x.index_copy(1, t.tensor([3, 0]), s[:, :2]), [A, SRC],
         grad_fn="IndexCopyBackward0"),
    Case("index_copy", lambda t, x: (x * 1).index_copy_(0, t.tensor([2]), x[:1] * 2), [A],
         id="index_copy_inplace"),
    Case("masked_select", lambda t, x, m: x.masked_select(m), [A, MASK],
         grad_fn="MaskedSelectBackward0"),
    Case("masked_select", lambda t, x: t.masked_select(x, t.tensor([True, False, False, True])),
         [A], id="masked_select_broadcast_mask"),
    Case("masked_select", lambda t, x: x.masked_select(t.tensor([[True], [False], [True]])),
         [ROW], id="masked_select_broadcast_input"),
    Case("masked_scatter", lambda t, x, s, m: x.masked_scatter(m, s), [A, B3, MASK],
         grad_fn="MaskedScatterBackward0"),
    Case("masked_scatter", lambda t, x, s: (x * 1).masked_scatter_(t.tensor([False, True, True,
                                                                             False]), s),
         [A, SRC], id="masked_scatter_inplace_broadcast"),
    Case("take", lambda t, x: x.take(t.tensor([[0, -1], [5, 5]])), [A], grad_fn="TakeBackward0"),
    Case("put", lambda t, x, s: x.put(t.tensor([0, -1, 3]), s[0]), [A, SRC],
         grad_fn="PutBackward0"),
    Case("put", lambda t, x, s: (x * 1).put_(t.tensor([1, 1, 4]), s[1], accumulate=True),
         [A, SRC], id="put_accumulate_inplace"),
    _reduce_case("sum"), _reduce_case("sum", False), _reduce_case("prod"),
    _reduce_case("prod", False), _reduce_case("mean"), _reduce_case("mean", False),
    _reduce_case("amax"), _reduce_case("amax", False), _reduce_case("amin"),
    _reduce_case("amin", False),
    Case("scatter_reduce", lambda t, x, s, i: (x * 1).scatter_reduce_(1, i, s, "prod"),
         [np.round(A), np.round(SRC), SRC_IDX], id="scatter_reduce_prod_zeros_inplace",
         numeric=False),   # rounded: zeros in self and src (torch's masked formulas)
]

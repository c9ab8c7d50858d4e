"""Cases for agdebug/ops/index.py (see harness.py for the format)."""

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

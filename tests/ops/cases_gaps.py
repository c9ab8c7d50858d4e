"""Cases for the gap-closing ops: scatter's legacy reduce, index_reduce, _trilinear (bilinear)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((3, 4))
SRC = rng.standard_normal((3, 4)) * 2      # apart from A: no ties for amax/amin
ROWS = rng.standard_normal((4, 4)) * 2
X1, X2 = rng.standard_normal((4, 3)), rng.standard_normal((4, 5))
W, BIAS = rng.standard_normal((2, 3, 5)), rng.standard_normal(2)


def _index_reduce_case(reduce: str, include_self: bool = True):
    def fn(t, x, s):
        return x.index_reduce(0, t.tensor([0, 2, 0, 2]), s, reduce, include_self=include_self)
    return Case("index_reduce", fn, [A, ROWS], grad_fn="IndexReduceBackward0",
                id=f"index_reduce_{reduce}{'' if include_self else '_exclude_self'}")


CASES = [
    # torch records scatter(reduce=...) without a derivative (NotImplemented): values only,
    # compared with torch (the detached result has no derivative to check numerically).
    Case("scatter_legacy_reduce",
         lambda t, x, s: x.scatter(1, t.tensor([[0, 0], [1, 3], [2, 2]]), s,
                                   reduce="multiply").detach() * x, [A, SRC], numeric=False),
    Case("scatter_value_legacy_reduce",
         lambda t, x: x.scatter(1, t.tensor([[0, 0], [1, 3], [2, 2]]), 1.5,
                                reduce="add").detach() * x, [A], numeric=False),
    *(_index_reduce_case(r, inc) for r in ("prod", "mean", "amax", "amin")
      for inc in (True, False)),
    Case("index_reduce", lambda t, x, s: (x * 1).index_reduce_(1, t.tensor([3, 3, 0]),
                                                                 s[:, :3], "prod"),
         [A, SRC], id="index_reduce_prod_inplace_dim1"),
    Case("index_reduce", lambda t, x, s: x.index_reduce(-1, t.tensor([1, 1, 1, 1]), s, "mean",
                                                        include_self=False),
         [A, SRC], id="index_reduce_mean_negative_dim"),
    # nn.functional.bilinear: ViewBackward0 around TrilinearBackward0, then AddBackward0
    Case("_trilinear", lambda t, x1, x2, w, b: t.nn.functional.bilinear(x1, x2, w, b),
         [X1, X2, W, BIAS], grad_fn="AddBackward0", id="bilinear"),
    Case("_trilinear", lambda t, x1, x2, w: t.nn.functional.bilinear(x1, x2, w),
         [X1, X2, W], grad_fn="ViewBackward0", id="bilinear_no_bias"),
    Case("_trilinear", lambda t, x1, x2, w, b: t.nn.functional.bilinear(x1[0], x2[1], w, b),
         [X1, X2, W, BIAS], id="bilinear_1d"),
    Case("_trilinear", lambda t, x1, x2, w: t.nn.functional.bilinear(
        x1.reshape(2, 2, 3).transpose(0, 1), x2.reshape(2, 2, 5), w), [X1, X2, W],
         id="bilinear_3d_non_contiguous"),
]

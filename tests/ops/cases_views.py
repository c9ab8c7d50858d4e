"""Cases for agdebug/ops/core/inplace_views.py: in-place ops written through views (see harness.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3))
W = rng.standard_normal(3)


def base_after_view_mul(t, x, w):
    y = x * 1
    y[0].mul_(w)            # y becomes CopySlices; its backward runs copy_slices_region
    return y


def view_after_view_mul(t, x):
    y = x * 1
    v = y[:, 1:]
    v.mul_(x[:, :2])        # v becomes AsStridedBackward0 over y's CopySlices
    return v


CASES = [
    Case("copy_slices_region", base_after_view_mul, [A, W]),
    Case("as_strided_region", view_after_view_mul, [A]),
]

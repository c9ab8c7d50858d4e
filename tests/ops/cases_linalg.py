"""Cases for agdebug/ops/linalg.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(4)
V = rng.standard_normal(3)
X = rng.standard_normal((2, 3))
W = rng.standard_normal((3, 4))
B3 = rng.standard_normal((2, 2, 3))
B3T = rng.standard_normal((2, 3, 4))
B4 = rng.standard_normal((2, 1, 2, 3))
BIAS = rng.standard_normal(4)

CASES = [
    Case("dot", lambda t, a, b: a @ b, [V, V * 2], grad_fn="DotBackward0"),
    Case("dot", lambda t, a: t.dot(a, a), [V], id="dot_same_input"),
    Case("mv", lambda t, a, v: a @ v, [X, V], grad_fn="MvBackward0"),
    Case("mv", lambda t, a, v: t.mv(a, v), [X, V], id="mv_function"),
    Case("squeeze_matmul", lambda t, v, w: v @ w, [V, W], grad_fn="SqueezeBackward4"),
    Case("mm", lambda t, a, w: a @ w, [X, W], grad_fn="MmBackward0"),
    Case("mm", lambda t, a, w: t.mm(a, w), [X, W], id="mm_function"),
    Case("mm", lambda t, b, w: b @ w, [B3, W], grad_fn="UnsafeViewBackward0", id="matmul_3d_2d"),
    Case("mm", lambda t, b, w: b @ w, [B4, W], id="matmul_4d_2d"),
    Case("mm", lambda t, a, b: a @ b, [X, B3T], grad_fn="CloneBackward0", id="matmul_2d_3d"),
    Case("mv", lambda t, b, v: b @ v, [B3, V], grad_fn="UnsafeViewBackward0", id="matmul_3d_1d"),
    Case("mv", lambda t, v, b: v @ b, [V, B3T], grad_fn="UnsafeViewBackward0", id="matmul_1d_3d"),
    Case("bmm", lambda t, a, b: t.bmm(a, b), [B3, B3T], grad_fn="BmmBackward0"),
    Case("bmm", lambda t, a, b: a @ b, [B3, B3T], grad_fn="UnsafeViewBackward0",
         id="matmul_3d_3d"),
    Case("bmm", lambda t, a, b: a @ b, [B4, B3T], id="matmul_broadcast_batch"),
    Case("bmm", lambda t, a, b: a.detach() @ b, [X, B3T], grad_fn="UnsafeViewBackward0",
         id="matmul_2d_3d_unfolded", numeric=False),
    Case("bmm", lambda t, a, b: a.transpose(1, 2) @ b.detach(), [B3T, W],
         grad_fn="UnsafeViewBackward0", id="matmul_noncontiguous_unfolded", numeric=False),
    # The bias comes last: its gradient is constant, and harness.analytic_second skips
    # constant gradients without drawing their random projection.
    Case("addmm", lambda t, x, w, b: t.addmm(b, x, w), [X, W, BIAS], grad_fn="AddmmBackward0"),
    Case("addmm", lambda t, x, w, b: b.addmm(x, w, beta=0.5, alpha=2.0), [X, W, BIAS],
         id="addmm_beta_alpha"),
    Case("mul", lambda t, a, b: t.outer(a, b), [V, BIAS], id="outer"),
]

"""Cases for agdebug/ops/linalg/products.py (see harness.py for the format)."""

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

# ----------------------------------------------------------------------------- matrix.py
SQ = rng.standard_normal((3, 3))
B34 = rng.standard_normal((2, 3, 4))

CASES += [
    Case("diagonal", lambda t, a: a.diagonal(), [X], grad_fn="DiagonalBackward0"),
    Case("diagonal", lambda t, a: t.diagonal(a, 1, 2, 0), [B34], id="diagonal_offset_dims"),
    Case("diagonal", lambda t, a: a.diagonal(-1, -1, -2) * a.diagonal(-1, -1, -2),
         [B34], id="diagonal_negative_offset_squared"),
    # diagonal's derivative (DiagonalBackwardBackward0) and its derivative: x.diagonal() ** 2.
    Case("diagonal_backward", lambda t, a: a.diagonal(1) ** 2, [SQ], id="diagonal_backward"),
    Case("diagonal_copy", lambda t, a: t.diag(a, -1), [X], grad_fn="DiagonalBackward0_copy"),
    Case("diag_embed", lambda t, v: t.diag(v), [V], grad_fn="DiagEmbedBackward0"),
    Case("diag_embed", lambda t, v: t.diag(v, -2) ** 2, [V], id="diag_offset"),
    Case("diag_embed", lambda t, a: t.diag_embed(a, 1, 0, 2), [X], id="diag_embed_dims"),
    Case("diag_embed", lambda t, a: t.diagflat(a, 1), [X], id="diagflat"),
    Case("trace", lambda t, a: a.trace() ** 2, [X], grad_fn="PowBackward0"),
    Case("trace", lambda t, a: t.trace(a), [SQ], grad_fn="TraceBackward0", id="trace_square"),
    Case("tril", lambda t, a: a.tril() ** 2, [X]),
    Case("tril", lambda t, a: t.tril(a, -1), [B34], grad_fn="TrilBackward0", id="tril_batched"),
    Case("triu", lambda t, a: a.triu(1) ** 2, [B34]),
    Case("triu", lambda t, a: (a * 1).triu_(-1), [X], grad_fn="TriuBackward0", id="triu_"),
    Case("tril", lambda t, a: (a * 1).tril_(2), [X], grad_fn="TrilBackward0", id="tril_"),
    Case("block_diag", lambda t, a, v, s: t.block_diag(a, v, s) ** 2,
         [X, V, np.array(1.5)]),
    Case("block_diag", lambda t, a, b: t.block_diag(a, b), [X, SQ],
         grad_fn="BlockDiagBackward0", id="block_diag_matrices"),
    Case("unsafe_view", lambda t, a, b: t.kron(a, b) ** 2, [X, V], id="kron"),
    Case("unsafe_view", lambda t, a, b: t.kron(a, b), [B34, X], grad_fn="UnsafeViewBackward0",
         id="kron_3d_2d"),
]

# ----------------------------------------------------------------------------- blas.py
V4 = rng.standard_normal(4)
B45 = rng.standard_normal((2, 4, 5))
M35 = rng.standard_normal((3, 5))

# The added input comes last (see the addmm note above).
CASES += [
    Case("addmv", lambda t, m, v, b: t.addmv(b, m, v), [X, V, V[:2]], grad_fn="AddmvBackward0"),
    Case("addmv", lambda t, m, v, b: b.addmv(m, v, beta=0.5, alpha=2.0), [X, V, V[:1]],
         id="addmv_broadcast_beta_alpha"),
    Case("addr", lambda t, v, w, b: t.addr(b, v, w), [V, V4, W], grad_fn="AddrBackward0"),
    Case("addr", lambda t, v, w, b: b.addr(v, w, beta=-1.0, alpha=3.0), [V, V4, V4],
         id="addr_broadcast_beta_alpha"),
    Case("baddbmm", lambda t, a, b, c: t.baddbmm(c, a, b), [B34, B45, M35],
         grad_fn="BaddbmmBackward0"),
    Case("baddbmm", lambda t, a, b, c: c.baddbmm(a, b, beta=2.0, alpha=0.5),
         [B34, B45, M35[None]], id="baddbmm_beta_alpha"),
    Case("addbmm", lambda t, a, b, c: t.addbmm(c, a, b), [B34, B45, M35],
         grad_fn="AddbmmBackward0"),
    Case("addbmm", lambda t, a, b, c: c.addbmm(a, b, beta=0.5, alpha=-2.0), [B34, B45, BIAS[:1]],
         id="addbmm_broadcast_beta_alpha"),
]

# ----------------------------------------------------------------------------- distance.py
P43 = rng.standard_normal((4, 3))
Q23 = rng.standard_normal((2, 1, 3))
R34 = rng.standard_normal((3, 4))
S54 = rng.standard_normal((5, 4))
BIG = rng.standard_normal((27, 2))   # more than 25 points: torch's matrix-product path

CASES += [
    Case("linalg_cross", lambda t, a, b: t.cross(a, b, dim=1), [P43, P43[::-1].copy()],
         grad_fn="LinalgCrossBackward0"),
    Case("linalg_cross", lambda t, a, b: t.linalg.cross(a, b) ** 2, [Q23, P43[None]],
         id="linalg_cross_broadcast"),
    Case("dist", lambda t, a, b: t.dist(a, b), [X, X[::-1].copy()], grad_fn="DistBackward0"),
    Case("dist", lambda t, a, b: t.dist(a, b, 1), [X, V], id="dist_p1_broadcast"),
    Case("dist", lambda t, a, b: a.dist(b, 3.5), [X, V * 2], id="dist_p3_5"),
    Case("dist", lambda t, a, b: a.dist(b, float("inf")), [X, V], id="dist_inf"),
    Case("dist", lambda t, a, b: a.dist(b, -float("inf")), [X, V], id="dist_minus_inf"),
    Case("cdist", lambda t, a, b: t.cdist(a, b), [R34, S54], grad_fn="CdistBackward0"),
    Case("cdist", lambda t, a, b: t.cdist(a, b, p=1), [R34, S54], id="cdist_p1"),
    Case("cdist", lambda t, a, b: t.cdist(a, b, p=3), [B34, S54[None]], id="cdist_p3_batched"),
    Case("cdist", lambda t, a, b: t.cdist(a, b, p=float("inf")), [R34, S54], id="cdist_inf"),
    Case("euclidean_dist", lambda t, a, b: t.cdist(a, b), [BIG, BIG[:3] + 0.5],
         grad_fn="ViewBackward0"),
]

# ----------------------------------------------------------------------------- contract.py
# einsum/tensordot/inner/multi_dot register no op of their own: they are checked as the
# ops they decompose into, and their graphs against torch's.
Q = rng.standard_normal((1, 2, 3, 2))
K = rng.standard_normal((1, 2, 4, 2))

CASES += [
    Case("bmm", lambda t, a, b: t.einsum("ij,jk->ik", a, b), [X, W], grad_fn="ViewBackward0",
         id="einsum_mm"),
    Case("bmm", lambda t, a, b: t.einsum("bij,bjk->bik", a, b), [B3, B3T], id="einsum_bmm"),
    Case("bmm", lambda t, q, k: t.einsum("bhqd,bhkd->bhqk", q, k) ** 2, [Q, K],
         id="einsum_attention"),
    Case("bmm", lambda t, a, b: t.einsum("i,i->", a, b), [V, V * 3], id="einsum_dot"),
    Case("bmm", lambda t, a, b, c: t.einsum("ij,jk,k->i", a, b, c), [X, W, V4],
         id="einsum_three"),
    Case("diagonal", lambda t, a: t.einsum("ii->i", a) ** 2, [SQ], id="einsum_diagonal"),
    Case("sum_dim", lambda t, a: t.einsum("bii", a) ** 2, [rng.standard_normal((2, 3, 3))],
         id="einsum_trace_implicit"),
    Case("mul", lambda t, a, b: t.einsum("i,j->ij", a, b), [V, V4], id="einsum_outer"),
    Case("mm", lambda t, a, b: t.tensordot(a, b, dims=([1, 2], [1, 0])) ** 2,
         [B34, rng.standard_normal((4, 3, 2))], id="tensordot"),
    Case("dot", lambda t, a, b: t.tensordot(a, b), [X, X * 2], id="tensordot_full"),
    Case("mm", lambda t, a, b: t.inner(a, b), [X, rng.standard_normal((4, 3))], id="inner"),
    Case("mm", lambda t, a, b, c, d: t.linalg.multi_dot([a, b, c, d]) ** 2,
         [V, W, R34.T.copy(), V * 2], id="multi_dot"),
]

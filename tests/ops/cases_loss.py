"""Cases for agdebug/ops/nn/loss_pieces.py (see harness.py): the single-node losses, the pieces torch's
composite losses and helpers record (ClampMinBackward0, NormBackward1, AddBackward1,
SubBackward1, the pads), and those composites, checked for their graphs.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((3, 4))
B = A + np.array([0.3, -1.7, 0.6, 2.4])      # differences away from beta/delta = 1, 0.5
SIGNS = np.array([[1.0, -1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0]])
POS = rng.uniform(0.5, 2.0, (3, 4))
COUNTS = np.array([[0.0, 1.0, 3.0, 2.0], [5.0, 0.0, 1.0, 4.0], [2.0, 7.0, 0.0, 1.0]])
ROW = rng.standard_normal((2, 3, 5))
CUBE = rng.standard_normal((1, 2, 3, 4, 4))
NEG = rng.standard_normal((3, 4))


def F(t):
    return t.nn.functional


def _c(t, a):
    return t.tensor(a)   # a constant (float64) that requires no grad


CASES = [
    Case("smooth_l1_loss", lambda t, x, y: F(t).smooth_l1_loss(x, y), [A, B]),
    Case("smooth_l1_loss", lambda t, x, y: F(t).smooth_l1_loss(x, y, reduction="none",
                                                               beta=0.5), [A, B],
         id="smooth_l1_loss_none_beta"),
    Case("abs", lambda t, x, y: F(t).smooth_l1_loss(x, y, beta=0.0), [A, B],
         id="smooth_l1_loss_beta0", grad_fn="MeanBackward0"),
    Case("huber_loss", lambda t, x, y: F(t).huber_loss(x, y, delta=0.5), [A, B]),
    Case("huber_loss", lambda t, x, y: F(t).huber_loss(x, y, reduction="sum"), [A, B],
         id="huber_loss_sum"),
    Case("huber_loss", lambda t, x, y, w: F(t).huber_loss(x, y, weight=w), [A, B, POS],
         id="huber_loss_weight"),
    Case("soft_margin_loss", lambda t, x: F(t).soft_margin_loss(x, _c(t, SIGNS)), [A]),
    Case("soft_margin_loss", lambda t, x: F(t).soft_margin_loss(x * 20, _c(t, SIGNS),
                                                               reduction="none"), [A],
         id="soft_margin_loss_none_large"),
    Case("abs", lambda t, x, y: F(t).l1_loss(x, y), [A, B], id="l1_loss"),
    Case("abs", lambda t, x, y, w: F(t).l1_loss(x, y, weight=w), [A, B, POS],
         id="l1_loss_weight", grad_fn="DivBackward0"),
    Case("sub", lambda t, x, y: F(t).kl_div(x, y.softmax(1), reduction="batchmean"),
         [A, B], id="kl_div_batchmean", grad_fn="DivBackward0"),
    Case("sub", lambda t, x: F(t).kl_div(x, _c(t, POS / 4)), [A], id="kl_div_mean"),
    Case("mul", lambda t, x, y: F(t).kl_div(x, y, log_target=True, reduction="none"), [A, B],
         id="kl_div_log_target"),
    Case("exp", lambda t, x: F(t).poisson_nll_loss(x, _c(t, COUNTS)), [A],
         id="poisson_nll_loss"),
    Case("log", lambda t, x: F(t).poisson_nll_loss(x, _c(t, COUNTS), log_input=False,
                                                   full=True, reduction="sum"), [POS],
         id="poisson_nll_loss_full"),
    Case("log", lambda t, x, y, v: F(t).gaussian_nll_loss(x, y, v), [A, B, POS],
         id="gaussian_nll_loss"),
    Case("log", lambda t, x, y, v: F(t).gaussian_nll_loss(x, y, v[:, 0], full=True,
                                                          reduction="none"), [A, B, POS],
         id="gaussian_nll_loss_homoscedastic"),
    Case("add_scalar", lambda t, x, y: F(t).margin_ranking_loss(x[0], y[0], _c(t, SIGNS[0]),
                                                                margin=0.2), [A, B],
         id="margin_ranking_loss"),
    Case("clamp_min", lambda t, x: F(t).hinge_embedding_loss(x, _c(t, SIGNS)), [A],
         id="hinge_embedding_loss"),
    Case("sub_scalar", lambda t, x, y: F(t).cosine_embedding_loss(
        x, y, _c(t, np.array([1.0, -1.0, -1.0])), margin=-0.5), [A, B],
        id="cosine_embedding_loss"),
    Case("norm_p_dim", lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=3.0),
         [A, B, NEG], id="triplet_margin_loss"),
    Case("norm_p_dim", lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=3.0, p=1,
                                                                   swap=True),
         [A, B, NEG], id="triplet_margin_loss_swap"),
    Case("logsigmoid", lambda t, x: F(t).multilabel_soft_margin_loss(x, _c(t, (SIGNS > 0) * 1.0)),
         [A], id="multilabel_soft_margin_loss"),
    # helpers
    Case("clamp_min", lambda t, x: F(t).normalize(x), [A], id="normalize"),
    Case("clamp_min", lambda t, x: F(t).normalize(x, p=1.0, dim=0), [A],
         id="normalize_p1_dim0"),
    Case("norm", lambda t, x, y: F(t).cosine_similarity(x, y), [A, B], id="cosine_similarity"),
    Case("norm_p_dim", lambda t, x, y: F(t).pairwise_distance(x, y), [A, B]),
    Case("norm_p_dim", lambda t, x, y: F(t).pairwise_distance(x[0], y[0], p=3.0, keepdim=True),
         [A, B], id="pairwise_distance_1d_p3"),
    Case("constant_pad_nd", lambda t, x: F(t).pad(x, (1, 2)), [A]),
    Case("constant_pad_nd", lambda t, x: F(t).pad(x, (-1, 2, 1, 0), value=3.0), [A],
         id="constant_pad_nd_crop_value"),
    Case("reflection_pad1d", lambda t, x: F(t).pad(x, (2, 3), mode="reflect"), [ROW]),
    Case("reflection_pad2d", lambda t, x: F(t).pad(x, (1, 3, 2, 0), mode="reflect"), [ROW]),
    Case("reflection_pad3d", lambda t, x: F(t).pad(x, (1, 2, 0, 1, 1, 1), mode="reflect"),
         [CUBE]),
    Case("replication_pad1d", lambda t, x: F(t).pad(x, (2, 3), mode="replicate"), [ROW]),
    Case("replication_pad2d", lambda t, x: F(t).pad(x, (1, 3, 2, 0), mode="replicate"),
         [ROW]),
    Case("replication_pad3d", lambda t, x: F(t).pad(x, (3, 0, 0, 1, 2, 1), mode="replicate"),
         [CUBE]),
]

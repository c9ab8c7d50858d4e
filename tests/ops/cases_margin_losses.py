"""Cases for agdebug/ops/nn/margin_losses.py and agdebug/ops/nn/affine_grid.py (see harness.py).

torch has no second derivative for multi_margin_loss, multilabel_margin_loss,
embedding_bag's max mode... ("derivative for aten::..._backward is not implemented"): those
cases set ``second_order=False``; agdebug's own second derivative of multi_margin_loss (p=2)
is checked numerically in tests/nn/test_loss2_parity.py.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(23)
X = rng.standard_normal((3, 4))
CLASSES = np.array([1, 0, 3])
WEIGHT = rng.uniform(0.5, 2.0, 4)
LABELS = np.array([[1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]])


def F(t):
    return t.nn.functional


def _c(t, a):
    return t.tensor(a)


CASES = [
    # torch: "derivative for aten::multi_margin_loss_backward is not implemented"
    Case("multi_margin_loss", lambda t, x: F(t).multi_margin_loss(x, _c(t, CLASSES)), [X],
         second_order=False),
    Case("multi_margin_loss", lambda t, x: F(t).multi_margin_loss(
        x, _c(t, CLASSES), p=2, margin=0.8, weight=_c(t, WEIGHT), reduction="none"), [X],
        second_order=False, id="multi_margin_loss_p2_weight_none"),
    Case("multi_margin_loss", lambda t, x: F(t).multi_margin_loss(
        x[1], _c(t, CLASSES[2]), reduction="sum"), [X], second_order=False,
        id="multi_margin_loss_unbatched"),
    # torch: "derivative for aten::multilabel_margin_loss_backward is not implemented"
    Case("multilabel_margin_loss", lambda t, x: F(t).multilabel_margin_loss(
        x, _c(t, LABELS)), [X], second_order=False),
    Case("multilabel_margin_loss", lambda t, x: F(t).multilabel_margin_loss(
        x * 0.3, _c(t, LABELS), reduction="none"), [X], second_order=False,
        id="multilabel_margin_loss_none"),
    Case("multilabel_margin_loss", lambda t, x: F(t).multilabel_margin_loss(
        x[0] * 0.3, _c(t, LABELS[2]), reduction="sum"), [X], second_order=False,
        id="multilabel_margin_loss_unbatched"),
]

W = rng.standard_normal((6, 3))
IDX = np.array([1, 2, 4, 5, 4, 3, 0])
PSW = rng.uniform(0.5, 1.5, 7)
STARTS = np.array([0, 2, 2, 5])


def _bag(t, w, mode="mean", psw=None, **kw):
    return F(t).embedding_bag(_c(t, IDX), w, _c(t, STARTS), mode=mode, per_sample_weights=psw,
                              **kw)


CASES += [
    # torch's EmbeddingBagBackward0 gives gradients with no graph (its backward is not
    # differentiable): second order is checked against differences in test_loss2_parity.py
    Case("embedding_bag", lambda t, w: _bag(t, w), [W], second_order=False),
    Case("embedding_bag", lambda t, w, p: _bag(t, w, "sum", p, padding_idx=4), [W, PSW],
         second_order=False, id="embedding_bag_sum_weights_padding"),
    Case("embedding_bag", lambda t, w: _bag(t, w, "max", include_last_offset=True), [W],
         second_order=False, id="embedding_bag_max_last_offset"),
    Case("embedding_bag", lambda t, w: F(t).embedding_bag(_c(t, IDX[:6].reshape(2, 3)), w,
                                                          mode="sum", scale_grad_by_freq=True),
         [W], numeric=False, id="embedding_bag_2d_freq"),   # (scaled: not the derivative)
]

THETA = rng.standard_normal((2, 2, 3))

CASES += [
    Case("affine_grid", lambda t, th: F(t).affine_grid(th, (2, 1, 3, 4), align_corners=False),
         [THETA]),
    Case("affine_grid", lambda t, th: F(t).affine_grid(th, [2, 5, 4, 1], align_corners=True),
         [THETA], id="affine_grid_align_corners_unit_width"),
]

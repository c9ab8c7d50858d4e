"""Cases for agdebug/ops/loss2.py and agdebug/ops/sampling.py (see harness.py).

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

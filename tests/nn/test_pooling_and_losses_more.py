"""Power-average pooling (F.lp_pool1d/2d/3d, nn.LPPool*), nn.Softmax2d and the triplet loss with
any distance against torch: values, node names and gradients (finite and infinite norms, strides,
ceil mode), errors and reprs."""

from __future__ import annotations

import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads, leaf

POSITIVE = {"x": "(" + leaf(2, 3, 8) + " + 1.5).detach().requires_grad_()"}
IMAGE = {"x": "(" + leaf(1, 2, 6, 6) + " + 1.5).detach().requires_grad_()"}
VOLUME = {"x": "(" + leaf(1, 2, 4, 4, 4) + " + 1.5).detach().requires_grad_()"}

CASES = [
    ("F.lp_pool1d(x, 2, 2)", POSITIVE), ("F.lp_pool1d(x, 3, 3, 2)", POSITIVE),
    ("F.lp_pool1d(x, 1.5, 3, 2, True)", POSITIVE),
    ("F.lp_pool1d(x, float('inf'), 2)", POSITIVE), ("F.lp_pool1d(x, -float('inf'), 2)", POSITIVE),
    ("F.lp_pool2d(x, 2, 2)", IMAGE), ("F.lp_pool2d(x, 2, (2, 3), 1)", IMAGE),
    ("F.lp_pool2d(x, float('inf'), 3)", IMAGE), ("F.lp_pool3d(x, 2, 2)", VOLUME),
    ("lib.nn.LPPool1d(2, 3, 1)(x)", POSITIVE), ("lib.nn.LPPool2d(2.0, 2)(x)", IMAGE),
    ("lib.nn.LPPool3d(3, (2, 2, 1))(x)", VOLUME),
    ("lib.nn.Softmax2d()(x)", IMAGE), ("lib.nn.Softmax2d()(x[0])", IMAGE),
]


@pytest.mark.parametrize("expr,setup", CASES, ids=[c[0] for c in CASES])
def test_lp_pool_and_softmax2d_match_torch(torch, expr, setup):
    assert_same_with_grads(torch, expr, setup)


def test_softmax2d_refuses_other_ranks_as_torch_does(torch):
    assert_same_as_torch(torch, "lib.nn.Softmax2d()(lib.ones(2, 3))")


def test_lp_pool_module_reprs_match_torch(torch):
    for make in ("LPPool1d(2, 3, 1)", "LPPool2d(2.0, (2, 3))", "LPPool3d(3, 2, ceil_mode=True)",
                 "Softmax2d()"):
        assert repr(eval(f"lib.nn.{make}", {"lib": ag})) == \
            repr(eval(f"lib.nn.{make}", {"lib": torch}))


# ----------------------------------------------------------------------------- triplet + distance

TRIPLET = {"a": leaf(4, 5), "p": leaf(4, 5, step=0.29), "n": leaf(4, 5, step=0.53)}
TRIPLET_CASES = [
    "F.triplet_margin_with_distance_loss(a, p, n)",
    "F.triplet_margin_with_distance_loss(a, p, n, margin=0.3, swap=True, reduction='sum')",
    "F.triplet_margin_with_distance_loss(a, p, n, reduction='none', "
    "distance_function=lambda x, y: 1 - F.cosine_similarity(x, y))",
    "lib.nn.TripletMarginWithDistanceLoss()(a, p, n)",
    "lib.nn.TripletMarginWithDistanceLoss(distance_function=lib.nn.PairwiseDistance(p=1), "
    "swap=True)(a, p, n)",
    "F.triplet_margin_with_distance_loss(a, p, n, reduction='avg')",
    "F.triplet_margin_with_distance_loss(a, p, n, margin=0)",
    "F.triplet_margin_with_distance_loss(a, p, n[0])",
    "lib.nn.TripletMarginWithDistanceLoss(margin=-1.0)",
]


@pytest.mark.parametrize("expr", TRIPLET_CASES)
def test_triplet_margin_with_distance_loss_matches_torch(torch, expr):
    assert_same_with_grads(torch, expr, TRIPLET)


def test_triplet_with_distance_module_repr_matches_torch(torch):
    assert repr(ag.nn.TripletMarginWithDistanceLoss()) == \
        repr(torch.nn.TripletMarginWithDistanceLoss())

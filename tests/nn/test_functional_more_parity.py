"""torch.nn.functional's further activations, losses and helpers, and their modules, against
torch: dtypes, argument variants, empty tensors, errors, warnings and graphs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..torch_parity import assert_same_as_torch

X = "lib.tensor([[-3.5, -0.7, 0.2, 0.8], [1.3, -2.2, 4.5, 0.45]], requires_grad=True)"
Y = "lib.tensor([[-1.5, 0.3, 0.9, -0.8], [2.0, -2.0, 1.5, 0.0]])"
SETUP = {"x": X, "y": Y, "i": "lib.tensor([-2, 0, 3, 7])", "b": "lib.tensor([True, False])",
         "e": "lib.ones(0, 4, requires_grad=True)", "s": "lib.tensor([1.0, -1.0, 1.0, 1.0])"}

ACTIVATIONS = [
    # values, dtypes and nodes, with the arguments torch takes
    "F.hardtanh(x)", "F.hardtanh(x, -2.0, 0.5)", "F.hardtanh(x, min_val=0.0, max_val=0.0)",
    "F.hardtanh(i)", "F.hardtanh(i, -0.5, 2.5)", "F.hardtanh(b)", "F.hardtanh(x, 2.0, 1.0)",
    "F.hardtanh(x * 1, inplace=True)", "F.hardtanh_(x * 1, 0.0, 1.0)", "F.hardtanh(e)",
    "F.relu6(x * 3)", "F.relu6(i)", "F.relu6(x * 3, inplace=True)", "F.relu6(b)",
    "F.softsign(x)", "F.softsign(i)", "F.softsign(e)",
    "F.selu(x)", "F.selu(x * 1, inplace=True)", "F.selu(i)", "F.selu(e)",
    "F.celu(x)", "F.celu(x, 0.5)", "F.celu(x * 1, 2.0, inplace=True)", "F.celu(x, 0.0)",
    "F.celu(i)",
    "F.elu(x * 1, 0.5, inplace=True)", "F.elu_(x * 1)", "F.leaky_relu(x * 1, 0.3, True)",
    "F.leaky_relu_(x * 1)", "F.leaky_relu_(i)",
    "F.logsigmoid(x)", "F.logsigmoid(x * 100)", "F.logsigmoid(x * -100)", "F.logsigmoid(i)",
    "F.softmin(x, 1)", "F.softmin(x, dim=-2)", "F.softmin(x)", "F.softmin(x, 0, dtype=lib.float64)",
    "F.softmin(i, 0)", "F.softmin(i, 0, dtype=lib.float64)",
    "F.glu(x)", "F.glu(x, 0)", "F.glu(x, -2)", "F.glu(x[:, :3])", "F.glu(lib.tensor(1.0))",
    "F.glu(x, 2)", "F.glu(lib.ones(2, 4, dtype=lib.int64))", "F.glu(e)",
    "F.hardswish(x)", "F.hardswish(x * 1, inplace=True)", "F.hardswish(i)",
    "F.hardsigmoid(x)", "F.hardsigmoid(x * 1, True)", "F.hardsigmoid(i)",
    "F.mish(x)", "F.mish(x * 1, inplace=True)", "F.mish(i)",
    "F.threshold(x, 0.1, 20.0)", "F.threshold(x * 1, 0.1, 20.0, inplace=True)",
    "F.threshold_(x * 1, 0.5, -1.0)", "F.threshold(i, 1, 5)", "F.threshold(i, 0.5, 5.5)",
    "F.threshold(b, 0, 1)", "F.threshold(e, 0.0, 1.0)",
    "F.softshrink(x)", "F.softshrink(x, 1.0)", "F.softshrink(x, -1.0)", "F.softshrink(i)",
    "F.softshrink(x.double(), -1.0)",
    "F.hardshrink(x)", "F.hardshrink(x, 1.0)", "F.hardshrink(x, -1.0)", "F.hardshrink(i)",
    "F.tanhshrink(x)", "F.tanhshrink(i)",
    "F.prelu(x, lib.tensor([0.25]))", "F.prelu(x.reshape(2, 2, 2), lib.tensor([0.1, -0.2]))",
    "F.prelu(x, lib.tensor(0.2))", "F.prelu(x[0], lib.tensor([0.3]))",
    "F.prelu(x, lib.ones(2))", "F.prelu(x[0], lib.ones(4))", "F.prelu(x, lib.ones(1, 4))",
    "F.prelu(i, lib.tensor([1]))", "F.prelu(lib.tensor(-1.0), lib.ones(1) * 0.25)",
    "F.prelu(x.double(), lib.tensor([0.25]))", "F.prelu(x, lib.ones(1, 4).double())",
    "F.prelu(x.half(), lib.tensor([0.25]))", "lib.prelu(x.double(), lib.tensor([0.25]))",
    "F.rrelu(x)", "F.rrelu(x, 0.2, 0.4)", "F.rrelu(x * 1, inplace=True)", "F.rrelu(i)",
    "F.rrelu(x, training=False)",
]

LOSSES = [
    "F.l1_loss(x, y)", "F.l1_loss(x, y, reduction='sum')", "F.l1_loss(x, y, reduction='none')",
    "F.l1_loss(x, y[0])", "F.l1_loss(x, y[:, :3])", "F.l1_loss(x, y, reduction='foo')",
    "F.l1_loss(i, i)", "F.l1_loss(i, i, reduction='sum')", "F.l1_loss(x, i[None].double())",
    "F.l1_loss(x, y, weight=lib.ones(2, 4))", "F.l1_loss(x, y, weight=lib.ones(4))",
    "F.l1_loss(x, y, size_average=False)", "F.l1_loss(x, y, reduce=False)",
    "F.l1_loss(e, e)", "F.l1_loss(e, e, reduction='sum')",
    "F.smooth_l1_loss(x, y)", "F.smooth_l1_loss(x, y, beta=0.5, reduction='none')",
    "F.smooth_l1_loss(x, y, beta=0.0)", "F.smooth_l1_loss(x, y, beta=-1.0)",
    "F.smooth_l1_loss(i, i)", "F.smooth_l1_loss(i, y[0])", "F.smooth_l1_loss(x, y[0])",
    "F.smooth_l1_loss(x, y[:, :3])", "F.smooth_l1_loss(x, y, reduction='foo')",
    "F.smooth_l1_loss(e, e)", "F.smooth_l1_loss(x, y.double())",
    "F.huber_loss(x, y)", "F.huber_loss(x, y, delta=0.5, reduction='sum')",
    "F.huber_loss(x, y, delta=0.0)", "F.huber_loss(i, i)", "F.huber_loss(x, y.double())",
    "F.huber_loss(x, y, weight=lib.ones(2, 4) * 2)", "F.huber_loss(x, y, weight=lib.ones(4))",
    "F.huber_loss(x, y, reduction='foo')",
    "F.kl_div(x, y.abs())", "F.kl_div(x, y.abs(), reduction='batchmean')",
    "F.kl_div(x, y.abs(), reduction='none')", "F.kl_div(x, y, log_target=True)",
    "F.kl_div(x, y.abs(), reduction='sum')", "F.kl_div(x[0, 0], y[0, 0].abs(), "
    "reduction='batchmean')", "F.kl_div(x, y.abs(), reduction='foo')",
    "F.kl_div(x, y.abs(), reduce=False)",
    "F.poisson_nll_loss(x, y.abs())", "F.poisson_nll_loss(x.abs(), y.abs(), log_input=False)",
    "F.poisson_nll_loss(x, y.abs() * 3, full=True, reduction='none')",
    "F.poisson_nll_loss(x, y.abs(), reduction='foo')",
    "F.gaussian_nll_loss(x, y, lib.ones(2, 4))", "F.gaussian_nll_loss(x, y, lib.ones(2))",
    "F.gaussian_nll_loss(x, y, lib.ones(2, 1) * 0.5, full=True, reduction='sum')",
    "F.gaussian_nll_loss(x, y, lib.ones(3))", "F.gaussian_nll_loss(x, y, -lib.ones(2, 4))",
    "F.gaussian_nll_loss(x, y, 0.5)", "F.gaussian_nll_loss(x, y, -0.5)",
    "F.gaussian_nll_loss(x, y, lib.zeros(2, 4), reduction='none')",
    "F.gaussian_nll_loss(x, y, lib.ones(2, 4), reduction='foo')",
    "F.margin_ranking_loss(x[0], x[1], s)", "F.margin_ranking_loss(x[0], y[1], s, margin=0.5, "
    "reduction='none')", "F.margin_ranking_loss(x, y[1], s)",
    "F.margin_ranking_loss(x[0], y[1], s, reduction='foo')",
    "F.hinge_embedding_loss(x, s)", "F.hinge_embedding_loss(x, y.sign(), margin=2.0, "
    "reduction='sum')", "F.hinge_embedding_loss(x, s, reduction='none')",
    "F.soft_margin_loss(x, y.sign())", "F.soft_margin_loss(x, s, reduction='none')",
    "F.soft_margin_loss(x, y.sign().requires_grad_())", "F.soft_margin_loss(x, s.double())",
    "F.cosine_embedding_loss(x, y, lib.tensor([1.0, -1.0]))",
    "F.cosine_embedding_loss(x[0], y[0], lib.tensor(-1.0), margin=-0.5)",
    "F.cosine_embedding_loss(x, y, lib.tensor([1.0, -1.0]), reduction='none')",
    "F.cosine_embedding_loss(x, y, lib.ones(2, 1))", "F.cosine_embedding_loss(x, y, s[0])",
    "F.cosine_embedding_loss(x[0], y[0], s[:2])",
    "F.triplet_margin_loss(x, y, y.flip(0))", "F.triplet_margin_loss(x, y, -y, swap=True, p=1)",
    "F.triplet_margin_loss(x, y, y[0])", "F.triplet_margin_loss(x[0], y[0], -y[0], "
    "reduction='none')",
    "F.multilabel_soft_margin_loss(x, (y > 0).float())",
    "F.multilabel_soft_margin_loss(x, (y > 0).float(), weight=lib.ones(4) * 2, "
    "reduction='none')", "F.multilabel_soft_margin_loss(x, y, reduction='foo')",
]

HELPERS = [
    "F.normalize(x)", "F.normalize(x, dim=0)", "F.normalize(x, p=1.0, dim=-1)",
    "F.normalize(lib.zeros(2, 3, requires_grad=True))", "F.normalize(e)", "F.normalize(x, dim=2)",
    "F.cosine_similarity(x, y)", "F.cosine_similarity(x, y, dim=0)",
    "F.cosine_similarity(x, y[0])", "F.cosine_similarity(x, lib.zeros(2, 4))",
    "F.cosine_similarity(x[0], y[0], dim=0)",
    "F.pairwise_distance(x, y)", "F.pairwise_distance(x, y, p=1.0, keepdim=True)",
    "F.pairwise_distance(x[0], y[0])", "F.pairwise_distance(x, y[0], eps=0.0)",
    "F.one_hot(lib.tensor([0, 2, 1]))", "F.one_hot(lib.tensor([[0], [3]]), 5)",
    "F.one_hot(lib.tensor(1), 3)", "F.one_hot(lib.tensor([0, 3]), 3)",
    "F.one_hot(lib.tensor([-1, 0]))", "F.one_hot(lib.tensor([0.0, 1.0]))",
    "F.one_hot(lib.tensor([], dtype=lib.int64))",
    "F.one_hot(lib.tensor([], dtype=lib.int64), 4)",
    "F.pad(x, (1, 2))", "F.pad(x, (1, 2, 0, 1), value=-1.5)", "F.pad(x, [-1, 1])",
    "F.pad(i, (2, 0), value=7)", "F.pad(b, (1, 1))", "F.pad(x, (1,))", "F.pad(x, (1, 1) * 3)",
    "F.pad(x[None], (2, 3), mode='reflect')", "F.pad(x, (2, 3), mode='reflect')",
    "F.pad(x[None, None], (1, 2, 1, 0), mode='reflect')",
    "F.pad(x[None], (4, 0), mode='reflect')", "F.pad(x[None], (1, 1), mode='reflect', value=1.0)",
    "F.pad(x[None], (2, 5), mode='replicate')", "F.pad(x[None, None], (1, 2, 3, 0), "
    "mode='replicate')", "F.pad(x[None, None, None], (1, 0, 0, 1, 1, 1), mode='replicate')",
    "F.pad(x, (1, 1, 1, 1), mode='replicate')", "F.pad(e, (1, 1))",
    "F.pad(x[None, None], (1, 1), mode='replicate')", "F.pad(x[0], (1, 1), mode='reflect')",
]


@pytest.mark.parametrize("expr", ACTIVATIONS + LOSSES + HELPERS)
def test_matches_torch(expr, torch):
    assert_same_as_torch(torch, expr, SETUP)


MODULES = [
    "lib.nn.Hardtanh(-2.0, 0.5)(x)", "lib.nn.ReLU6()(x * 3)", "lib.nn.ReLU6(True)(x * 3)",
    "lib.nn.Softsign()(x)", "lib.nn.SELU()(x)", "lib.nn.CELU(0.5)(x)", "lib.nn.LogSigmoid()(x)",
    "lib.nn.Softmin(1)(x)", "lib.nn.GLU()(x)", "lib.nn.Hardswish()(x)", "lib.nn.Hardsigmoid()(x)",
    "lib.nn.Mish()(x)", "lib.nn.Threshold(0.1, 20.0)(x)", "lib.nn.Softshrink(1.0)(x)",
    "lib.nn.Hardshrink()(x)", "lib.nn.Tanhshrink()(x)", "lib.nn.PReLU()(x)",
    "lib.nn.PReLU(2)(x.reshape(2, 2, 2))", "lib.nn.RReLU().eval()(x)",
    "lib.nn.Unflatten(1, (2, 2))(x)", "lib.nn.Unflatten(-1, (2, -1))(x)",
    "lib.nn.CosineSimilarity(0)(x, y)", "lib.nn.PairwiseDistance(1.0)(x, y)",
    "lib.nn.L1Loss()(x, y)", "lib.nn.SmoothL1Loss(beta=0.5)(x, y)",
    "lib.nn.HuberLoss('sum', 0.5)(x, y)", "lib.nn.KLDivLoss(reduction='batchmean')(x, y.abs())",
    "lib.nn.PoissonNLLLoss()(x, y.abs())", "lib.nn.GaussianNLLLoss()(x, y, lib.ones(2, 4))",
    "lib.nn.MarginRankingLoss(0.1)(x[0], y[0], s)", "lib.nn.HingeEmbeddingLoss()(x, s)",
    "lib.nn.SoftMarginLoss()(x, s)", "lib.nn.CosineEmbeddingLoss()(x, y, lib.tensor([1., -1.]))",
    "lib.nn.MultiLabelSoftMarginLoss()(x, (y > 0).float())",
    "lib.nn.TripletMarginLoss()(x, y, -y)", "lib.nn.TripletMarginLoss(margin=0.0)",
    "lib.nn.Hardtanh(1.0, 1.0)", "lib.nn.L1Loss(reduction='none')(x, y)",
]


@pytest.mark.parametrize("expr", MODULES)
def test_modules_match_torch(expr, torch):
    assert_same_as_torch(torch, expr, SETUP)


REPRS = ["Hardtanh(-2.0, 3.0, True)", "ReLU6()", "ReLU6(True)", "CELU(inplace=True)",
         "Softshrink()", "Hardshrink(0.2)", "Threshold(0.1, 2.0)", "GLU()", "Softmin(1)",
         "PReLU(3)", "RReLU()", "Unflatten(1, (2, 3))", "SELU(True)", "Mish()"]


@pytest.mark.parametrize("expr", REPRS)
def test_module_reprs_match_torch(expr, torch):
    assert repr(eval(f"ag.nn.{expr}")) == repr(eval(f"torch.nn.{expr}"))


def test_prelu_weight_gradient_matches_torch(torch):
    data = np.random.default_rng(0).standard_normal((2, 3, 2))
    grads = []
    for lib in (ag, torch):
        layer = lib.nn.PReLU(3)
        x = lib.tensor(data, dtype=lib.float32, requires_grad=True)
        (layer(x) * lib.arange(12.0).reshape(2, 3, 2)).sum().backward()
        grads.append((layer.weight.grad.numpy(), x.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-5)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-5)


def test_kl_div_warns_for_mean_only(torch):
    x, y = ag.zeros(2, 3), ag.ones(2, 3) / 3
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        AF.kl_div(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AF.kl_div(x, y, reduction="batchmean")


def test_loss_broadcast_warns_like_torch():
    with pytest.warns(UserWarning, match="Using a target size"):
        AF.l1_loss(ag.ones(2, 3), ag.ones(3))
    with pytest.warns(UserWarning, match="Using a target size"):
        AF.huber_loss(ag.ones(2, 3), ag.ones(3))


def test_rrelu_training_draws_slopes_between_lower_and_upper():
    """Training mode is random (agdebug's generator, so not torch's numbers): each negative
    element gets its own slope in [lower, upper], positive ones pass, and the gradient is the
    slope that was drawn (RreluWithNoiseBackward0)."""
    ag.manual_seed(0)
    x = ag.tensor([-1.0, -2.0, -3.0, -4.0, 1.0, 2.0] * 10, requires_grad=True)
    out = AF.rrelu(x, 0.1, 0.3, training=True)
    assert out.grad_fn.name() == "RreluWithNoiseBackward0"
    slopes = (out / x).detach().numpy()
    negative = x.detach().numpy() < 0
    assert ((slopes[negative] >= 0.1) & (slopes[negative] <= 0.3)).all()
    assert np.unique(slopes[negative]).size > 5   # drawn per element, not one mean slope
    assert (slopes[~negative] == 1).all()
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)


def test_rrelu_module_is_random_in_training_and_mean_in_eval():
    x = -ag.ones(200)
    layer = ag.nn.RReLU(0.1, 0.3)
    assert np.unique(layer(x).numpy()).size > 10
    np.testing.assert_allclose(layer.eval()(x).numpy(), -0.2, rtol=1e-6)


def test_inplace_activation_keeps_identity_and_bumps_version():
    x = ag.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    version = y._version
    assert AF.hardtanh(y, inplace=True) is y
    assert y._version == version + 1
    assert y.grad_fn.name() == "HardtanhBackward0"


def test_second_derivative_of_inplace_elu_matches_torch(torch):
    values = []
    for lib in (ag, torch):
        x = lib.tensor([-1.5, -0.3, 0.7], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.elu(x * 2, 0.5, inplace=True)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        values.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(values[0][0], values[1][0])
    np.testing.assert_allclose(values[0][1], values[1][1])

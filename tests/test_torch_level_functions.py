"""torch's top-level spellings of nn ops (``torch.conv2d``, ``torch.dropout``...) and of
Tensor methods (``torch.exp_``, ``torch.detach``...), against torch: values, dtypes, node
names and gradients, with torch's positional signatures (which differ from F's)."""

from __future__ import annotations

import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads, leaf

X = {"x": leaf(2, 3, 5)}
X2 = {"x": leaf(2, 3, 5), "y": leaf(2, 3, 5, step=0.21)}
IMG = {"x": leaf(2, 3, 6, 6), "w": leaf(4, 3, 3, 3, step=0.13)}

NN_CASES = [
    ("lib.conv1d(x, w)", {"x": leaf(2, 3, 7), "w": leaf(4, 3, 2, step=0.3)}),
    ("lib.conv2d(x, w, None, 2, 1)", IMG),
    ("lib.conv_transpose1d(x, w)", {"x": leaf(2, 3, 7), "w": leaf(3, 4, 2, step=0.3)}),
    ("lib.layer_norm(x, (5,))", X),
    ("lib.layer_norm(x, [5], None, None, 1e-3, False)", X),
    ("lib.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)", X),
    ("lib.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)", X),
    ("lib.group_norm(x, 3)", X),
    ("lib.rms_norm(x, (5,))", X),
    ("lib.embedding(w, lib.tensor([[0, 2], [3, 2]]))", {"w": leaf(5, 4)}),
    ("lib.embedding(w, lib.tensor([0, 2, 2]), 2)", {"w": leaf(5, 4)}),
    ("lib.max_pool1d(x, 2)", X),
    ("lib.max_pool1d(x, 2, [1])", X),
    ("lib.max_pool2d(x, 2)", IMG),
    ("lib.max_pool1d_with_indices(x, 2)", X),
    ("lib.avg_pool1d(x, 2)", X),
    ("lib.adaptive_avg_pool1d(x, 2)", X),
    ("lib.adaptive_max_pool1d(x, 2)", X),
    ("lib.celu(x, 0.7)", X),
    ("lib.selu(x)", X),
    ("lib.rrelu(x)", X),
    ("lib.prelu(x, lib.tensor([0.25], dtype=lib.float64))", X),
    ("lib.threshold(x, 0.1, 2.0)", X),
    ("lib.hardshrink(x, 0.3)", X),
    ("lib.pairwise_distance(x, y)", X2),
    ("lib.cosine_similarity(x, y)", X2),
    ("lib.kl_div(x, y)", X2),
    ("lib.kl_div(x, y, 1)", X2),
    ("lib.kl_div(x, y, 2, log_target=True)", X2),
    ("lib.kl_div(x, y, 5)", X2),                # torch reads any other int as "none"
    ("lib.margin_ranking_loss(x, y, lib.ones(2, 3, 5, dtype=lib.float64))", X2),
    ("lib.margin_ranking_loss(x, y, lib.ones(2, 3, 5, dtype=lib.float64), 0.1, 1)", X2),
    ("lib.hinge_embedding_loss(x, lib.ones(2, 3, 5, dtype=lib.float64))", X),
    ("lib.cosine_embedding_loss(x[0], y[0], lib.ones(3, dtype=lib.float64))", X2),
    ("lib.triplet_margin_loss(x, y, y * 2)", X2),
    ("lib.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 1)", X2),
    ("lib.binary_cross_entropy_with_logits(x, y.sigmoid())", X2),
    ("lib.binary_cross_entropy_with_logits(x, y.sigmoid(), None, None, 2)", X2),
    ("lib.dropout(x, 0.0, True)", X),
    ("lib.dropout(x, 0.5, False)", X),
    ("lib.dropout(x, 0.4, True)", X),          # the same mask: agdebug's generator is torch's
    ("lib.feature_dropout(x, 0.5, True)", X),
    ("lib.alpha_dropout(x, 0.3, True)", X),
    ("lib.feature_alpha_dropout(x, 0.3, True)", X),
]


@pytest.mark.parametrize("expr,setup", NN_CASES, ids=[c[0] for c in NN_CASES])
def test_nn_op_at_torch_level_matches_torch(torch, expr, setup):
    ag.manual_seed(3)
    torch.manual_seed(3)
    assert_same_with_grads(torch, expr, setup)


ERROR_CASES = [
    "lib.channel_shuffle(lib.ones(2, 6), 2)",
    "lib.channel_shuffle(lib.ones(2, 6, 3), 0)",
    "lib.channel_shuffle(lib.ones(2, 5, 3), 2)",
    "lib.channel_shuffle(lib.ones(2, 6, 3), 2.0)",
    "lib.nn.functional.channel_shuffle(lib.ones(2, 6, 3), True)",
    "lib.dropout(x, 2.0, True)",
    "lib.alpha_dropout(x, -0.5, True)",
    "lib.feature_dropout(lib.ones(3), 0.5, True)",
    "lib.exp_('a')",
    "lib.detach([1.0])",
    "lib.is_nonzero(3)",
    "lib.is_nonzero(lib.ones(2))",
]


@pytest.mark.parametrize("expr", ERROR_CASES)
def test_torch_level_errors_match_torch(torch, expr):
    assert_same_as_torch(torch, expr, {"x": leaf(2, 3)})


INPLACE = ["abs_", "ceil_", "cos_", "exp_", "expm1_", "floor_", "frac_", "log1p_", "neg_",
           "reciprocal_", "relu_", "round_", "sigmoid_", "sin_", "sqrt_", "square_", "tanh_",
           "trunc_", "zero_", "deg2rad_", "sinc_"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_function_is_the_method(torch, name):
    """``torch.<name>(t)`` changes ``t`` as ``t.<name>()`` does and returns it."""
    setup = {"x": leaf(2, 3, scale=2.0)}
    expr = f"(lambda t: (lib.{name}(t), t)[1])(x.detach().abs().clone())"
    assert_same_as_torch(torch, expr, setup)
    got = ag.ones(3)
    assert getattr(ag, name)(got) is got


@pytest.mark.parametrize("expr", [
    "lib.clamp_(x.detach().clone(), -0.2, 0.3)", "lib.fill_(x.detach().clone(), 2.5)",
    "lib.detach(x)", "lib.resolve_neg(x)", "lib.conj(x)",
    "(lib.is_same_size(x, x), lib.is_signed(x), lib.is_nonzero(lib.ones(1)))"])
def test_method_functions_match_torch(torch, expr):
    kind_setup = {"x": leaf(2, 3)}
    if expr.startswith("(lib.is_same"):
        want = eval(expr, {"lib": torch, "x": torch.ones(2, 3)})
        assert eval(expr, {"lib": ag, "x": ag.ones(2, 3)}) == want
        return
    assert_same_as_torch(torch, expr, kind_setup)


def test_in_place_dropout_changes_its_input(torch):
    for lib in (ag, torch):
        lib.manual_seed(1)
        x = lib.ones(4, 6)
        out = lib.dropout_(x, 0.5, True)
        assert out is x
    ag.manual_seed(1)
    torch.manual_seed(1)
    mine, theirs = ag.ones(4, 6), torch.ones(4, 6)
    ag.dropout_(mine, 0.5, True)
    torch.dropout_(theirs, 0.5, True)
    assert mine.tolist() == theirs.tolist()


def test_the_torch_level_names_are_mirrored_for_torch_programs():
    """``--engine agdebug`` maps torch.<name> to agdebug.<name>: the new names resolve."""
    from agdebug.engines import torch_on_agdebug
    with torch_on_agdebug():
        import torch as mapped
        assert mapped.layer_norm is ag.layer_norm and mapped.exp_ is ag.exp_

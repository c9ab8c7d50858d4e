"""torch.nn.functional: argument checks, warnings and graph shapes, as torch has them."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as F


def _names(t):
    return [f and f.name() for f, _ in t.grad_fn.next_functions]


def test_dropout():
    x = ag.ones(2000, requires_grad=True)
    assert F.dropout(x, 0.3, training=False) is x
    assert F.dropout(x, 0.0) is x
    y = F.dropout(x, 0.3)
    assert y.grad_fn.name() == "MulBackward0" and _names(y) == [
        "torch::autograd::AccumulateGrad", None]
    values = np.array(y.tolist())
    assert set(np.unique(values).round(5)) <= {0.0, round(1 / 0.7, 5)}
    assert 0.25 < (values == 0).mean() < 0.35
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values)    # the gradient uses the same mask
    assert not F.dropout(ag.ones(5), 1.0).numpy().any()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                       "got 1.5"):
        F.dropout(x, 1.5)


def test_dropout_is_repeatable_with_manual_seed():
    ag.manual_seed(3)
    a = F.dropout(ag.ones(50)).tolist()
    ag.manual_seed(3)
    assert F.dropout(ag.ones(50)).tolist() == a


def test_loss_graph_shapes():
    x = ag.randn(3, 4, requires_grad=True)
    t = ag.tensor([0, 3, 1])
    assert _names(F.nll_loss(x, t)) == ["torch::autograd::AccumulateGrad"]
    assert _names(F.cross_entropy(x, t)) == ["LogSoftmaxBackward0"]
    p = ag.rand(3, 4)
    assert _names(F.binary_cross_entropy(x.sigmoid(), p, weight=ag.ones(4))) == [
        "SigmoidBackward0", None]
    assert _names(F.binary_cross_entropy_with_logits(x, p, pos_weight=ag.ones(4))) == [
        "torch::autograd::AccumulateGrad", None]
    img, k = ag.randn(1, 2, 5, 5, requires_grad=True), ag.randn(3, 2, 3, 3, requires_grad=True)
    assert _names(F.conv2d(img, k))[2] is None
    assert F.max_pool2d(img, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def test_errors_match_torch(torch):
    import torch.nn.functional as TF
    calls = [
        lambda f, t: f.nll_loss(t.rand(2, 3), t.tensor([0, 1, 2])),
        lambda f, t: f.nll_loss(t.rand(2, 3), t.tensor([0.0, 1.0])),
        lambda f, t: f.cross_entropy(t.randn(2, 3), t.tensor([0, 5])),
        lambda f, t: f.cross_entropy(t.randn(2, 3), t.tensor([0, 1]), label_smoothing=1.5),
        lambda f, t: f.mse_loss(t.rand(2), t.rand(2), reduction="foo"),
        lambda f, t: f.binary_cross_entropy(t.tensor([1.5]), t.tensor([1.0])),
        lambda f, t: f.binary_cross_entropy(t.rand(3, 1), t.rand(3)),
        lambda f, t: f.binary_cross_entropy_with_logits(t.rand(3, 1), t.rand(3)),
        lambda f, t: f.binary_cross_entropy(t.rand(3), t.rand(3),
                                            weight=t.ones(3, requires_grad=True)),
        lambda f, t: f.conv2d(t.rand(1, 4, 5, 5), t.rand(3, 2, 3, 3)),
        lambda f, t: f.conv2d(t.rand(1, 4, 5, 5), t.rand(3, 2, 3, 3), groups=2),
        lambda f, t: f.conv2d(t.rand(1, 2, 2, 2), t.rand(3, 2, 3, 3)),
        lambda f, t: f.conv2d(t.rand(1, 2, 5, 5), t.rand(3, 2, 3, 3), stride=2, padding="same"),
        lambda f, t: f.max_pool2d(t.rand(1, 1, 5, 5), 2, padding=2),
        lambda f, t: f.softmax(t.rand(2, 3), dim=2),
        lambda f, t: f.linear(t.ones(2, 3), t.ones(4, 5)),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(Exception) as ref:
            call(TF, torch)
        with pytest.raises(ref.type) as ours:
            call(F, ag)
        assert str(ours.value) == str(ref.value), i


def test_warnings_match_torch(torch):
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(ag.ones(3))
    assert out.tolist() == pytest.approx([1 / 3] * 3)
    with pytest.warns(UserWarning) as record:
        F.mse_loss(ag.ones(3, 1), ag.ones(3))
    with pytest.warns(UserWarning) as ref:
        torch.nn.functional.mse_loss(torch.ones(3, 1), torch.ones(3))
    assert str(record[0].message) == str(ref[0].message)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, "
                      "please use reduction='sum' instead."):
        loss = F.mse_loss(ag.ones(2), ag.zeros(2), size_average=False)
    assert loss.item() == 2.0


def test_max_pool_return_indices(torch):
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5))
    out, idx = F.max_pool2d(ag.tensor(x), 2, return_indices=True)
    ref, ref_idx = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_allclose(out.numpy(), ref.numpy())
    assert idx.tolist() == ref_idx.tolist()


def test_softmax_is_stable_and_bound_on_tensor():
    x = ag.tensor([1000.0, 0.0, -1000.0])
    assert x.softmax(0).tolist() == [1.0, 0.0, 0.0]
    assert ag.log_softmax(x, 0).tolist() == [0.0, -1000.0, -2000.0]
    assert F.log_softmax(x.double(), 0).tolist() == [0.0, -1000.0, -2000.0]


def test_inplace_activations(torch):
    x = np.random.default_rng(5).standard_normal(6)
    for name, kwargs in [("relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}),
                         ("silu", {})]:
        ours = ag.tensor(x, requires_grad=True) * 1
        out = getattr(F, name)(ours, inplace=True, **kwargs)
        ref = getattr(torch.nn.functional, name)(torch.tensor(x) * 1, **kwargs)
        assert out is ours and ours._version == 1, name
        np.testing.assert_allclose(out.detach().numpy(), ref.numpy(), err_msg=name)
    leaf = ag.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.relu(leaf, inplace=True)


@pytest.mark.parametrize("dtype", [ag.float16, ag.float32, ag.float64])
def test_cross_entropy_fast_path_same_bits_as_the_general_one(dtype):
    # Every target a class, no weights, the mean: nll_loss's short path. An ignore_index
    # among the classes (but in no target) sends the same call down the general path.
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((37, 5))
    target = ag.tensor(rng.integers(0, 4, 37))

    def loss_and_grad(ignore_index):
        x = ag.tensor(scores, dtype=dtype, requires_grad=True)
        loss = F.cross_entropy(x, target, ignore_index=ignore_index)
        loss.backward()
        return loss.detach().numpy(), x.grad.numpy()
    fast, general = loss_and_grad(-100), loss_and_grad(4)
    for f, g in zip(fast, general):
        assert f.dtype == g.dtype == dtype.np
        np.testing.assert_array_equal(f, g)
        np.testing.assert_array_equal(np.signbit(f), np.signbit(g))


@pytest.mark.parametrize("ignore_index", [-100, 2])   # the short path, the general one
def test_nll_loss_gradient_off_the_targets_is_positive_zero(torch, ignore_index):
    # torch writes the gradient into zeros: +0.0 off the targets
    def grad(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        lib.nn.functional.nll_loss(x, lib.tensor([1, 0]), ignore_index=ignore_index).backward()
        return x.grad.numpy()
    got, want = grad(ag), grad(torch)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)

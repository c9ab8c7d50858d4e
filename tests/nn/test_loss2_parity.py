"""multi_margin_loss, multilabel_margin_loss, embedding_bag, gumbel_softmax and affine_grid
against torch (grid_sample and ctc_loss have files of their own): values, dtypes,
gradients, grad_fn names, errors (type and first line), reductions, weights, batched and
unbatched input; the random function's deterministic properties.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..ops.harness import numeric_grad
from ..torch_parity import assert_same_with_grads, leaf

SETUP = {"x": leaf(3, 4), "y": "lib.tensor([1, 0, 3])", "w": "lib.tensor([0.5, 1., 2., .7],"
         " dtype=lib.float64)", "T": "lib.tensor([[1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]])"}


# ----------------------------------------------------------------------------- margin losses

MULTI_MARGIN = [
    "F.multi_margin_loss(x, y)", "F.multi_margin_loss(x, y, reduction='none')",
    "F.multi_margin_loss(x, y, reduction='sum')", "F.multi_margin_loss(x, y, p=2)",
    "F.multi_margin_loss(x, y, 2, 0.5, w, reduction='none')",
    "F.multi_margin_loss(x, y, margin=-0.3, weight=w)", "F.multi_margin_loss(x, y, margin=3)",
    "F.multi_margin_loss(x[0], y[2])", "F.multi_margin_loss(x[0], y[:1], reduction='none')",
    "F.multi_margin_loss(x[0], y[2], reduction='none')",
    # (an empty batch reduced: torch returns uninitialised memory, so only 'none' is compared)
    "F.multi_margin_loss(x[:0], y[:0], reduction='none')",
    "F.multi_margin_loss(x.float(), y, p=2)", "F.multi_margin_loss(x.detach(), y)",
    "F.multi_margin_loss(x, y, margin=lib.tensor(0.5))",
    "F.multi_margin_loss(x, y, size_average=False)",
    "lib.nn.MultiMarginLoss()(x, y)", "lib.nn.MultiMarginLoss(2, 0.4, w, reduction='sum')(x, y)",
    # errors, in torch's order
    "F.multi_margin_loss(x, y, p=3)", "F.multi_margin_loss(x, y, reduction='foo')",
    "F.multi_margin_loss(x, y, weight=w[None])", "F.multi_margin_loss(x, y + 5)",
    "F.multi_margin_loss(x, y - 2)", "F.multi_margin_loss(x, y[:2])",
    "F.multi_margin_loss(x, y[None])", "F.multi_margin_loss(x, y.float())",
    "F.multi_margin_loss(x, y.int())", "F.multi_margin_loss(x, y, weight=w[:3])",
    "F.multi_margin_loss(x, y, weight=w.requires_grad_())",
    "F.multi_margin_loss(x.float(), y, weight=w)", "F.multi_margin_loss(x[:, :0], y)",
    "F.multi_margin_loss(x[None], y)", "F.multi_margin_loss(x.detach().int(), y)",
    "lib.nn.MultiMarginLoss(p=3)", "lib.nn.MultiMarginLoss(weight=w[None])",
]

MULTILABEL = [
    "F.multilabel_margin_loss(x, T)", "F.multilabel_margin_loss(x, T, reduction='none')",
    "F.multilabel_margin_loss(x * 0.2, T, reduction='sum')",
    "F.multilabel_margin_loss(x[0], T[2])", "F.multilabel_margin_loss(x[1], T[1], 'none')",
    "F.multilabel_margin_loss(x[:0], T[:0], reduction='none')",
    "F.multilabel_margin_loss(x, T.fill_(-1))", "F.multilabel_margin_loss(x.float(), T)",
    "lib.nn.MultiLabelMarginLoss()(x, T)", "lib.nn.MultiLabelMarginLoss(reduction='none')(x, T)",
    # errors
    "F.multilabel_margin_loss(x, T + 4)", "F.multilabel_margin_loss(x, T - 3)",
    "F.multilabel_margin_loss(x, T[:, :2])", "F.multilabel_margin_loss(x, T.int())",
    "F.multilabel_margin_loss(x, T.float())", "F.multilabel_margin_loss(x[None], T[None])",
    "F.multilabel_margin_loss(x[0], T)", "F.multilabel_margin_loss(x.detach().int(), T)",
    "F.multilabel_margin_loss(x, T, reduction='max')",
]


@pytest.mark.parametrize("expr", MULTI_MARGIN + MULTILABEL)
def test_margin_losses_match_torch(torch, expr):
    assert_same_with_grads(torch, expr, SETUP)


def test_repeated_labels_count_twice(torch):
    # torch walks the target list as it is: a label listed twice counts twice
    assert_same_with_grads(torch, "F.multilabel_margin_loss(x, lib.tensor([[2, 2, 1, -1]] * 3))",
                           SETUP)


def test_multi_margin_second_derivative_matches_differences():
    """torch has none ("not implemented"); agdebug's vjp is made of ops, so it has one."""
    base = np.sin(np.arange(12.0) * 0.37).reshape(3, 4)
    target, weight = ag.tensor([1, 0, 3]), ag.tensor([0.5, 1.0, 2.0, 0.7], dtype=ag.float64)
    u = np.cos(np.arange(12.0)).reshape(3, 4)

    def first(arrays):
        x = ag.tensor(arrays[0], requires_grad=True)
        loss = AF.multi_margin_loss(x, target, p=2, margin=0.9, weight=weight)
        (g,) = ag.autograd.grad(loss, x, create_graph=True)
        return g, x

    g, x = first([base])
    (hvp,) = ag.autograd.grad((g * ag.tensor(u)).sum(), x)
    numeric = numeric_grad(lambda a: float((first(a)[0].detach().numpy() * u).sum()),
                           [base.copy()], 0)
    np.testing.assert_allclose(hvp.numpy(), numeric, atol=1e-6)
    assert np.any(hvp.numpy())


# ----------------------------------------------------------------------------- embedding_bag

BAG_SETUP = {"w": leaf(6, 3), "p": leaf(7), "i": "lib.tensor([1, 2, 4, 5, 4, 3, 0])",
             "o": "lib.tensor([0, 2, 2, 5])", "J": "lib.tensor([[1, 2, 4], [5, 4, 4]])"}

EMBEDDING_BAGS = [
    f"F.embedding_bag(i, w, o, mode='{mode}'{extra})"
    for mode in ("sum", "mean", "max")
    for extra in ("", ", padding_idx=4", ", padding_idx=-2", ", include_last_offset=True")
] + [
    "F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p)",
    "F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p, padding_idx=5)",
    "F.embedding_bag(i, w.detach(), o, mode='sum', per_sample_weights=p)",
    "F.embedding_bag(i, w, o, scale_grad_by_freq=True)",
    "F.embedding_bag(i, w, o, mode='sum', scale_grad_by_freq=True)",
    "F.embedding_bag(J, w)", "F.embedding_bag(J, w, mode='max')",
    "F.embedding_bag(J, w, mode='sum', per_sample_weights=p[:6].reshape(2, 3))",
    "F.embedding_bag(J[:, :0], w)",
    # (no bags at all: torch's kernel crashes, so there is nothing to compare)
    "F.embedding_bag(i.int(), w, o.int())", "F.embedding_bag(i, w.float(), o, mode='max')",
    "F.embedding_bag(i, w, lib.tensor([0, 7]), include_last_offset=True)",
    "F.embedding_bag(i, w, lib.tensor([0, 3, 3, 7]), mode='max')",
    "lib.nn.EmbeddingBag.from_pretrained(w.detach(), mode='sum')(i, o)",
    "lib.nn.EmbeddingBag.from_pretrained(w.detach(), freeze=False)(J)",
    "lib.nn.EmbeddingBag.from_pretrained(w.detach(), padding_idx=-1, mode='max')(J)",
    "lib.nn.EmbeddingBag.from_pretrained(w.detach(), include_last_offset=True)(i, o)",
    "lib.nn.EmbeddingBag.from_pretrained(w.detach(), mode='sum')(i, o, p.detach())",
    "lib.nn.Embedding.from_pretrained(w.detach())(J)",
    # errors, in torch's order
    "F.embedding_bag(i, w, o, mode='sum', per_sample_weights=p[:3])",
    "F.embedding_bag(i, w[0], o)", "F.embedding_bag(J, w, o)", "F.embedding_bag(i, w)",
    "F.embedding_bag(i, w, o[None])", "F.embedding_bag(J[None], w)",
    "F.embedding_bag(i, w, o, mode='min')",
    "F.embedding_bag(i, w, o, mode='max', scale_grad_by_freq=True)",
    "F.embedding_bag(i, w, o, per_sample_weights=p)",
    "F.embedding_bag(i, w, o, mode='max', per_sample_weights=p)",
    "F.embedding_bag(i.float(), w, o)", "F.embedding_bag(i, w, o.float())",
    "F.embedding_bag(i, w.int(), o)", "F.embedding_bag(i, w, o, padding_idx=6)",
    "F.embedding_bag(i, w, o, padding_idx=-7)", "F.embedding_bag(i, w, o + 1)",
    "F.embedding_bag(i, w, lib.tensor([0, 8]))", "F.embedding_bag(i + 2, w, o)",
    "F.embedding_bag(i - 1, w, o)", "F.embedding_bag(i + 2, w.float(), o)",
    "F.embedding_bag(i + 2, w.float(), o, mode='max')",
    "lib.nn.EmbeddingBag(4, 2, padding_idx=4)", "lib.nn.EmbeddingBag.from_pretrained(w[0])",
]


@pytest.mark.parametrize("expr", EMBEDDING_BAGS)
def test_embedding_bag_matches_torch(torch, expr):
    assert_same_with_grads(torch, expr, BAG_SETUP)


def test_embedding_bag_module_matches_torch(torch):
    bag = ag.nn.EmbeddingBag(5, 2, mode="max", padding_idx=-1)
    ref = torch.nn.EmbeddingBag(5, 2, mode="max", padding_idx=-1)
    assert repr(bag) == repr(ref)
    assert bag.padding_idx == 4 and not bag.weight[4].any().item()
    assert bag.weight.requires_grad and tuple(bag.weight.shape) == (5, 2)
    pre = ag.nn.EmbeddingBag.from_pretrained(ag.ones(3, 2))
    assert not pre.weight.requires_grad and repr(pre) == "EmbeddingBag(3, 2, mode='mean')"


def test_embedding_bag_second_derivative_matches_differences():
    """d2 / (d weight d per_sample_weights): torch's backward builds no graph; agdebug's does."""
    w0, p0 = np.sin(np.arange(18.0)).reshape(6, 3), np.cos(np.arange(7.0))
    i, o = ag.tensor([1, 2, 4, 5, 4, 3, 0]), ag.tensor([0, 2, 2, 5])
    u = np.cos(np.arange(18.0) * 0.3).reshape(6, 3)
    up = np.linspace(-1, 1, 6).reshape(2, 3)

    def grad_w(arrays):
        w = ag.tensor(arrays[0], requires_grad=True)
        p = ag.tensor(arrays[1], requires_grad=True)
        out = AF.embedding_bag(i, w, o, mode="sum", per_sample_weights=p)
        loss = (out[:2] * ag.tensor(up)).sum() + (out[2:] ** 2).sum()
        (g,) = ag.autograd.grad(loss, w, create_graph=True)
        return g, w, p

    g, w, p = grad_w([w0, p0])
    hw, hp = ag.autograd.grad((g * ag.tensor(u)).sum(), (w, p))
    f = lambda a: float((grad_w(a)[0].detach().numpy() * u).sum())   # noqa: E731
    np.testing.assert_allclose(hw.numpy(), numeric_grad(f, [w0.copy(), p0.copy()], 0), atol=1e-6)
    np.testing.assert_allclose(hp.numpy(), numeric_grad(f, [w0.copy(), p0.copy()], 1), atol=1e-6)
    assert np.any(hp.numpy())


# ----------------------------------------------------------------------------- gumbel_softmax

def _graph(fn) -> list:
    """The node names of a graph, depth first (the leaf's accumulator included)."""
    if fn is None:
        return []
    names = [fn.name()]
    for child, _ in fn.next_functions:
        names += _graph(child)
    return names


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_records_torchs_graph(torch, hard):
    graphs = []
    for lib in (ag, torch):
        logits = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
        graphs.append(_graph(lib.nn.functional.gumbel_softmax(logits, tau=0.5, hard=hard).grad_fn))
    assert graphs[0] == graphs[1]


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_gumbel_softmax_hard_rows_are_one_hot_at_the_soft_maximum(dim):
    ag.manual_seed(3)
    logits = ag.tensor(np.sin(np.arange(12.0)).reshape(3, 4), requires_grad=True)
    hard = AF.gumbel_softmax(logits, tau=0.7, hard=True, dim=dim)
    ag.manual_seed(3)
    soft = AF.gumbel_softmax(logits, tau=0.7, dim=dim)
    values = hard.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    np.testing.assert_array_equal(values.sum(dim), 1.0)
    np.testing.assert_array_equal(values.argmax(dim), soft.detach().numpy().argmax(dim))
    np.testing.assert_allclose(soft.detach().numpy().sum(dim), 1.0)
    # straight through: the hard sample's gradient is the soft sample's
    up = ag.tensor(np.cos(np.arange(12.0)).reshape(3, 4))
    (g_hard,) = ag.autograd.grad((hard * up).sum(), logits)
    (g_soft,) = ag.autograd.grad((soft * up).sum(), logits)
    np.testing.assert_allclose(g_hard.numpy(), g_soft.numpy(), atol=1e-12)


def test_gumbel_softmax_soft_gradient_is_the_softmax_jacobian():
    """With the noise fixed by the seed, d y / d logits = J_softmax / tau."""
    tau, base = 0.5, np.sin(np.arange(6.0)).reshape(2, 3)
    up = np.cos(np.arange(6.0)).reshape(2, 3)

    def f(arrays):
        ag.manual_seed(11)
        y = AF.gumbel_softmax(ag.tensor(arrays[0]), tau=tau)
        return float((y.numpy() * up).sum())

    ag.manual_seed(11)
    logits = ag.tensor(base, requires_grad=True)
    y = AF.gumbel_softmax(logits, tau=tau)
    (grad,) = ag.autograd.grad((y * ag.tensor(up)).sum(), logits)
    s = y.detach().numpy()
    expected = s * (up - (s * up).sum(-1, keepdims=True)) / tau
    np.testing.assert_allclose(grad.numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(grad.numpy(), numeric_grad(f, [base.copy()], 0), atol=1e-6)


def test_gumbel_softmax_is_deterministic_under_manual_seed():
    logits = ag.zeros(4, 5)
    ag.manual_seed(7)
    a = AF.gumbel_softmax(logits).numpy()
    b = AF.gumbel_softmax(logits).numpy()
    ag.manual_seed(7)
    np.testing.assert_array_equal(AF.gumbel_softmax(logits).numpy(), a)
    assert not np.array_equal(a, b)


def test_gumbel_softmax_eps_warns_as_torch():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        AF.gumbel_softmax(ag.zeros(2, 3), eps=1e-5)


# ----------------------------------------------------------------------------- affine_grid

GRID_SETUP = {"th": leaf(2, 2, 3)}
AFFINE_GRIDS = [
    "F.affine_grid(th, (2, 1, 3, 4), align_corners=False)",
    "F.affine_grid(th, [2, 3, 5, 2], align_corners=True)",
    "F.affine_grid(th, lib.Size([2, 1, 1, 3]), align_corners=True)",
    "F.affine_grid(th, (2, 1, 1, 1), align_corners=False)", "F.affine_grid(th, (2, 1, 3, 4))",
    "F.affine_grid(th.detach().float(), (2, 1, 3, 4), False)",
    "F.affine_grid(th[:0], (0, 1, 3, 4))",
    "F.affine_grid(th[:0], (0, 1, 3, 4), align_corners=True)",
    # errors, in torch's order
    "F.affine_grid(th.int(), (2, 1, 3, 4), align_corners=False)",
    "F.affine_grid(th[0], (2, 1, 3, 4), align_corners=False)",
    "F.affine_grid(th[:, :, :2], (2, 1, 3, 4), align_corners=False)",
    "F.affine_grid(th, (2, 1, 3), align_corners=False)",
    "F.affine_grid(th, (2, 1, 0, 4), align_corners=False)",
    "F.affine_grid(th, (3, 1, 3, 4), align_corners=False)",
]


@pytest.mark.parametrize("expr", AFFINE_GRIDS)
def test_affine_grid_matches_torch(torch, expr):
    assert_same_with_grads(torch, expr, GRID_SETUP)

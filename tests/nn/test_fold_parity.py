"""Sliding blocks, pixel shuffles, Tensor.unfold and the extra pools against torch: values,
dtypes, gradients, grad_fn names and errors, batched and unbatched, every argument variant.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_with_grads, evaluate, leaf

SETUP = {"x": leaf(2, 3, 5, 6), "c": leaf(2, 12, 9), "p": leaf(2, 8, 3, 2),
         "s": leaf(2, 3, 7), "t": leaf(4, 7)}


# ----------------------------------------------------------------------------- unfold, fold

UNFOLDS = [
    "F.unfold(x, 2)", "F.unfold(x, (2, 3))", "F.unfold(x, [2, 3], dilation=(1, 2))",
    "F.unfold(x, 3, padding=1)", "F.unfold(x, (2, 3), padding=(2, 0), stride=(2, 3))",
    "F.unfold(x, kernel_size=2, dilation=2, padding=1, stride=2)", "F.unfold(x[0], 2)",
    "F.unfold(x[0], (1, 3), stride=2)", "F.unfold(x[:0], 2)", "F.unfold(x.float(), 2)",
    "F.unfold(x.detach().bool(), 2)", "F.unfold(x.detach().half(), 2)",
    "lib.nn.Unfold(2, padding=1)(x)", "lib.nn.Unfold((2, 3), 1, 0, (1, 2))(x[1])",
    # errors, in torch's order
    "F.unfold(x, 0)", "F.unfold(x, (2, -1))", "F.unfold(x, 2, dilation=0)",
    "F.unfold(x, 2, padding=-1)", "F.unfold(x, 2, stride=0)", "F.unfold(x, 0, stride=0)",
    "F.unfold(x, 7)", "F.unfold(x, 2, dilation=5)", "F.unfold(x[0, 0], 2)",
    "F.unfold(x[0, 0, 0], 2)", "F.unfold(x[0, 0, 0, 0], 2)", "F.unfold(x[None], 2)",
    "F.unfold(x[:, :0], 2)", "F.unfold(x[0, :, :0], 2)", "F.unfold(x[0, 0, :, :0], 2)",
    "F.unfold(x, (2, 2, 2))", "F.unfold(x, (2,))", "F.unfold(x, 2, 1.5)",
    "F.unfold(x, 2, stride=(1, 2.0))", "F.unfold(x.detach().int(), 2)",
    "F.unfold(x.detach().long(), 2)", "F.unfold(x.detach().to(lib.uint8), 2)",
]


@pytest.mark.parametrize("expr", UNFOLDS)
def test_unfold_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


FOLDS = [
    "F.fold(c, (4, 5), (2, 3))", "F.fold(c, [4, 5], kernel_size=[2, 3])",
    "F.fold(c[0], (4, 5), (2, 3))", "F.fold(c[:0], (4, 5), (2, 3))",
    "F.fold(c[:, :, :6], (4, 5), (2, 3), stride=(1, 2))",
    "F.fold(c[:, :, :4], (4, 5), (2, 3), dilation=(2, 1))",
    "F.fold(c, (4, 5), (2, 3), padding=(1, 0), stride=(2, 1))", "F.fold(c[..., :4], 3, 2)",
    "F.fold(c[:, :, :1], (1, 1), 2, padding=1, stride=2)", "F.fold(c.float(), (4, 5), (2, 3))",
    "F.fold(c.detach().bool(), (4, 5), (2, 3))", "F.fold(c.detach().double(), (4, 5), (2, 3))",
    "lib.nn.Fold((4, 5), (2, 3))(c)", "lib.nn.Fold(3, 2, 1, 0, 1)(c[0, :, :4])",
    # errors, in torch's order
    "F.fold(c, (4, 5), 0)", "F.fold(c, (4, 5), (2, 3), stride=0)",
    "F.fold(c, (4, 5), (2, 3), dilation=(0, 1))", "F.fold(c, (4, 5), (2, 3), padding=-1)",
    "F.fold(c, (4, 5), 0, padding=-1)", "F.fold(c[0, 0], (4, 5), (2, 3))",
    "F.fold(c[None], (4, 5), (2, 3))", "F.fold(c[:, :0], (4, 5), (2, 3))",
    "F.fold(c[0, :, :0], (4, 5), (2, 3))", "F.fold(c[:, :11], (4, 5), (2, 3))",
    "F.fold(c[:, :, :8], (4, 5), (2, 3))", "F.fold(c, 4, (2, 3))",
    "F.fold(c, (4, 5), (2, 3), padding=(1, 0))", "F.fold(c[:, :9, :1], (1, 1), 3)",
    "F.fold(c, (4, 5, 6), (2, 3))", "F.fold(c, (4, 5), (2, 3), padding=(1, 1, 1))",
    "F.fold(c, (4.0, 5), (2, 3))", "F.fold(c.detach().int(), (4, 5), (2, 3))",
    "F.fold(c.detach().long(), (4, 5), (2, 3))",
]


@pytest.mark.parametrize("expr", FOLDS)
def test_fold_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


def test_fold_is_the_adjoint_of_unfold(torch):
    """<unfold(x), c> == <x, fold(c)>: overlapping blocks are summed, not overwritten."""
    x, c = ag.randn(2, 3, 5, 6, dtype=ag.float64), ag.randn(2, 12, 16, dtype=ag.float64)
    left = (ag.nn.functional.unfold(x, 2, padding=(0, 1), stride=(1, 2)) * c).sum()
    right = (x * ag.nn.functional.fold(c, (5, 6), 2, padding=(0, 1), stride=(1, 2))).sum()
    np.testing.assert_allclose(left.item(), right.item(), rtol=1e-12)


def test_fold_modules_repr_as_torch(torch):
    for expr in ("lib.nn.Unfold(2)", "lib.nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))",
                 "lib.nn.Fold((4, 5), 2)", "lib.nn.Fold(4, (2, 3), 1, 1, 2)"):
        assert repr(evaluate(ag, expr)[1]) == repr(evaluate(torch, expr)[1])


@pytest.mark.parametrize("expr, leaf", [("F.unfold(x, (2, 3), dilation=(1, 2), padding=1)", "x"),
                                        ("F.fold(c, (4, 5), (2, 3))", "c")])
def test_fold_derivatives_record_torch_nodes(expr, leaf, torch):
    """The derivative of im2col is col2im and the other way round, at every order."""
    names = []
    for lib in (ag, torch):
        _, (out, x) = evaluate(lib, f"({expr}, {leaf})", SETUP)
        upstream = lib.ones(out.shape, dtype=out.dtype, requires_grad=True)
        grad, = lib.autograd.grad(out, x, upstream, create_graph=True)
        direction = lib.ones_like(grad).requires_grad_()
        again, = lib.autograd.grad(grad, upstream, direction, create_graph=True)
        names.append((out.grad_fn.name(), grad.grad_fn.name(), again.grad_fn.name()))
    assert names[0] == names[1]


# ----------------------------------------------------------------------------- pixel shuffles

SHUFFLES = [
    "F.pixel_shuffle(p, 2)", "F.pixel_shuffle(p, upscale_factor=1)", "F.pixel_shuffle(p[0], 2)",
    # (empty inputs without grad: torch's own backward of an empty pixel_shuffle fails)
    "F.pixel_shuffle(p[None], 2)", "F.pixel_shuffle(p.detach()[:0], 2)",
    "F.pixel_shuffle(p.detach()[:, :0], 2)",
    "F.pixel_shuffle(p.detach().int(), 2)", "F.pixel_shuffle(p.detach().bool(), 2)",
    "F.pixel_shuffle(p.float(), 2)", "F.pixel_shuffle(p.transpose(2, 3), 2)",
    "lib.pixel_shuffle(p, 2)", "lib.nn.PixelShuffle(2)(p[1])",
    "F.pixel_unshuffle(p, 1)", "F.pixel_unshuffle(p.reshape(2, 2, 6, 4), 2)",
    "F.pixel_unshuffle(p.reshape(8, 6, 2), downscale_factor=2)",
    "F.pixel_unshuffle(p.reshape(1, 2, 1, 6, 8), 2)",
    "F.pixel_unshuffle(p.detach().long()[..., :2, :], 2)",
    "lib.pixel_unshuffle(p.reshape(2, 2, 6, 4), 2)",
    "lib.nn.PixelUnshuffle(3)(p.reshape(2, 4, 6, 3)[..., :6, :])",
    # errors, in torch's order
    "F.pixel_shuffle(p, 3)", "F.pixel_shuffle(p, 0)", "F.pixel_shuffle(p, -2)",
    "F.pixel_shuffle(p[0, 0], 2)", "F.pixel_shuffle(p[0, 0], 0)", "F.pixel_shuffle(p, 1.5)",
    "F.pixel_shuffle(p, True)", "F.pixel_unshuffle(p, 2)", "F.pixel_unshuffle(p, 3)",
    "F.pixel_unshuffle(p, 0)", "F.pixel_unshuffle(p, -1)", "F.pixel_unshuffle(p[0, 0], 2)",
    "F.pixel_unshuffle(p, 2.0)",
]


@pytest.mark.parametrize("expr", SHUFFLES)
def test_pixel_shuffle_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


def test_pixel_shuffle_copies(torch):
    """torch's result is a new tensor even for a factor of 1: writing it leaves the input."""
    x = ag.ones(1, 4, 1, 1)
    y = ag.nn.functional.pixel_shuffle(x, 1)
    y.add_(1)
    assert x.sum().item() == 4


def test_shuffle_modules_repr_as_torch(torch):
    for expr in ("lib.nn.PixelShuffle(2)", "lib.nn.PixelUnshuffle(downscale_factor=3)"):
        assert repr(evaluate(ag, expr)[1]) == repr(evaluate(torch, expr)[1])


# ----------------------------------------------------------------------------- Tensor.unfold

UNFOLD_VIEWS = [
    "t.unfold(1, 3, 2)", "t.unfold(-1, 3, 2)", "t.unfold(0, 4, 1)", "t.unfold(0, 2, 3)",
    "t.unfold(1, 0, 1)", "t.unfold(1, 7, 5)", "t.unfold(dimension=1, size=2, step=3)",
    "t[:0].unfold(1, 2, 1)", "t.detach().int().unfold(1, 3, 2)", "t.sum().unfold(0, 1, 1)",
    "t.sum().unfold(-1, 1, 3)", "t.sum().unfold(0, 0, 1)", "t.t().unfold(0, 2, 2)",
    "t.unfold(1, 3, 2).unfold(1, 2, 1)", "s.unfold(2, 3, 2)",
    # errors, in torch's order
    "t.unfold(1, 8, 1)", "t.unfold(1, 3, 0)", "t.unfold(1, -1, 1)", "t.unfold(1, -1, 0)",
    "t.unfold(1, 8, 0)", "t.unfold(2, 3, 1)", "t.unfold(-3, 3, 1)", "t.sum().unfold(0, 2, 1)",
    "t.sum().unfold(1, 1, 1)", "t.unfold(1, 2.0, 1)", "t.unfold(1.0, 2, 1)",
    "t.unfold(1, 2, True)", "t.unfold(1, 3)", "t.unfold(0)", "t.unfold()",
]


@pytest.mark.parametrize("expr", UNFOLD_VIEWS)
def test_tensor_unfold_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


def test_tensor_unfold_is_a_view(torch):
    """It shares storage and version counter; writing through it records CopySlices."""
    for lib in (ag, torch):
        x = lib.arange(7.0, requires_grad=True).clone()
        v = x.unfold(0, 2, 3)
        assert v._base is x
        v.mul_(10)
        assert x.tolist() == [0.0, 10.0, 2.0, 30.0, 40.0, 5.0, 6.0]
        assert x._version == v._version == 1
        assert x.grad_fn.name() == "torch::autograd::CopySlices"
        assert v.grad_fn.name() == "AsStridedBackward0"


# ----------------------------------------------------------------------------- adaptive max pools

POOL_SETUP = {"a": "lib.arange(210, dtype=lib.float64).reshape(2, 3, 5, 7).mul(7.3).sin()"
                   ".detach().requires_grad_()"}
ADAPTIVE = [
    "F.adaptive_max_pool2d(a, (2, 3))", "F.adaptive_max_pool2d(a, 3)",
    "F.adaptive_max_pool2d(a, (None, 3))", "F.adaptive_max_pool2d(a, [2, None])",
    "F.adaptive_max_pool2d(a[0], (2, 3))", "F.adaptive_max_pool2d(a, (8, 9))",
    # (empty outputs without grad: torch's own backward refuses an empty gradient)
    "F.adaptive_max_pool2d(a.detach(), (0, 3))", "F.adaptive_max_pool2d(a.detach()[:0], 2)",
    "F.adaptive_max_pool2d(a.float(), 2)", "F.adaptive_max_pool2d(a, (2, 3), return_indices=True)",
    "F.adaptive_max_pool2d(a[1], 4, True)", "lib.nn.AdaptiveMaxPool2d((2, None))(a)",
    "lib.nn.AdaptiveMaxPool2d(3, return_indices=True)(a[0])",
    "F.adaptive_max_pool1d(a[0], 3)", "F.adaptive_max_pool1d(a[0, 0], (3,))",
    "F.adaptive_max_pool1d(a[0], 9, return_indices=True)",
    "F.adaptive_max_pool1d(a[0].detach(), 0)",
    "F.adaptive_max_pool1d(a[0, 0, :0], 2)", "F.adaptive_max_pool1d(a.detach()[0, :0], 2)",
    "lib.nn.AdaptiveMaxPool1d(4)(a[0])", "lib.nn.AdaptiveMaxPool1d(2, True)(a[0, 1])",
    # errors, in torch's order
    "F.adaptive_max_pool2d(a, (-1, 3))", "F.adaptive_max_pool2d(a[0, 0], 2)",
    "F.adaptive_max_pool2d(a[0, 0], (2, 2))", "F.adaptive_max_pool2d(a[None], 2)",
    "F.adaptive_max_pool2d(a[:, :0], 2)", "F.adaptive_max_pool2d(a[:, :, :0], 2)",
    "F.adaptive_max_pool2d(a[0, :, :, :0], 2)", "F.adaptive_max_pool2d(a.detach().int(), 2)",
    "F.adaptive_max_pool2d(a.detach().bool(), 2)", "F.adaptive_max_pool2d(a, (2, 3, 4))",
    "F.adaptive_max_pool2d(a, 2.5)", "F.adaptive_max_pool1d(a, 3)",
    "F.adaptive_max_pool1d(a[0, 0, 0], 3)", "F.adaptive_max_pool1d(a[0], (3, 2))",
    "F.adaptive_max_pool1d(a[0], None)", "F.adaptive_max_pool1d(a[0].detach().long(), 2)",
    "F.adaptive_max_pool1d(a[0, :, :0], 2)", "F.adaptive_max_pool1d(a[0], -2)",
]


@pytest.mark.parametrize("expr", ADAPTIVE)
def test_adaptive_max_pool_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, POOL_SETUP)


def test_adaptive_max_pool_ties_pick_the_first(torch):
    """With equal values in a window the first one is the maximum (its index is returned)."""
    for lib in (ag, torch):
        x = lib.tensor([[[[1.0, 3.0, 3.0], [3.0, 0.0, 3.0]]]])
        _, indices = lib.nn.functional.adaptive_max_pool2d(x, (1, 2), return_indices=True)
        assert indices.tolist() == [[[[1, 1]]]]


UNPOOL_SETUP = {
    "o": "lib.nn.functional.max_pool2d(lib.arange(168.0).reshape(2, 3, 4, 7).mul(3.1).sin()"
         ".double(), 2, return_indices=True)",
    "v": "o[0].detach().requires_grad_()", "i": "o[1]",
    "q": "lib.nn.functional.max_pool1d(lib.arange(21.0).reshape(3, 7).mul(3.1).cos(), 2, "
         "return_indices=True)",
    "w": "q[0].detach().requires_grad_()", "j": "q[1]",
}
UNPOOLS = [
    "F.max_pool2d(v, 2, return_indices=True)", "F.max_unpool2d(v, i[..., :2, :2], 2)",
    "F.max_unpool2d(v, i, 2, output_size=(4, 7))",
    "F.max_unpool2d(v, i, (2, 2), 2, 0, [2, 3, 5, 7])",
    "F.max_unpool2d(v[0], i[0], 2, output_size=(4, 7))",
    "F.max_unpool2d(v.detach()[:0], i[:0], 2)", "F.max_unpool2d(v.detach(), i, 1, padding=1)",
    "F.max_unpool2d(v.float(), i, 2, output_size=(5, 7))",
    "lib.nn.MaxUnpool2d(2)(v, i, output_size=(5, 7))",
    "lib.nn.MaxUnpool2d(2, stride=(2, 3))(v[1], i[1])",
    "F.max_unpool1d(w, j, 2)", "F.max_unpool1d(w, j, 2, output_size=[7])",
    "F.max_unpool1d(w[None], j[None], 2, output_size=(1, 3, 8))", "lib.nn.MaxUnpool1d(2)(w, j)",
    # errors, in torch's order
    "F.max_unpool2d(v, i.int(), 2)", "F.max_unpool2d(v[0, 0], i[0, 0], 2)",
    "F.max_unpool2d(v[None], i[None], 2)", "F.max_unpool2d(v, i[0], 2)",
    "F.max_unpool2d(v.detach().int(), i, 2)", "F.max_unpool2d(v[:, :0], i[:, :0], 2)",
    "F.max_unpool2d(v, i, 2, output_size=(6, 7))", "F.max_unpool2d(v, i, 2, output_size=(5,))",
    # (one bad index each: torch checks in parallel, so which one of several it reports varies
    # from run to run)
    "F.max_unpool2d(v[:1, :1], i[:1, :1], 2)",
    "F.max_unpool2d(v[:1, :1, :1, :1], i[:1, :1, :1, :1] + 30, 2)",
    "F.max_unpool2d(v[:1, :1, :1, :1], i[:1, :1, :1, :1] - 30, 2)",
    "F.max_unpool2d(v, i, 1, padding=2)",
    "F.max_unpool1d(w, j, 2, output_size=[9])", "F.max_unpool1d(w[0, 0], j[0, 0], 2)",
    "F.max_unpool1d(w[None, None], j[None, None], 2)",
]


@pytest.mark.parametrize("expr", UNPOOLS)
def test_max_unpool_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, UNPOOL_SETUP)


def test_pool_modules_repr_as_torch(torch):
    for expr in ("lib.nn.AdaptiveMaxPool2d((2, None))", "lib.nn.AdaptiveMaxPool1d(3, True)",
                 "lib.nn.MaxUnpool2d(2)", "lib.nn.MaxUnpool2d((2, 3), stride=1, padding=(1, 0))",
                 "lib.nn.MaxUnpool1d(3, stride=2, padding=1)"):
        assert repr(evaluate(ag, expr)[1]) == repr(evaluate(torch, expr)[1])

"""F.grid_sample on 5-D inputs and F.affine_grid in 3-D against torch: values, dtypes,
gradients for input and grid, grad_fn names (GridSampler3DBackward0, its derivative
GridSampler3DBackwardBackward0, AffineGridGeneratorBackward0), second derivatives, every
mode x padding_mode x align_corners, points outside [-1, 1] and on the borders, empty tensors
and the common errors (bicubic refused on 5-D input, as torch refuses it).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, assert_same_with_grads, evaluate, leaf
from .test_grid_sample import assert_second_derivatives

# grid values in (-1.4, 1.4): points inside, and outside on every side
SETUP = {"x": leaf(2, 2, 3, 4, 5), "g": leaf(2, 2, 3, 2, 3, scale=1.4)}
# points exactly on the corners, edges and centre, where padding clamps or mirrors
EDGES = {"x": leaf(1, 2, 2, 3, 4),
         "g": "lib.tensor([[[[[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]], "
              "[[1.0, -1.0, 0.5], [-1.0, 0.5, 1.0], [0.25, 1.0, -1.0]]]]], "
              "dtype=lib.float64).requires_grad_()"}
COMBINATIONS = list(itertools.product(("bilinear", "nearest"),
                                      ("zeros", "border", "reflection"), (False, True)))


def _call(mode, padding_mode, align_corners) -> str:
    return (f"F.grid_sample(x, g, mode='{mode}', padding_mode='{padding_mode}', "
            f"align_corners={align_corners})")


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBINATIONS)
def test_values_and_gradients(torch, mode, padding_mode, align_corners):
    call = _call(mode, padding_mode, align_corners)
    assert_same_with_grads(torch, call, SETUP)
    assert_same_with_grads(torch, call, EDGES)


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBINATIONS)
def test_second_derivatives(torch, mode, padding_mode, align_corners):
    """The derivative node (GridSampler3DBackwardBackward0, both outputs) and the gradients
    of a combination of its outputs in the output gradient, the input and the grid (None
    for the input under nearest, zeros for the grid: as torch's)."""
    setup = {**SETUP, "v": leaf(2, 2, 2, 3, 2, scale=0.5)}
    call = (f"lib.autograd.grad({_call(mode, padding_mode, align_corners)}, (x, g), v, "
            "create_graph=True)")
    assert_second_derivatives(torch, call, setup, "GridSampler3DBackwardBackward0")


def test_grid_only_second_derivative(torch):
    """Only the grid requires grad: output_mask (False, True) all the way down."""
    setup = {"x": leaf(1, 1, 2, 3, 3) + ".detach()", "g": leaf(1, 1, 2, 2, 3, scale=1.2)}
    expr = ("lib.autograd.grad((lib.autograd.grad(F.grid_sample(x, g, align_corners=False)"
            ".sum(), g, create_graph=True)[0] ** 2).sum(), g)[0]")
    got, want = evaluate(ag, expr, setup)[1], evaluate(torch, expr, setup)[1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-12)


VARIANTS = [
    "F.grid_sample(x, g, align_corners=False)",                       # the defaults
    "F.grid_sample(x, g, 'nearest', 'border', True)",                 # positional
    "F.grid_sample(input=x, grid=g, mode='nearest', align_corners=True)",
    "F.grid_sample(x.detach(), g, align_corners=False)",              # only the grid
    "F.grid_sample(x, g.detach(), align_corners=False)",              # only the input
    "F.grid_sample(x.detach(), g.detach(), align_corners=False)",     # no graph
    "F.grid_sample(x, g[:, :1, :1, :1], align_corners=True)",         # one point
    "F.grid_sample(x[:, :, :1, :1, :1], g, padding_mode='reflection', align_corners=True)",
    "F.grid_sample(x[:, :, :1], g, padding_mode='reflection', align_corners=False)",
    "F.grid_sample(x[:0], g[:0], align_corners=False)",               # empty batch
    "F.grid_sample(x[:, :0], g, align_corners=False)",                # no channels
    "F.grid_sample(x, g[:, :0], align_corners=False)",                # no points
    "F.grid_sample(x, g * 50, padding_mode='reflection', align_corners=False)",  # far out
    "F.grid_sample(x, g * 50, padding_mode='reflection', align_corners=True)",
    "F.grid_sample(x, g * 50, padding_mode='border', align_corners=True)",
    "F.grid_sample(x, g.flip(-1), align_corners=False)",               # (x, y, z) order
]


@pytest.mark.parametrize("expr", VARIANTS)
def test_argument_variants(torch, expr):
    assert_same_with_grads(torch, expr, SETUP)


ERRORS = [
    "F.grid_sample(x, g, mode='bicubic', align_corners=False)",       # 2-D only
    "F.grid_sample(x.detach().long(), g, mode='bicubic', align_corners=False)",
    "F.grid_sample(x, g[..., :2], align_corners=False)",              # last dim not 3
    "F.grid_sample(x, g[0], align_corners=False)",                    # 4-D grid
    "F.grid_sample(x[:1], g, align_corners=False)",                   # batch sizes differ
    "F.grid_sample(x[:, :, :0], g, align_corners=False)",             # empty spatial dim
    "F.grid_sample(x[:, :, :, :, :0], g, align_corners=False)",
    "F.grid_sample(x[..., None], g[..., None, :], align_corners=False)",   # 6-D
    "F.grid_sample(x, g.float(), align_corners=False)",               # dtypes differ
    "F.grid_sample(x.float(), g, align_corners=False)",
    "F.grid_sample(x.detach().long(), g, align_corners=False)",       # integer input
    "F.grid_sample(x.detach().int(), g.detach().int(), align_corners=False)",
    "F.grid_sample(x.detach().bool(), g.detach().bool(), align_corners=False)",
    "F.grid_sample(x, g, mode='trilinear', align_corners=False)",     # not torch's name
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_float32_values_and_gradients_match_torch_closely(torch):
    """The 3-D kernel's scalar formulas in float32: a few ulps at most."""
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((2, 3, 3, 4, 5)), rng.uniform(-1.2, 1.2, (2, 2, 3, 2, 3))
    for mode, padding_mode, align_corners in COMBINATIONS:
        kwargs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        results = []
        for lib in (ag, torch):
            xs = lib.tensor(x, dtype=lib.float32).requires_grad_()
            gs = lib.tensor(g, dtype=lib.float32).requires_grad_()
            y = lib.nn.functional.grid_sample(xs, gs, **kwargs)
            y.backward(lib.arange(y.numel(), dtype=lib.float32).reshape(y.shape).cos())
            results.append([t.detach().numpy() for t in (y, xs.grad, gs.grad)])
        for got, want in zip(*results):
            assert got.dtype == np.float32
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=0, atol=3e-7)


# ----------------------------------------------------------------------------- affine_grid

AFFINE = {"th": "lib.tensor([[[0.9, -0.2, 0.1, 0.3], [0.3, 1.1, -0.4, -0.1], "
                "[0.05, 0.2, 0.8, 0.25]]], dtype=lib.float64).repeat(2, 1, 1)"
                ".mul(lib.tensor([1.0, -0.7], dtype=lib.float64)[:, None, None])"
                ".requires_grad_()"}
AFFINE_CALLS = [
    "F.affine_grid(th, (2, 1, 3, 4, 5), align_corners=False)",
    "F.affine_grid(th, [2, 3, 2, 5, 2], align_corners=True)",
    "F.affine_grid(th, lib.Size([2, 1, 1, 3, 2]), align_corners=True)",   # unit depth
    "F.affine_grid(th, (2, 1, 1, 1, 1), align_corners=False)",
    "F.affine_grid(th, (2, 1, 2, 3, 4))",                                # align_corners None
    "F.affine_grid(th.detach(), (2, 1, 2, 3, 4), align_corners=False)",
]


@pytest.mark.parametrize("expr", AFFINE_CALLS)
def test_affine_grid_3d(torch, expr):
    assert_same_with_grads(torch, expr, AFFINE)


AFFINE_ERRORS = [
    "F.affine_grid(th, (3, 1, 2, 3, 4), align_corners=False)",    # batch sizes differ
    "F.affine_grid(th, (2, 1, 0, 3, 4), align_corners=False)",    # empty size
    "F.affine_grid(th, (2, 0, 2, 3, 4), align_corners=False)",
    "F.affine_grid(th[:, :2, :3], (2, 1, 2, 3, 4), align_corners=False)",   # 2-D theta
    "F.affine_grid(th[:, :2, :3], [2, 1, 2, 3, 4], align_corners=False)",
    "F.affine_grid(th[0], (2, 1, 2, 3, 4), align_corners=False)",
    "F.affine_grid(th, (2, 1, 3, 4), align_corners=False)",       # 3-D theta, 4-D size
    "F.affine_grid(th, (2, 1, 2, 3, 4, 5), align_corners=False)",
    "F.affine_grid(th.detach().long(), (2, 1, 2, 3, 4), align_corners=False)",
]


@pytest.mark.parametrize("expr", AFFINE_ERRORS)
def test_affine_grid_3d_errors(torch, expr):
    assert_same_as_torch(torch, expr, AFFINE)


def test_affine_grid_3d_second_derivative(torch):
    setup = {**AFFINE, "v": leaf(2, 2, 3, 4, 3)}
    expr = ("lib.autograd.grad((lib.autograd.grad(F.affine_grid(th, (2, 1, 2, 3, 4), "
            "align_corners=False), th, v, create_graph=True)[0] ** 2).sum(), (th, v), "
            "allow_unused=True)")
    got, want = evaluate(ag, expr, setup)[1], evaluate(torch, expr, setup)[1]
    assert got[0] is None and want[0] is None   # linear in theta
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_3d_float32(torch, align_corners):
    """float32: the base grid bit for bit (torch's linspace roundings); the product with
    theta to an ulp (the two matrix products add in different orders)."""
    th = np.random.default_rng(3).standard_normal((2, 3, 4))
    eye = np.concatenate([np.eye(3), np.zeros((3, 1))], 1)[None]
    for theta, atol in ((eye, 0), (th, 1e-6)):
        got, want = (lib.nn.functional.affine_grid(lib.tensor(theta, dtype=lib.float32),
                                                   (theta.shape[0], 1, 5, 7, 9),
                                                   align_corners=align_corners).numpy()
                     for lib in (ag, torch))
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=0, atol=atol)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_affine_grid_then_grid_sample(torch, padding_mode):
    """The usual spatial-transformer pair in 3-D: gradients reach theta through both nodes."""
    setup = {**AFFINE, "x": leaf(2, 2, 3, 4, 5)}
    expr = ("F.grid_sample(x, F.affine_grid(th, (2, 2, 2, 3, 2), align_corners=False), "
            f"padding_mode='{padding_mode}', align_corners=False)")
    assert_same_with_grads(torch, expr, setup)

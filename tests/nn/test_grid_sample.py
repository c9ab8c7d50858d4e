"""F.grid_sample against torch: values, dtypes, gradients for input and grid, grad_fn names,
second derivatives, every mode x padding_mode x align_corners, points outside [-1, 1] and on
the borders, empty tensors, the align_corners warning and the common errors.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, assert_same_with_grads, evaluate, leaf

# grid values in (-1.4, 1.4): points inside, and outside on every side
SETUP = {"x": leaf(2, 3, 4, 5), "g": leaf(2, 3, 2, 2, scale=1.4)}
# points exactly on the corners, edges and centre, where padding clamps or mirrors
EDGES = {"x": leaf(1, 2, 3, 4),
         "g": "lib.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]], [[1.0, -1.0], [-1.0, 0.5], "
              "[0.25, 1.0]]]], dtype=lib.float64).requires_grad_()"}
COMBINATIONS = list(itertools.product(("bilinear", "nearest", "bicubic"),
                                      ("zeros", "border", "reflection"), (False, True)))


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBINATIONS)
def test_values_and_gradients(torch, mode, padding_mode, align_corners):
    call = (f"F.grid_sample(x, g, mode='{mode}', padding_mode='{padding_mode}', "
            f"align_corners={align_corners})")
    assert_same_with_grads(torch, call, SETUP)
    assert_same_with_grads(torch, call, EDGES)


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBINATIONS)
def test_second_derivatives(torch, mode, padding_mode, align_corners):
    """The derivative node (GridSampler2DBackwardBackward0, both outputs) and the gradients
    of a combination of its outputs in the output gradient, the input and the grid."""
    setup = {**SETUP, "v": leaf(2, 3, 3, 2, scale=0.5)}
    call = (f"lib.autograd.grad(F.grid_sample(x, g, mode='{mode}', padding_mode="
            f"'{padding_mode}', align_corners={align_corners}), (x, g), v, create_graph=True)")
    assert_second_derivatives(torch, call, setup, "GridSampler2DBackwardBackward0")


def assert_second_derivatives(torch, call: str, setup: dict, node: str) -> None:
    """``call`` gives (grad_input, grad_grid) with create_graph=True: both must come from the
    derivative ``node`` with torch's values, and a combination of them must have torch's
    gradients in the output gradient ``v``, the input ``x`` and the grid ``g``."""
    first = evaluate(ag, call, setup)[1], evaluate(torch, call, setup)[1]
    assert len(first[0]) == len(first[1])   # zip would stop at the shorter
    for got, want in zip(*first):
        assert got.grad_fn.name() == want.grad_fn.name() == node
        assert got.requires_grad and got.dtype == ag.float64
        # atol: bicubic weights' derivatives cancel to 0 up to rounding, in either library
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9,
                                   atol=1e-13)
    second = (f"[None if d is None else d.detach() for d in lib.autograd.grad("
              f"(({call})[0] * x.detach().cos()).sum() + (({call})[1] * g.detach().sin()).sum(),"
              f" (v, x, g), allow_unused=True)]")
    got, want = evaluate(ag, second, setup)[1], evaluate(torch, second, setup)[1]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


VARIANTS = [
    "F.grid_sample(x, g, align_corners=False)",                       # the defaults
    "F.grid_sample(x, g, 'bicubic', 'border', True)",                 # positional
    "F.grid_sample(input=x, grid=g, mode='nearest', align_corners=True)",
    "F.grid_sample(x.detach(), g, align_corners=False)",              # only the grid
    "F.grid_sample(x, g.detach(), mode='bicubic', align_corners=False)",  # only the input
    "F.grid_sample(x.detach(), g.detach(), align_corners=False)",     # no graph
    "F.grid_sample(x, g[:, :1, :1], align_corners=True)",             # one point
    "F.grid_sample(x[:, :, :1, :1], g, padding_mode='reflection', align_corners=True)",
    "F.grid_sample(x[:, :, :1], g, mode='bicubic', padding_mode='reflection', "
    "align_corners=False)",
    "F.grid_sample(x[:0], g[:0], align_corners=False)",               # empty batch
    "F.grid_sample(x[:, :0], g, align_corners=False)",                # no channels
    "F.grid_sample(x, g[:, :0], align_corners=False)",                # no points
    "F.grid_sample(x, g * 50, padding_mode='reflection', align_corners=False)",  # far out
    "F.grid_sample(x, g * 50, mode='bicubic', padding_mode='reflection', align_corners=True)",
    "F.grid_sample(x, g * 50, padding_mode='border', align_corners=True)",
]


@pytest.mark.parametrize("expr", VARIANTS)
def test_argument_variants(torch, expr):
    assert_same_with_grads(torch, expr, SETUP)


ERRORS = [
    "F.grid_sample(x, g, mode='linear', align_corners=False)",
    "F.grid_sample(x, g, mode=1, align_corners=False)",
    "F.grid_sample(x, g, padding_mode='constant', align_corners=False)",
    "F.grid_sample(x, g, mode='bad', padding_mode='bad', align_corners=False)",
    "F.grid_sample(x, [[1.0]], align_corners=False)",
    "F.grid_sample(x, g, align_corners=1)",
    "F.grid_sample(x[0], g, align_corners=False)",                    # 3-D input
    "F.grid_sample(x, g[0], align_corners=False)",                    # 3-D grid
    "F.grid_sample(x[:1], g, align_corners=False)",                   # batch sizes differ
    "F.grid_sample(x, g[..., :1], align_corners=False)",              # last dim not 2
    "F.grid_sample(x, lib.cat([g, g], -1), align_corners=False)",
    "F.grid_sample(x, g[:, None], align_corners=False)",              # 5-D grid, 4-D input
    "F.grid_sample(x[:, :, :0], g, align_corners=False)",             # empty spatial dim
    "F.grid_sample(x[:, :, :, :0], g, align_corners=False)",
    "F.grid_sample(x[:, :, None], lib.zeros(2, 1, 3, 2, 3), mode='bicubic', align_corners=False)",
    "F.grid_sample(x[0, 0], g[0, 0], align_corners=False)",           # 2-D
    "F.grid_sample(x, g.float(), align_corners=False)",               # dtypes differ
    "F.grid_sample(x.float(), g, align_corners=False)",
    "F.grid_sample(x.detach().long(), g, align_corners=False)",       # integer input
    "F.grid_sample(x.detach().int(), g.detach().int(), align_corners=False)",
    "F.grid_sample(x.detach().bool(), g.detach().bool(), align_corners=False)",
    "F.grid_sample(x.float(), g.detach().int(), align_corners=False)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_align_corners_none_warns_and_means_false(torch):
    messages = []
    for lib in (ag, torch):
        x = lib.arange(12.0).reshape(1, 1, 3, 4)
        g = lib.tensor([[[[0.3, -0.6]]]])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.nn.functional.grid_sample(x, g)
        messages.append([str(w.message) for w in caught])
        expected = lib.nn.functional.grid_sample(x, g, align_corners=False)
        assert float(y) == float(expected)
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_float32_values_match_torch_closely(torch):
    """Torch's kernel formulas in float32 (not float64 then rounded): a few ulps at most."""
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((2, 3, 5, 6)), rng.uniform(-1.2, 1.2, (2, 4, 3, 2))
    for mode, padding_mode, align_corners in COMBINATIONS:
        kwargs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        got = ag.nn.functional.grid_sample(ag.tensor(x, dtype=ag.float32),
                                           ag.tensor(g, dtype=ag.float32), **kwargs)
        want = torch.nn.functional.grid_sample(torch.tensor(x, dtype=torch.float32),
                                               torch.tensor(g, dtype=torch.float32), **kwargs)
        assert got.dtype == ag.float32
        # a few ulps: torch's compiled kernel fuses some multiply-adds of the sums
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=3e-7)


def test_float32_gradients(torch):
    grads = []
    for lib in (ag, torch):
        x = lib.arange(24.0).reshape(1, 2, 3, 4).sin().requires_grad_()
        g = lib.arange(12.0).reshape(1, 2, 3, 2).cos().mul(1.2).requires_grad_()
        y = lib.nn.functional.grid_sample(x, g, mode="bicubic", align_corners=False)
        assert y.dtype == lib.float32 and y.grad_fn.name() == "GridSampler2DBackward0"
        (y * lib.arange(12.0).reshape(1, 2, 2, 3)).sum().backward()
        grads.append((x.grad.numpy(), g.grad.numpy()))
    for got, want in zip(*grads):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

"""renorm against torch (values, dtypes, nodes, errors), and the p < 1 norms' gradient at
zeros, which torch takes as 0 (renorm's derivative uses the same norm_backward)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {"x": "lib.arange(12.0).reshape(3, 4).mul(0.37).sin().requires_grad_()"}


@pytest.mark.parametrize("expr", [
    "lib.renorm(x, 2, 0, -1)", "lib.renorm(x, 0, 0, 1)", "lib.renorm(x, -1, 0, 1)",
    "lib.renorm(lib.ones(3), 2, 0, 1)", "lib.renorm(x, 2, 2, 1)", "lib.renorm(x.long(), 2, 0, 1)",
    "lib.renorm(x, float('inf'), 1, 0.5)", "x.renorm(1, -1, 0.5)", "lib.renorm(x, 2, 0, 0)",
    "lib.renorm(lib.zeros(0, 3), 2, 0, 1)", "lib.renorm(x, 0.5, 0, 2.0)",
    "(x * 1).renorm_(2, 0, 1)", "x.renorm_(2, 0, 1)", "lib.renorm(x.double(), 3, 1, 0.5)",
])
def test_renorm_matches_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_norms_below_one_have_torchs_zero_gradient_at_zeros(p):
    grads = []
    for lib in (ag, torch):
        x = lib.tensor([[0.0, 1.0, -2.0], [0.0, 0.0, 0.0], [0.5, 0.0, 3.0]], dtype=lib.float64,
                       requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.vector_norm(x, p, dim=1).sum(), x)
        grads.append(g.numpy())
    assert not np.isnan(grads[0]).any()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)

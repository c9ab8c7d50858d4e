"""F.local_response_norm and nn.LocalResponseNorm against torch: values, graph, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch, graph_names

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape, size, alpha, beta, k", [
    ((2, 5, 3), 3, 1e-4, 0.75, 1.0), ((2, 4, 3, 2), 2, 0.5, 0.5, 2.0),
    ((1, 6, 2, 2, 2), 5, 1.0, 1.5, 0.5), ((2, 3, 4), 1, 0.1, 0.75, 1.0)])
def test_local_response_norm_matches_torch(shape, size, alpha, beta, k):
    results = []
    for lib in (ag, torch):
        n = int(np.prod(shape))
        x = lib.arange(n, dtype=lib.float64).reshape(shape).mul(0.37).sin().requires_grad_()
        y = lib.nn.functional.local_response_norm(x, size, alpha, beta, k)
        (g,) = lib.autograd.grad((y * y.detach().cos()).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((y.detach().numpy(), graph_names(y), g.detach().numpy(), gg.numpy()))
    (y, graph, g, gg), (y_t, graph_t, g_t, gg_t) = results
    assert graph == graph_t
    for got, want in ((y, y_t), (g, g_t), (gg, gg_t)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("expr", [
    "lib.nn.functional.local_response_norm(lib.ones(2, 3), 2)",
    "lib.nn.functional.local_response_norm(lib.ones(0, 3, 2), 2)",
    "lib.nn.LocalResponseNorm(3, k=2.0)(lib.ones(2, 4, 3))",
])
def test_local_response_norm_edges_match_torch(expr):
    assert_same_as_torch(torch, expr)


def test_local_response_norm_module_repr_matches_torch():
    assert repr(ag.nn.LocalResponseNorm(2, beta=0.5)) == repr(torch.nn.LocalResponseNorm(2,
                                                                                          beta=0.5))

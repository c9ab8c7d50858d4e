"""quantile and nanquantile against torch: values, the whole recorded graph (torch builds
them from sort, gather, lerp_ and in-place squeeze), gradients, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch, graph_names

torch = pytest.importorskip("torch")

NAN = float("nan")
ROWS = [[0.3, -1.2, 2.0, 0.7, 0.1], [1.0, NAN, 0.5, -0.5, 3.0], [0.2, 0.4, 0.4, 0.9, -2.0]]


def _run(lib, fn_name, q, dim, keepdim, mode):
    x = lib.tensor(ROWS, dtype=lib.float64, requires_grad=True)
    if isinstance(q, list):
        q = lib.tensor(q, dtype=lib.float64)
    r = getattr(lib, fn_name)(x, q, dim=dim, keepdim=keepdim, interpolation=mode)
    (g,) = lib.autograd.grad(lib.nan_to_num(r).sum(), x)
    return tuple(r.shape), r.detach().numpy(), graph_names(r), g.numpy()


@pytest.mark.parametrize("fn_name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q", [0.3, [0.0, 0.25, 1.0]], ids=["scalar", "vector"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False)])
@pytest.mark.parametrize("mode", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_match_torch(fn_name, q, dim, keepdim, mode):
    got, want = _run(ag, fn_name, q, dim, keepdim, mode), _run(torch, fn_name, q, dim, keepdim,
                                                                  mode)
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-12)


@pytest.mark.parametrize("expr", [
    "lib.quantile(x.long(), 0.5)", "lib.quantile(x, 1.5)", "lib.quantile(x, -0.1)",
    "lib.quantile(x, 1 + 1e-7)", "lib.quantile(x, lib.tensor([0.5, 1.2]))",
    "lib.quantile(x, lib.tensor([[0.5]]))", "lib.quantile(x, lib.tensor([0.5], dtype=lib.float64))",
    "lib.quantile(lib.ones(0), 0.5)", "lib.quantile(x, 0.5, interpolation='foo')",
    "lib.quantile(x, 0.5, dim=3)", "lib.quantile(lib.ones(2, 0), 0.5, dim=0)",
    "lib.nanquantile(x, 2.0)", "lib.nanquantile(x.long(), 0.5)", "lib.quantile(x, [0.5])",
    "x.quantile(0.5, 1, True)", "x.nanquantile(lib.tensor([0.1, 0.9]), 0)",
    "lib.quantile(lib.tensor(2.0, requires_grad=True), 0.5, dim=0, keepdim=True)",
    "lib.quantile(lib.tensor(2.0, requires_grad=True), 0.5)",
])
def test_quantile_arguments_and_errors_match_torch(expr):
    assert_same_as_torch(torch, expr, {"x": "lib.arange(15.0).reshape(3, 5).requires_grad_()"})

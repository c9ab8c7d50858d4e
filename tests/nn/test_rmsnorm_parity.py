"""F.rms_norm and nn.RMSNorm against torch: values, the whole graph, gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch, graph_names

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape, weighted, eps, dtype", [
    ((4,), True, None, "float32"), ((3, 4), False, 1e-3, "float64"),
    ((4,), True, 1e-5, "float64"), ((2, 3, 4), True, None, "float64")])
def test_rms_norm_matches_torch(shape, weighted, eps, dtype):
    results = []
    for lib in (ag, torch):
        dt = getattr(lib, dtype)
        x = lib.arange(24, dtype=dt).reshape(2, 3, 4).mul(0.37).sin().requires_grad_()
        w = lib.arange(int(np.prod(shape)), dtype=dt).reshape(shape).cos().requires_grad_() \
            if weighted else None
        y = lib.nn.functional.rms_norm(x, shape, w, eps)
        grads = lib.autograd.grad((y * y.detach().cos()).sum(), [x] + ([w] if weighted else []))
        results.append((y.detach().numpy(), graph_names(y), [g.numpy() for g in grads]))
    (got, got_graph, got_grads), (want, want_graph, want_grads) = results
    assert got_graph == want_graph
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("expr", [
    "F.rms_norm(x, (5,))", "F.rms_norm(x, (2, 3))", "F.rms_norm(x, ())", "F.rms_norm(x, 4)",
    "F.rms_norm(x, (4,), lib.ones(3))", "F.rms_norm(x.long(), (4,))",
    "F.rms_norm(x, [4], lib.ones(4, dtype=lib.float64))", "F.rms_norm(x.double(), (4,))",
    "lib.nn.RMSNorm(4)(x)", "lib.nn.RMSNorm([3, 4], eps=1e-5, elementwise_affine=False)(x)",
])
def test_rms_norm_arguments_and_errors_match_torch(expr):
    assert_same_as_torch(torch, expr.replace("F.", "lib.nn.functional."),
                         {"x": "lib.arange(24.0).reshape(2, 3, 4).requires_grad_()"})


def test_rms_norm_module_matches_torch():
    for args in [(4,), ([3, 4], 1e-5, False)]:
        ours, theirs = ag.nn.RMSNorm(*args), torch.nn.RMSNorm(*args)
        assert repr(ours) == repr(theirs)
        assert list(dict(ours.named_parameters())) == list(dict(theirs.named_parameters()))

"""Derivatives computed on arrays when nothing records them (``derivative_formula``) give
the same bits as the same formula run as ops, and torch's values."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.util import derivative_formula


def _second_derivative(fn: str, dtype, record: bool):
    x = ag.tensor(np.linspace(-2, 2, 7), dtype=dtype, requires_grad=True)
    (g,) = ag.autograd.grad(getattr(x, fn)().sum(), x, create_graph=True)
    # With create_graph=True the second pass runs as ops (each one recorded).
    (gg,) = ag.autograd.grad(g.sum(), x, create_graph=record)
    return gg


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [ag.float16, ag.float32, ag.float64])
def test_same_bits_as_the_ops(fn, dtype):
    fast = _second_derivative(fn, dtype, record=False)
    ops = _second_derivative(fn, dtype, record=True)
    assert fast.grad_fn is None and ops.grad_fn is not None
    assert fast.dtype == ops.dtype == dtype
    np.testing.assert_array_equal(fast.numpy(), ops.detach().numpy())


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
def test_same_as_torch(fn):
    torch = pytest.importorskip("torch")
    x = torch.tensor(np.linspace(-2, 2, 7), requires_grad=True)
    (g,) = torch.autograd.grad(getattr(x, fn)().sum(), x, create_graph=True)
    (want,) = torch.autograd.grad(g.sum(), x)
    got = _second_derivative(fn, ag.float64, record=False)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-15)


def test_mixed_dtypes_or_shapes_run_as_ops():
    a32 = ag.ones(3)
    a64 = ag.ones(3, dtype=ag.float64)
    with ag.no_grad():
        mixed = derivative_formula(lambda a, b: a * b, a32, a64)
        broadcast = derivative_formula(lambda a, b: a * b, ag.ones(2, 1), ag.ones(3))
    assert mixed.dtype == ag.float64   # torch's promotion, through the ops
    assert tuple(broadcast.shape) == (2, 3)


def test_recorded_when_grad_mode_is_on():
    a = ag.ones(3, requires_grad=True)
    out = derivative_formula(lambda a, b: a * b * 2, a, ag.ones(3))
    assert out.grad_fn.name() == "MulBackward0"


def test_zero_dim():
    with ag.no_grad():
        out = derivative_formula(lambda a, b: a * b, ag.tensor(2.0), ag.tensor(3.0))
    assert isinstance(out, ag.Tensor) and out.shape == () and out.item() == 6.0

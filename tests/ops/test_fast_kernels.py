"""Forwards rewritten for speed give the bits of the formulas they replace: sigmoid's one
division, and the per-element functions (erf, erfc, lgamma, erfinv) read through
``fromiter`` rather than an array of objects."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.core.gradients import per_element
from agdebug.ops.pointwise.special import _lgamma_scalar

DTYPES = ["float16", "float32", "float64"]


def _values(dtype, shape=(997,)):
    x = (np.random.default_rng(0).standard_normal(shape) * 30).astype(dtype)
    x.flat[:7] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-4, -1e-4][:x.size]
    return x


def _sigmoid_two_divisions(x):   # the formula sigmoid had before: the reference
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(997,), (4, 16), ()])
def test_sigmoid_same_bits_as_two_divisions(dtype, shape):
    x = _values(dtype, shape)
    got = ag.tensor(x).sigmoid().numpy()
    want = np.asarray(_sigmoid_two_divisions(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [math.erf, math.erfc, _lgamma_scalar])
@pytest.mark.parametrize("shape", [(997,), (3, 5), ()])
def test_per_element_same_bits_as_frompyfunc(dtype, scalar, shape):
    x = _values(dtype, shape)
    got = per_element(np, x, scalar, "unused")
    want = np.array(np.frompyfunc(scalar, 1, 1)(x), dtype=x.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_gelu_and_its_graph_unchanged():
    x = ag.tensor(_values("float32", (4, 8)).clip(-5, 5), requires_grad=True)
    y = ag.nn.functional.gelu(x)
    assert y.grad_fn.name() == "GeluBackward0"
    (g,) = ag.autograd.grad(y.sum(), x)
    assert g.dtype == ag.float32 and tuple(g.shape) == (4, 8)

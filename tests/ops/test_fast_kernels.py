"""Forwards rewritten for speed give the bits of the formulas they replace: sigmoid's one
division, the per-element functions (erf, erfc, lgamma, erfinv) read through
``fromiter`` rather than an array of objects, and the vectorized float32/float16 erf."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.core.gradients import per_element
from agdebug.ops.pointwise.activations import _VECTORIZED_FROM
from agdebug.ops.pointwise.erf_kernel import erf_rounded
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


def _erf_per_element(x):
    return per_element(np, x, math.erf, "unused")


def _specials(dtype):
    return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 2.5, -2.5,
                     5.0, -5.0, 3.9, 1e4, np.finfo(dtype).tiny, np.finfo(dtype).max], dtype)


def test_vectorized_erf_gives_math_erfs_bits_for_every_float16():
    x = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        assert erf_rounded(x).tobytes() == _erf_per_element(x).tobytes()


@pytest.mark.parametrize("start", [0, 1, 5, 0x80000000])
def test_vectorized_erf_gives_math_erfs_bits_over_float32(start):
    # every 2,053rd float32 bit pattern from ``start`` (nan, inf, subnormals, both signs),
    # the specials, and GELU-like inputs of three scales, in a 3-d shape and transposed
    bits = np.arange(start, start + 2 ** 31, 2053, dtype=np.uint64).astype(np.uint32)
    rng = np.random.default_rng(start)
    for x in (bits.view(np.float32), _specials(np.float32),
              (rng.standard_normal((4, 16, 128)) * rng.choice([0.1, 1.5, 8.0])
               ).astype(np.float32), _values("float32", (64, 96)).T):
        with np.errstate(all="ignore"):
            got, want = erf_rounded(x), _erf_per_element(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.flags.c_contiguous and got.tobytes() == want.tobytes()


def test_erf_and_gelu_take_the_vectorized_kernel_from_its_size_with_the_same_graph():
    x = ag.tensor(_values("float32", (4, 16, 128)).clip(-6, 6), requires_grad=True)
    assert x.numel() >= _VECTORIZED_FROM
    y = ag.nn.functional.gelu(x)
    assert y.grad_fn.name() == "GeluBackward0"
    want = 0.5 * x.detach().numpy() * (1 + _erf_per_element(x.detach().numpy() / math.sqrt(2.0)))
    assert y.detach().numpy().tobytes() == want.astype(np.float32).tobytes()
    e = x.erf()
    assert e.grad_fn.name() == "ErfBackward0"
    assert e.detach().numpy().tobytes() == _erf_per_element(x.detach().numpy()).tobytes()

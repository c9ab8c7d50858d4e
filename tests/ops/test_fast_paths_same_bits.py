"""Shortcuts taken for speed give the bits of the path they stand in for: numpy's mean as a
sum over the count, layer_norm's derivative on arrays (without create_graph) against its
Tensor-op derivative (with it), uniform draws in [0, 1) without the fused multiply-add."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.reduction.sum_prod import array_mean

CASES = [((8, 4), (1,)), ((8, 4), (0,)), ((3, 5, 7), (1, 2)), ((3, 5, 7), (0, 2)),
         ((1000,), (0,)), ((2, 3), None), ((7,), None), ((5, 300), (1,)), ((), None)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis", CASES)
@pytest.mark.parametrize("keepdims", [True, False])
def test_array_mean_is_numpys_mean(dtype, shape, axis, keepdims):
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = (rng.standard_normal(shape) * rng.uniform(0.01, 1000)).astype(dtype)
        ours, numpys = array_mean(a, axis, keepdims), a.mean(axis=axis, keepdims=keepdims)
        assert type(ours) is type(numpys) and ours.dtype == numpys.dtype
        assert np.array_equal(ours, numpys)


def test_array_mean_leaves_other_cases_to_numpy():
    half = np.arange(6, dtype=np.float16).reshape(2, 3)
    assert array_mean(half, (1,)).dtype == np.float16   # numpy sums half in float32
    with pytest.warns(RuntimeWarning):   # numpy's own warning for an empty mean
        assert np.isnan(array_mean(np.zeros(0, np.float32)))
    assert array_mean(np.ones(3, np.float32), dtype=np.float64).dtype == np.float64


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
@pytest.mark.parametrize("shape, normalized", [((4, 3, 5), (5,)), ((4, 3, 5), (3, 5)),
                                               ((6,), (6,))])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_derivative_same_bits_with_and_without_create_graph(dtype, shape,
                                                                       normalized, affine):
    ag.manual_seed(0)
    x = ag.randn(*shape, dtype=dtype, requires_grad=True)
    params = [ag.randn(*normalized, dtype=dtype, requires_grad=True) for _ in range(2)]
    weight, bias = params if affine else (None, None)
    grad = ag.randn(*shape, dtype=dtype)
    inputs = (x, *params) if affine else (x,)
    results = []
    for create_graph in (False, True):   # the array derivative, then the Tensor-op one
        y = ag.nn.functional.layer_norm(x, normalized, weight, bias)
        grads = ag.autograd.grad(y, inputs, grad, create_graph=create_graph)
        results.append([g.detach().numpy() for g in grads])
    for plain, recorded in zip(*results):
        assert plain.dtype == recorded.dtype and np.array_equal(plain, recorded)


def test_layer_norm_second_derivative_still_recorded():
    x = ag.randn(3, 4, dtype=ag.float64, requires_grad=True)
    y = ag.nn.functional.layer_norm(x, (4,))
    (g,) = ag.autograd.grad((y * y.detach()).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    assert ag.autograd.gradgradcheck(lambda t: ag.nn.functional.layer_norm(t, (4,)), (x,))


def test_uniform_unit_draws_are_the_fma_path_bits():
    # rand() in float64 skips the fused multiply-add of u * (1 - 0) + 0: the same values
    from agdebug.generator import Generator, _fma64
    a, b = Generator().manual_seed(7), Generator().manual_seed(7)
    ours = a.uniform(1000, "float64")
    unit = (b.random64(1000) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    assert np.array_equal(ours, _fma64(unit, 1.0, 0.0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sigmoid_of_a_large_array_is_its_small_pieces_bits(dtype):
    """A large array's ones are written by a maximum, a small one's by putmask: the same
    quotients, specials included (NaN, infinities, signed zeros, the overflow range)."""
    from agdebug.ops.pointwise.unary import sigmoid
    rng = np.random.default_rng(2)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 88.7, -88.7, 104.0, -104.0,
                3e38, -3e38, 1e-38, -1e-38]
    with np.errstate(over="ignore"):
        x = np.concatenate([rng.standard_normal(4000) * 30, specials]).astype(dtype)
    whole = sigmoid.forward(np, x)
    pieces = np.concatenate([sigmoid.forward(np, x[k:k + 100]) for k in range(0, x.size, 100)])
    assert x.size >= 1024 and whole.dtype == pieces.dtype == x.dtype
    assert np.array_equal(whole.view(np.uint8), pieces.view(np.uint8))

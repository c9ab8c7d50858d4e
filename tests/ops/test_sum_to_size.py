"""``sum_to_size``'s short path (one leading dim summed: every Linear bias's gradient) against
its general one, bit for bit, and against torch."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.reduction.sum_prod import sum_to_size


@pytest.mark.parametrize("shape, size", [((128, 10), (10,)), ((7, 3, 5), (3, 5)),
                                         ((4, 3), (1, 3)), ((6,), ()), ((2, 3, 4), (3, 1))])
def test_the_leading_dim_sum_is_the_general_paths_bits(shape, size, torch):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    lead = x.ndim - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and x.shape[lead + i] != 1)
    general = x.sum(axis=axes, keepdims=True).reshape(size)
    out = sum_to_size(ag.tensor(x), size=size)
    assert type(out._data) is np.ndarray and out._data.dtype == np.float32
    assert out._data.shape == size and out._data.tobytes() == general.tobytes()
    np.testing.assert_allclose(out.numpy(), torch.tensor(x).sum_to_size(size).numpy(),
                               rtol=1e-6)


def test_a_bias_gradient_is_summed_over_the_batch(torch):
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    b = np.zeros(3, np.float32)
    grads = []
    for lib in (ag, torch):
        bias = lib.tensor(b, requires_grad=True)
        lib.nn.functional.linear(lib.tensor(x), lib.tensor(w), bias).square().sum().backward()
        grads.append(bias.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5)

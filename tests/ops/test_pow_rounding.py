"""``x ** e`` rounds as torch's CPU kernel rounds it: a program that squares and cubes its
features (pytorch/examples' regression) must see torch's bits, not NumPy's ``power``."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5, 1, 0, 2.0, 3.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_exponents_are_bitwise_torchs(torch, exponent, dtype):
    base = torch.randn(4096, dtype=getattr(torch, dtype)).abs() + 0.01
    want = (base ** exponent).numpy()
    got = (ag.tensor(base.numpy()) ** exponent).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("exponent", [4, 1.5, -3, 2.5])
def test_other_exponents_round_once_from_double(torch, exponent):
    """torch's vectorised powf is faithful, not correctly rounded: a double power rounded
    once differs from it in under 3% of values (NumPy's float32 power in about 11%),
    and never by more than one unit in the last place."""
    base = torch.randn(20000).abs() + 0.01
    want = (base ** exponent).numpy()
    got = (ag.tensor(base.numpy()) ** exponent).numpy()
    assert np.mean(got != want) < 0.03
    np.testing.assert_array_max_ulp(got, want, maxulp=1)


def test_square_root_is_sqrt():
    """``x ** 0.5`` is torch's sqrt kernel, MKL's (not correctly rounded): agdebug's is
    NumPy's, so the two agree with each other, not always with torch's last bit."""
    x = ag.rand(1000) + 0.01
    np.testing.assert_array_equal((x ** 0.5).numpy(), ag.sqrt(x).numpy())


def test_pow_gradient_still_uses_the_power_rule(torch):
    x = ag.tensor([0.5, 2.0, 3.0], requires_grad=True)
    (x ** 3).sum().backward()
    t = torch.tensor([0.5, 2.0, 3.0], requires_grad=True)
    (t ** 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())

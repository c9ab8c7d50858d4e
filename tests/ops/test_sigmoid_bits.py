"""sigmoid's forward, computed in place in one array, gives the bits of its formula written
out of place: ``where(x >= 0, 1, e) / (1 + e)`` with ``e = exp(-|x|)``."""

from __future__ import annotations

import numpy as np
import pytest

from agdebug.ops.pointwise.unary import sigmoid

SPECIALS = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -1e-30, 88.7, -88.7, -104.0]


def _formula(x):
    e = np.exp(-np.abs(x))
    return np.asarray(np.where(x >= 0, 1, e) / (1 + e)).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (11,), (4, 16), (3, 5, 9)])
def test_sigmoid_gives_its_formulas_bits(dtype, shape):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 20).astype(dtype)
    if x.ndim:
        flat = x.reshape(-1)
        n = min(len(SPECIALS), flat.size)
        flat[:n] = np.array(SPECIALS[:n], dtype)
    with np.errstate(all="ignore"):
        got, want = sigmoid.forward(np, x), _formula(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_sigmoid_of_every_float16_and_of_a_strided_view():
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        assert sigmoid.forward(np, every).tobytes() == _formula(every).tobytes()
    gates = np.random.default_rng(1).standard_normal((4, 64)).astype(np.float32)[:, 16:32]
    assert sigmoid.forward(np, gates).tobytes() == _formula(gates).tobytes()
    assert not gates.flags.c_contiguous

"""FractionalMaxPool2d/3d and F.fractional_max_pool2d/3d against torch: the windows drawn from
the same seed, given ``_random_samples`` bitwise (ties, NaN, float16/32/64), module reprs and
state dicts, and the errors in torch's words (the op suite has gradcheck and the nodes)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch


def _random_case(rng, n: int, dtype):
    size = tuple(int(s) for s in rng.integers(3, 10, n))
    kernel = tuple(int(rng.integers(1, 4)) for _ in range(n))
    slack = 0 if n == 2 else 1   # torch's 3d check wants the last window short of the end
    out = tuple(int(rng.integers(1, max(2, s - k + 2 - slack))) for s, k in zip(size, kernel))
    x = rng.standard_normal((2, 3) + size).astype(dtype)
    x.flat[::7] = np.round(x.flat[::7])   # ties
    x.flat[::11] = np.nan
    return x, kernel, out, rng.random((2, 3, n)).astype(dtype)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_windows_and_indices_bitwise(torch, n, dtype):
    rng = np.random.default_rng(n)
    for _ in range(25):
        x, kernel, out, u = _random_case(rng, n, dtype)
        if any(o + k - 1 >= s + (n == 2) for o, k, s in zip(out, kernel, x.shape[2:])):
            continue
        name = f"fractional_max_pool{n}d"
        want = getattr(torch.nn.functional, name)(torch.tensor(x), kernel, out, None, True,
                                                  torch.tensor(u))
        got = getattr(ag.nn.functional, name)(ag.tensor(x), kernel, out, None, True, ag.tensor(u))
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())


@pytest.mark.parametrize("make, shape", [
    ("lib.nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True)", (2, 3, 9, 8)),
    ("lib.nn.FractionalMaxPool2d((2, 3), output_size=(4, 3))", (3, 9, 8)),
    ("lib.nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))", (2, 2, 5, 6, 6)),
    ("lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.75))", (2, 6, 6, 5))])
def test_module_draws_as_torch(torch, make, shape):
    """Without ``_random_samples`` both draw rand(N, C, n) after the same seed."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(5)
        m = eval(make, {"lib": lib})
        x = lib.randn(*shape, dtype=lib.float64, requires_grad=True)
        out = m(x)
        y = out[0] if isinstance(out, tuple) else out
        y.backward(lib.ones_like(y))
        results.append((repr(m), y.grad_fn.name(), y.tolist(), x.grad.tolist(),
                        [t.tolist() for t in out[1:]] if isinstance(out, tuple) else None,
                        list(m.state_dict())))
    assert results[0] == results[1]


def test_random_samples_buffer_in_the_state_dict(torch):
    u = [[[0.25, 0.75]]]
    got = ag.nn.FractionalMaxPool2d(2, 3, _random_samples=ag.tensor(u))
    want = torch.nn.FractionalMaxPool2d(2, 3, _random_samples=torch.tensor(u))
    assert list(got.state_dict()) == list(want.state_dict()) == ["_random_samples"]
    assert got.state_dict()["_random_samples"].tolist() == u
    assert list(ag.nn.FractionalMaxPool2d(2, 3).state_dict()) == []
    assert ag.nn.FractionalMaxPool2d(2, 3).output_size == (3, 3)


X4 = "lib.arange(84.0).reshape(2, 3, 7, 2).repeat(1, 1, 1, 3)"
U4 = "lib.linspace(0.05, 0.95, 12).reshape(2, 3, 2)"
X5, U5 = "lib.arange(120.0).reshape(1, 2, 4, 5, 3)", "lib.linspace(0.1, 0.9, 6).reshape(1, 2, 3)"
ERRORS = [
    "F.fractional_max_pool2d(x, 2, output_size=7, _random_samples=u)",
    "F.fractional_max_pool2d(x, 3, output_size=(5, 5), _random_samples=u)",
    "F.fractional_max_pool2d(x, 2, output_size=(6, 4), _random_samples=u)",
    "F.fractional_max_pool2d(x, 0, output_size=3, _random_samples=u)",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.rand(2, 3, 3))",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.rand(1, 3, 2))",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.cat([u, u[:1]]))",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.rand(2, 2, 2))",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=u.double())",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.rand(6, 2))",
    "F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=u.requires_grad_())",
    "F.fractional_max_pool2d(x, 2, output_ratio=0.5)",
    "F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5))",
    "F.fractional_max_pool2d(x, 2)", "F.fractional_max_pool2d(x[0, 0], 2, output_size=3)",
    "F.fractional_max_pool2d(x[None], 2, output_size=3)",
    "F.fractional_max_pool2d(x, 2, output_size=(4, 4, 4))",
    "F.fractional_max_pool2d(x, [2], output_size=3)",
    "F.fractional_max_pool2d(x, 2.0, output_size=3, _random_samples=u)",
    "F.fractional_max_pool2d(x, 2, output_size=0, _random_samples=u)",
    "F.fractional_max_pool2d(x, 2, output_size=-1, _random_samples=u)",
    "F.fractional_max_pool2d(x.long(), 2, output_size=3, _random_samples=u)",
    "F.fractional_max_pool2d(x.long(), 2, output_size=3, _random_samples=u.long())",
    "F.fractional_max_pool2d(x[:0], 2, output_size=3, _random_samples=u[:0])",
    "F.fractional_max_pool2d(x[:, :, :0], 2, output_size=3, _random_samples=u)",
    "F.fractional_max_pool2d([1.0], 2, output_size=3, _random_samples=u)",
    "F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u * 0 + 1.5)",
    "F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u * 0 - 1)",
    "F.fractional_max_pool2d_with_indices(x, 2, output_size=3, _random_samples=u)",
    "F.fractional_max_pool3d(v, 2, output_size=(3, 4, 2), _random_samples=w)",
    "F.fractional_max_pool3d(v, 2, output_size=(2, 4, 2), _random_samples=w)",
    "F.fractional_max_pool3d(v, 2, output_size=(2, 3, 2), _random_samples=w)",
    "F.fractional_max_pool3d(v, (2, 2), output_size=2, _random_samples=w)",
    "F.fractional_max_pool3d(v, 2, output_size=(2, 2), _random_samples=w)",
    "F.fractional_max_pool3d(v[0, 0], 2, output_size=2)",
    "F.fractional_max_pool3d(v[:, :, :0], 2, output_size=2, _random_samples=w)",
    "F.fractional_max_pool3d(v, 2, output_size=2, _random_samples=lib.rand(1, 2, 2))",
    "F.fractional_max_pool3d(v.long(), 1, output_size=2, _random_samples=w.long())",
    "F.fractional_max_pool3d(v, 2, output_size=-1, _random_samples=w)",
    "F.fractional_max_pool3d(v, 2, output_size=2, _random_samples=w.requires_grad_())",
    "F.fractional_max_pool3d(v[0], 2, output_ratio=0.5, _random_samples=w)",
    "F.fractional_max_pool3d_with_indices(v, 1, output_size=2, _random_samples=w)",
    "lib.nn.FractionalMaxPool2d(2)", "lib.nn.FractionalMaxPool2d(2, 3, 0.5)",
    "lib.nn.FractionalMaxPool2d(2, output_ratio=1.5)", "lib.nn.FractionalMaxPool3d(0, 3)",
    "lib.nn.FractionalMaxPool3d((2, 0, 1), 3)", "lib.nn.FractionalMaxPool3d(2)",
    "lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_as_torch(torch, expr):
    assert_same_as_torch(torch, expr, {"x": X4, "u": U4, "v": X5, "w": U5})

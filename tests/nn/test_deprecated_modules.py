"""torch's deprecated nn.Container and nn.NLLLoss2d against torch: the FutureWarning, the
submodules, the loss."""

from __future__ import annotations

import pytest

import agdebug as ag


def _made(lib, make):
    with pytest.warns(FutureWarning) as caught:
        made = make(lib)
    return made, str(caught[0].message), caught[0].filename


def test_container_as_torch(torch):
    got, words, where = _made(ag, lambda lib: lib.nn.Container(a=lib.nn.ReLU(), b=lib.nn.Tanh()))
    want, torch_words, _ = _made(torch, lambda lib: lib.nn.Container(a=lib.nn.ReLU(),
                                                                   b=lib.nn.Tanh()))
    assert words == torch_words and where == __file__
    assert repr(got) == repr(want) and list(dict(got.named_children())) == ["a", "b"]


def test_nllloss2d_as_torch(torch):
    def loss(lib):
        x = lib.arange(24.0).reshape(2, 3, 2, 2).sin().log_softmax(1)
        target = lib.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
        m = lib.nn.NLLLoss2d(weight=lib.tensor([1.0, 2.0, 0.5]), ignore_index=2)
        return m, m(x, target)
    (got, value), words, where = _made(ag, loss)
    (want, torch_value), torch_words, _ = _made(torch, loss)
    assert words == torch_words and where == __file__
    assert repr(got) == repr(want) and isinstance(got, ag.nn.NLLLoss)
    assert value.item() == pytest.approx(torch_value.item(), rel=1e-6)
    assert list(got.state_dict()) == list(want.state_dict())


@pytest.mark.parametrize("name, kwargs", [
    ("upsample", {"scale_factor": 2}), ("upsample", {"size": (3, 5), "mode": "bilinear"}),
    ("upsample", {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True}),
    ("upsample_nearest", {"size": 5}), ("upsample_bilinear", {"scale_factor": 2}),
    ("upsample_bilinear", {"size": (4, 3)})])
def test_deprecated_upsample_functions_as_torch(torch, name, kwargs):
    """F.upsample* are interpolate under torch's UserWarning, at the caller's line."""
    import numpy as np
    values = np.random.default_rng(0).standard_normal((1, 2, 2, 3))
    results = []
    for lib in (ag, torch):
        x = lib.tensor(values, requires_grad=True)
        with pytest.warns(UserWarning) as caught:
            y = getattr(lib.nn.functional, name)(x, **kwargs)
        (y * y).sum().backward()
        node = type(y.grad_fn).__name__ if lib is torch else y.grad_fn.name()
        results.append((y.detach().numpy(), x.grad.numpy(), str(caught[0].message),
                        caught[0].filename, node))
    got, want = results
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)
    assert got[2] == want[2] and got[3] == want[3] == __file__
    assert got[4] == want[4]

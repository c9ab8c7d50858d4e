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

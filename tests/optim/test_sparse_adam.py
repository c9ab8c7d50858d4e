"""SparseAdam against torch.optim: built and checked as torch's; a step refuses in torch's words
(every agdebug gradient is dense), naming agdebug's missing sparse tensors."""

from __future__ import annotations

import pytest

import agdebug as ag

from .parity import error_of


def _stepped(lib):
    w = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SparseAdam([w], lr=0.01, betas=(0.8, 0.9), maximize=True)
    w.sum().backward()
    with pytest.raises(RuntimeError) as caught:
        opt.step()
    return str(caught.value), repr(opt), opt.state_dict()


def test_a_step_refuses_dense_gradients_as_torch_does(torch):
    words, text, state = _stepped(ag)
    torch_words, torch_text, torch_state = _stepped(torch)
    assert words == f"{torch_words} (agdebug has no sparse tensors (only torch's dense, " \
        "strided layout))"
    assert (text, state) == (torch_text, torch_state)


@pytest.mark.parametrize("kwargs", [{"lr": 0.0}, {"lr": -1}, {"eps": 0.0}, {"betas": (1.0, 0.5)},
                                    {"betas": (0.5, -0.1)}])
def test_bad_hyper_parameters_raise_torch_errors(torch, kwargs):
    def make(lib):
        return lambda: lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(2))], **kwargs)
    assert error_of(ag, make(ag)) == error_of(torch, make(torch))


def test_a_step_without_gradients_does_nothing():
    w = ag.nn.Parameter(ag.ones(2))
    opt = ag.optim.SparseAdam([w])
    assert opt.step(lambda: 3.0) == 3.0
    assert opt.state_dict()["state"] == {}

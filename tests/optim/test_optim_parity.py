"""Every optimizer against torch.optim: parameters after several steps in float64 (rtol 1e-10),
the state it keeps, its API (param_groups, state_dict, closure, zero_grad) and its errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import agdebug as ag
from agdebug import nn, optim

from .parity import error_of, loss, model, run, set_grads

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.8, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.9), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.3, "amsgrad": True, "betas": (0.7, 0.8)}),
    ("AdamW", {"lr": 0.1, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-4, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1,
                 "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.1, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.1, "maximize": True, "eps": 1e-3}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.1, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.1, "betas": (0.5, 0.6), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1, "betas": (0.5, 0.6), "weight_decay": 0.1,
               "decoupled_weight_decay": True, "maximize": True}),
]


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=lambda v: str(v))
def test_float64_steps_match_torch(torch, name, kwargs):
    ours, ours_values = run(ag, name, kwargs)
    theirs, their_values = run(torch, name, kwargs)
    for a, b in zip(ours_values, their_values):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    _assert_same_state(ours.state_dict(), theirs.state_dict())


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[6], CONFIGS[10], CONFIGS[14]])
def test_float64_training_with_backward_matches_torch(torch, name, kwargs):
    ours = run(ag, name, kwargs, backward=True)[1]
    theirs = run(torch, name, kwargs, backward=True)[1]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "NAdam", "RAdam"])
def test_float32_steps_match_torch(torch, name):
    kwargs = {"lr": 0.05, "momentum": 0.9} if name == "SGD" else {"lr": 0.05}
    ours = run(ag, name, kwargs, dtype="float32", backward=True)
    theirs = run(torch, name, kwargs, dtype="float32", backward=True)
    for a, b in zip(ours[1], theirs[1]):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _assert_same_state(ours: dict, theirs: dict) -> None:
    """Same keys, same group options, same state tensors (values and dtypes)."""
    assert [sorted(g) for g in ours["param_groups"]] == \
        [sorted(g) for g in theirs["param_groups"]]
    for g, h in zip(ours["param_groups"], theirs["param_groups"]):
        assert g == {k: (tuple(v) if isinstance(v, tuple) else v) for k, v in h.items()}
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for key, state in ours["state"].items():
        assert sorted(state) == sorted(theirs["state"][key])
        for name, value in state.items():
            other = theirs["state"][key][name].detach().numpy()
            assert value.numpy().dtype == other.dtype, name
            np.testing.assert_allclose(value.numpy(), other, rtol=1e-10, err_msg=name)


def test_defaults_are_torchs(torch):
    for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam"]:
        ours = getattr(optim, name)([nn.Parameter(ag.ones(1))]).defaults
        theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))]).defaults
        assert ours == theirs, name


def test_step_bumps_version_and_skips_params_without_grad():
    w, unused = nn.Parameter(ag.ones(2)), nn.Parameter(ag.ones(2))
    opt = optim.SGD([w, unused], lr=1.0)
    (w * 3).sum().backward()
    opt.step()
    assert w.tolist() == [-2.0, -2.0] and w._version == 1
    assert unused.tolist() == [1.0, 1.0] and unused._version == 0
    assert w.grad_fn is None and w.requires_grad
    assert len(opt.state) == 0   # no momentum: SGD keeps no state, as torch


def test_adamw_version_counts_like_torch(lib):
    w = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.AdamW([w], lr=0.1)
    (w * 3).sum().backward()
    opt.step()
    assert w._version == 2   # mul_ (weight decay) then addcdiv_


@pytest.mark.parametrize("name, options, calls", [("Adam", {"lr": 0.1}, 1),
                                                   ("LBFGS", {"max_iter": 2}, 2)])
def test_step_runs_under_no_grad_and_closure_under_grad(lib, name, options, calls):
    w = lib.nn.Parameter(lib.ones(2))
    opt = getattr(lib.optim, name)([w], **options)
    seen = []

    def closure():
        seen.append(lib.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    with lib.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 2.0 and seen == [True] * calls   # the loss before the step
    assert w.grad_fn is None and w.requires_grad and w.is_leaf
    assert w._version == 1   # one in-place update, as torch counts it
    assert opt.state[w]["n_iter" if name == "LBFGS" else "step"] == 1


def test_zero_grad(lib):
    w = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([w], lr=0.1)
    (w * 2).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad and w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_param_groups_and_add_param_group(lib):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([a], lr=0.1, momentum=0.9)
    group = {"params": b, "lr": 0.5}
    opt.add_param_group(group)
    assert len(opt.param_groups) == 2 and opt.param_groups[1] is group
    assert group["params"] == [b] and group["momentum"] == 0.9 and group["lr"] == 0.5
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])


def test_adagrad_makes_the_state_of_a_param_added_later(torch):
    # torch makes it at the param's first step, from the defaults' initial_accumulator_value
    def added(lib):
        w, b = model(lib, lib.float64)
        opt = lib.optim.Adagrad([w], lr=0.1, initial_accumulator_value=0.5)
        opt.add_param_group({"params": [b], "initial_accumulator_value": 2.0})
        for step in range(2):
            set_grads(lib, [w, b], step)
            opt.step()
        return [b.detach().numpy().copy()] + [v.numpy().copy() for v in opt.state[b].values()]
    for t, a in zip(added(torch), added(ag), strict=True):
        np.testing.assert_allclose(a, t, rtol=1e-12)


def test_named_parameters_keep_names(lib):
    net = lib.nn.Linear(2, 1)
    opt = lib.optim.Adam(net.named_parameters())
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


def test_state_dict_round_trip_continues_identically():
    def make():
        w, b = model(ag, ag.float64)
        return w, b, optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1)
    w1, b1, opt1 = make()
    w2, b2, opt2 = make()
    for step in range(3):
        for w, b, opt in ((w1, b1, opt1), (w2, b2, opt2)):
            opt.zero_grad()
            loss(ag, w, b, step).backward()
            opt.step()
    saved = pickle.loads(pickle.dumps(opt1.state_dict()))
    assert saved["param_groups"][1]["params"] == [1] and saved["state"][0]["step"].item() == 3
    w3, b3, opt3 = make()
    with ag.no_grad():
        w3.copy_(w1)
        b3.copy_(b1)
    opt3.load_state_dict(saved)
    assert opt3.param_groups[1]["lr"] == 0.01 and opt3.param_groups[0]["params"] == [w3]
    for w, b, opt in ((w2, b2, opt2), (w3, b3, opt3)):
        opt.zero_grad()
        loss(ag, w, b, 3).backward()
        opt.step()
    np.testing.assert_array_equal(w3.detach().numpy(), w2.detach().numpy())


def test_load_state_dict_casts_state_to_the_param_dtype(torch):
    for lib in (ag, torch):
        w = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        opt = lib.optim.Adam([w])
        (w * 2).sum().backward()
        opt.step()
        sd = opt.state_dict()
        sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
        opt.load_state_dict(sd)
        assert opt.state[w]["exp_avg"].dtype == lib.float64
        assert opt.state[w]["step"].dtype == lib.float32


def test_load_state_dict_errors(lib):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([a, b], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(lib.optim.SGD([{"params": [a]}, {"params": [b]}]).state_dict())
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(lib.optim.SGD([a]).state_dict())


def test_repr_matches_torch(torch):
    ours = optim.SGD([nn.Parameter(ag.ones(1))], lr=0.1)
    theirs = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    assert repr(ours) == repr(theirs)


BAD = [
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=-1.0),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], momentum=-0.5),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], weight_decay=-1),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], nesterov=True),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(0.9, 1.0)),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(-0.1, 0.9)),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], eps=-1e-8),
    lambda lib: lib.optim.AdamW([lib.nn.Parameter(lib.ones(1))], lr=-0.1),
    lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.ones(1))], alpha=-0.1),
    lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.ones(1))], momentum=-0.1),
    lambda lib: lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))], lr_decay=-0.1),
    lambda lib: lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))],
                                  initial_accumulator_value=-1.0),
    lambda lib: lib.optim.NAdam([lib.nn.Parameter(lib.ones(1))], momentum_decay=-1.0),
    lambda lib: lib.optim.RAdam([lib.nn.Parameter(lib.ones(1))], weight_decay=-1.0),
    lambda lib: lib.optim.Adamax([lib.nn.Parameter(lib.ones(1))], betas=(0.9, 1.5)),
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(lib.nn.Parameter(lib.ones(1)), lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([{"params": {lib.nn.Parameter(lib.ones(1))}}], lr=0.1),
    lambda lib: lib.optim.SGD([("w", lib.nn.Parameter(lib.ones(1))),
                               lib.nn.Parameter(lib.ones(1))], lr=0.1),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(torch, index):
    theirs = error_of(torch, BAD[index])
    assert theirs is not None
    assert error_of(ag, BAD[index]) == theirs


def test_non_leaf_that_retains_grad_is_accepted(lib):
    y = lib.ones(2, requires_grad=True) * 2
    y.retain_grad()
    assert lib.optim.SGD([y], lr=0.1).param_groups[0]["params"] == [y]


def test_duplicate_parameter_warns(lib):
    w = lib.nn.Parameter(lib.ones(1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.optim.SGD([w, w], lr=0.1)
    assert any("duplicate parameters" in str(c.message) for c in caught)

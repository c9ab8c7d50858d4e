"""The optimizers' ``differentiable``, ``fused`` and ``capturable`` modes against torch: values
after several steps, gradients through the steps (meta-learning), and torch's refusals."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import agdebug

from . import parity

torch = pytest.importorskip("torch")

# (optimizer, kwargs, lr as a tensor that needs grad); where torch itself raises (a saved tensor
# overwritten by a later step, a tensor lr passed as a Number), agdebug must raise the same
DIFFERENTIABLE = [
    ("SGD", {}, False),
    ("SGD", {}, True),
    ("SGD", {"momentum": 0.9, "nesterov": True}, False),
    ("SGD", {"momentum": 0.9, "dampening": 0.3, "maximize": True}, True),
    ("SGD", {"momentum": 0.9, "weight_decay": 0.1}, True),
    ("Adam", {}, False),
    ("Adam", {}, True),
    ("Adam", {"weight_decay": 0.1, "maximize": True}, True),
    ("Adam", {"amsgrad": True}, False),
    ("AdamW", {}, False),
    ("AdamW", {}, True),
    ("RMSprop", {}, False),
    ("RMSprop", {}, True),
    ("RMSprop", {"momentum": 0.5, "weight_decay": 0.1}, False),
    ("RMSprop", {"centered": True}, False),
    ("Adagrad", {}, False),
    ("Adagrad", {}, True),
    ("Adagrad", {"lr_decay": 0.1, "weight_decay": 0.1, "maximize": True}, False),
    ("Adadelta", {}, False),
    ("Adadelta", {}, True),
    ("Adadelta", {"weight_decay": 0.1, "maximize": True}, False),
    ("Adamax", {}, False),
    ("Adamax", {}, True),
    ("Adamax", {"weight_decay": 0.1, "maximize": True}, False),
    ("ASGD", {}, False),
    ("ASGD", {}, True),
    ("ASGD", {"t0": 1, "weight_decay": 0.1, "maximize": True}, True),
    ("NAdam", {}, False),
    ("NAdam", {}, True),
    ("NAdam", {"weight_decay": 0.1}, False),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}, False),
    ("RAdam", {}, False),
    ("RAdam", {}, True),
    ("RAdam", {"weight_decay": 0.1, "maximize": True}, False),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}, True),
    ("Rprop", {}, True),
    ("Rprop", {}, False),
    ("Rprop", {"maximize": True}, False),
]


def _outcome(lib, name, kwargs, lr_tensor, steps=3):
    try:
        return parity.meta_run(lib, name, dict(kwargs), steps=steps, lr_tensor=lr_tensor)
    except (RuntimeError, TypeError) as e:
        # the version numbers in torch's message depend on which node its engine reaches first
        return type(e).__name__, str(e).split(", is at version")[0]


# One step compares values and gradients wherever torch refuses a later step (a saved tensor
# overwritten in place); three compare the refusal, or the values after it where none comes.
@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("name,kwargs,lr_tensor", DIFFERENTIABLE)
def test_differentiable_steps_match_torch(name, kwargs, lr_tensor, steps):
    _assert_same_outcome(_outcome(torch, name, kwargs, lr_tensor, steps),
                         _outcome(agdebug, name, kwargs, lr_tensor, steps))


WITH_WEIGHT_DECAY = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                     "ASGD", "NAdam", "RAdam"]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", WITH_WEIGHT_DECAY)
def test_differentiable_steps_with_a_tensor_weight_decay_match_torch(name, requires_grad):
    # read as a number (torch's ``alpha=``), refused in torch's words when it needs grad, but
    # by SGD and Adam, which multiply it in as a tensor
    def outcome(lib):
        decay = lib.tensor(0.1, dtype=lib.float64, requires_grad=requires_grad)
        return _outcome(lib, name, {"weight_decay": decay}, False, steps=1)
    _assert_same_outcome(outcome(torch), outcome(agdebug))


@pytest.mark.parametrize("lr_tensor", [False, True])
def test_differentiable_radam_rectified_steps_match_torch(lr_tensor):
    # RAdam's variance rectification starts once the SMA length passes 5 (step 6, 7 here)
    kwargs = {"betas": (0.9, 0.99)}
    _assert_same_outcome(_outcome(torch, "RAdam", kwargs, lr_tensor, steps=7),
                         _outcome(agdebug, "RAdam", kwargs, lr_tensor, steps=7))


def _assert_same_outcome(expected, got):
    if isinstance(expected[0], str):
        assert got == expected
        return
    (t_arrays, t_nodes), (a_arrays, a_nodes) = expected, got
    assert a_nodes == t_nodes
    for t, a in zip(t_arrays, a_arrays):
        assert (t is None) == (a is None)
        if t is not None:
            np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("lib", [torch, agdebug], ids=["torch", "agdebug"])
def test_differentiable_step_records_even_under_no_grad(lib):
    w0 = lib.ones(2, requires_grad=True)
    w = w0.clone()
    opt = lib.optim.SGD([w], lr=0.1, differentiable=True)
    w.grad = lib.ones(2)
    with lib.no_grad():
        opt.step()
        assert not lib.is_grad_enabled()   # the caller's mode comes back after the step
    assert type(w.grad_fn).__name__ == "AddBackward0"


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "Rprop"])
def test_differentiable_updates_the_state_as_torch(name):
    # the state's dtypes, values and graph (ASGD's eta records the copy of a tensor lr)
    def state(lib):
        w = lib.tensor(parity.W0.copy(), requires_grad=True).clone()
        # a tensor lr where torch's step takes one (the others pass it as a Number)
        lr = (lib.tensor(0.05, dtype=lib.float64, requires_grad=True)
              if name in ("ASGD", "NAdam", "RAdam") else 0.05)
        opt = getattr(lib.optim, name)([w], lr=lr, differentiable=True)
        for step in range(2):
            w.grad = w.tanh() * 3 - 0.2 * step
            opt.step()
        return {k: (str(v.dtype), v.requires_grad, type(v.grad_fn).__name__,
                    v.detach().numpy().copy()) for k, v in opt.state[w].items()}
    expected, got = state(torch), state(agdebug)
    assert got.keys() == expected.keys()
    for key, (*t_meta, t_value) in expected.items():
        *a_meta, a_value = got[key]
        assert a_meta == t_meta, key
        np.testing.assert_allclose(a_value, t_value, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "Rprop"])
def test_a_tensor_lr_without_grad_is_taken_as_a_number(name):
    # torch refuses a Tensor for a Number argument only when it needs grad
    def make(lib):
        w = lib.ones(2, requires_grad=True).clone()
        opt = getattr(lib.optim, name)([w], lr=lib.tensor(0.1), differentiable=True)
        w.grad = w * 2
        opt.step()
        return w.detach().numpy().tolist()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make) is None
    np.testing.assert_allclose(make(agdebug), make(torch), rtol=1e-6)


def test_rprop_refuses_a_tensor_lr_that_needs_grad_at_its_first_step():
    def make(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Rprop([p], lr=lib.tensor(0.1, requires_grad=True))
        p.grad = lib.ones(2)
        opt.step()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert parity.error_of(agdebug, make)[0] == "TypeError"


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "ASGD", "NAdam", "RAdam", "Rprop"])
def test_differentiable_in_place_update_of_a_leaf_is_refused(name):
    def make(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([p], lr=0.1, differentiable=True)
        p.grad = lib.ones(2)
        opt.step()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert parity.error_of(agdebug, make)[1].startswith("a leaf Variable")


@pytest.mark.parametrize("differentiable", [False, True])
def test_non_leaf_params_need_differentiable(differentiable):
    def make(lib):
        lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], differentiable=differentiable)
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                  "ASGD", "NAdam", "RAdam", "Rprop"])
def test_foreach_with_differentiable(name):
    # SGD's multi-tensor path records the graph (the step and the gradient's own graph reach
    # w0); the others' refuse autograd
    def make(lib):
        w0 = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        w = w0.clone()
        opt = getattr(lib.optim, name)([w], lr=0.1, foreach=True, differentiable=True)
        w.grad = w * 3 - 1
        opt.step()
        (grad,) = lib.autograd.grad(w.sum(), w0)
        return type(w.grad_fn).__name__, w.detach().numpy().copy(), grad.numpy().copy()
    expected = parity.error_of(torch, make)
    assert parity.error_of(agdebug, make) == expected
    assert (expected is None) == (name == "SGD")
    if expected is None:
        (t_node, *t_arrays), (a_node, *a_arrays) = make(torch), make(agdebug)
        assert a_node == t_node == "AddBackward0"
        for t, a in zip(t_arrays, a_arrays):
            np.testing.assert_allclose(a, t, rtol=1e-12)


FUSED = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("AdamW", {"lr": 0.1, "amsgrad": True}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1,
                 "initial_accumulator_value": 0.2, "maximize": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", FUSED)
def test_fused_matches_torch(name, kwargs, dtype):
    # torch's fused CPU kernels agree with its for-loop path to an ulp, agdebug follows the latter
    t_opt, expected = parity.run(torch, name, dict(kwargs, fused=True), dtype=dtype)
    a_opt, got = parity.run(agdebug, name, dict(kwargs, fused=True), dtype=dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for t, a in zip(expected, got):
        np.testing.assert_allclose(a, t, rtol=rtol, atol=rtol)
    assert len(a_opt.state) == len(t_opt.state)
    for t_state, a_state in zip(t_opt.state.values(), a_opt.state.values()):
        assert {k: str(v.dtype) for k, v in a_state.items()} == \
               {k: str(v.dtype) for k, v in t_state.items()}


@pytest.mark.parametrize("fused", [False, True])
def test_load_state_dict_makes_a_fused_step_float32(fused):
    def steps(lib):
        opt, _ = parity.run(lib, "Adam", {"lr": 0.1, "fused": fused}, steps=1)
        saved = opt.state_dict()
        for state in saved["state"].values():
            state["step"] = lib.tensor(1.0, dtype=lib.float64)
        opt.load_state_dict(saved)
        return [str(s["step"].dtype) for s in opt.state.values()]
    assert steps(agdebug) == steps(torch)
    assert steps(agdebug)[0] == ("torch.float32" if fused else "torch.float64")


@pytest.mark.parametrize("saved_fused,fused", [(True, False), (False, True)])
def test_load_state_dict_reads_fused_from_the_saved_groups(saved_fused, fused):
    # the saved groups replace the optimizer's own: theirs decide the step's dtype, as in torch
    def loaded(lib):
        saved, _ = parity.run(lib, "Adam", {"lr": 0.1, "fused": saved_fused}, steps=1)
        opt, _ = parity.run(lib, "Adam", {"lr": 0.1, "fused": fused}, steps=1)
        opt.load_state_dict(saved.state_dict())
        return [str(s["step"].dtype) for s in opt.state.values()], opt.param_groups[0]["fused"]
    assert loaded(agdebug) == loaded(torch)
    assert loaded(agdebug)[1] is saved_fused


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
@pytest.mark.parametrize("options", [{"differentiable": True}, {"foreach": True}],
                         ids=["differentiable", "foreach"])
def test_fused_refusals_at_construction(name, options):
    def make(lib):
        getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], fused=True, **options)
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert parity.error_of(agdebug, make)[0] == "RuntimeError"


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad"])
def test_fused_refuses_non_float_params(name):
    def make(lib):
        p = lib.ones(2, dtype=lib.int64)
        opt = getattr(lib.optim, name)([p], lr=0.1, fused=True)
        p.grad = lib.ones(2, dtype=lib.int64)
        opt.step()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert "`fused=True` requires" in parity.error_of(agdebug, make)[1]


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad"])
def test_fused_checks_the_params_of_a_deep_copy(name):
    # SGD and Adagrad check the first parameter with a gradient once, reading the flag with
    # getattr(self, ..., True); a copy drops it (__getstate__) and checks again
    def make(lib):
        w, p = lib.nn.Parameter(lib.ones(2)), lib.ones(2, dtype=lib.int64)
        opt = getattr(lib.optim, name)([w, p], lr=0.1, fused=True)
        w.grad = lib.ones(2)
        opt.step()
        opt = copy.deepcopy(opt)
        w, p = opt.param_groups[0]["params"]
        w.grad, p.grad = None, lib.ones(2, dtype=lib.int64)
        opt.step()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert "`fused=True` requires" in parity.error_of(agdebug, make)[1]


def test_fused_adagrad_checks_the_params_at_step_not_construction():
    def make(lib):
        opt = lib.optim.Adagrad([lib.ones(2, dtype=lib.int64)], fused=True)
        return [{k: str(v.dtype) for k, v in state.items()} for state in opt.state.values()]
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make) is None
    assert make(agdebug) == make(torch)


@pytest.mark.parametrize("name", ["RMSprop", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam",
                                  "Rprop"])
def test_fused_is_not_an_argument_elsewhere(name):
    def make(lib):
        getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], fused=True)
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "ASGD",
                                  "NAdam", "RAdam", "Rprop"])
def test_capturable_on_cpu_is_refused_at_step(name):
    def make(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([p], capturable=True)
        p.grad = lib.ones(2)
        opt.step()
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)
    assert parity.error_of(agdebug, make)[0] == "AssertionError"


@pytest.mark.parametrize("name", ["SGD", "Adagrad"])
def test_capturable_is_not_an_argument_of(name):
    def make(lib):
        getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], capturable=True)
    assert parity.error_of(agdebug, make) == parity.error_of(torch, make)


@pytest.mark.parametrize("name", WITH_WEIGHT_DECAY)
def test_steps_with_a_tensor_weight_decay_match_torch(name):
    def params(lib):
        return parity.run(lib, name, {"weight_decay": lib.tensor(0.1, dtype=lib.float64)})[1]
    for t, a in zip(params(torch), params(agdebug)):
        np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-12)


STEPPED = ["Adam", "Adagrad", "RMSprop", "RAdam", "NAdam", "Adamax", "ASGD", "Adadelta", "Rprop"]


@pytest.mark.parametrize("differentiable", [False, True])
@pytest.mark.parametrize("name", STEPPED)
def test_the_step_counts_its_versions_as_torch(name, differentiable):
    # torch's ``state["step"] += 1`` is an in-place op: a saved step would be caught changed
    def versions(lib):
        leaf = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        p = leaf.clone() if differentiable else leaf
        opt = getattr(lib.optim, name)([p], lr=0.01, differentiable=differentiable)
        for _ in range(2):
            p.grad = p.detach() * 3
            opt.step()
        return opt.state[p]["step"]._version
    assert versions(agdebug) == versions(torch)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "NAdam", "Adadelta"])
def test_a_weight_decay_tensor_that_needs_grad_outside_differentiable_mode(name):
    # torch's ``alpha=`` refuses it (TypeError); SGD adds it into the gradient in place
    def run(lib):
        p = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        wd = lib.tensor(0.1, dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=0.01, weight_decay=wd)
        try:
            for _ in range(2):
                (p * p).sum().backward()   # (no zero_grad: what SGD wrote into .grad stays)
                opt.step()
        except TypeError as error:
            return str(error)
        return p.detach().numpy().tolist()
    got, want = run(agdebug), run(torch)
    assert type(got) is type(want)
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12)

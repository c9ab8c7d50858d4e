"""Adadelta, Rprop, ASGD, Adafactor and LBFGS against torch.optim: parameters after several
steps in float64 (rtol 1e-10), the state they keep (keys, values, dtypes, Python types),
state_dict round trips and torch's errors for bad hyper-parameters."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import agdebug as ag
from agdebug import nn, optim

from .parity import B0, W0, error_of, model, run, set_grads

# gradients whose signs flip often (Rprop's and ASGD's branches are taken)
FREQUENCY = 3.0


def _run(lib, name, kwargs, steps=10, dtype="float64", backward=False):
    return run(lib, name, kwargs, steps, dtype, backward, frequency=FREQUENCY)


CONFIGS = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 2.0, "rho": 0.95, "maximize": True, "foreach": False}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("Rprop", {"lr": 0.2, "etas": (0.7, 1.1), "step_sizes": (0.05, 0.3), "maximize": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "lambd": 0.1, "alpha": 1.0, "t0": 0, "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.1, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5,
                   "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.3, "eps": (None, 0.5), "maximize": True}),
]


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=lambda v: str(v))
def test_float64_steps_match_torch(torch, name, kwargs):
    ours, ours_values = _run(ag, name, kwargs)
    theirs, their_values = _run(torch, name, kwargs)
    for a, b in zip(ours_values, their_values):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    _assert_same_state_dict(ours.state_dict(), theirs.state_dict())


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[4], CONFIGS[7], CONFIGS[10]],
                         ids=lambda v: str(v))
def test_float64_training_with_backward_matches_torch(torch, name, kwargs):
    ours = _run(ag, name, kwargs, backward=True)[1]
    theirs = _run(torch, name, kwargs, backward=True)[1]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["Adadelta", "Rprop", "ASGD", "Adafactor"])
def test_float32_steps_match_torch(torch, name):
    ours = _run(ag, name, {"lr": 0.05}, steps=6, dtype="float32", backward=True)
    theirs = _run(torch, name, {"lr": 0.05}, steps=6, dtype="float32", backward=True)
    for a, b in zip(ours[1], theirs[1]):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    _assert_same_state_dict(ours[0].state_dict(), theirs[0].state_dict(), rtol=1e-4)


def test_rprop_configs_exercise_sign_flips(torch):
    # the test above only means something if some coordinates changed sign (and were skipped)
    opt = _run(ag, *CONFIGS[4])[0]
    prev = opt.state_dict()["state"][0]["prev"].numpy()
    assert (prev == 0).any() and (prev != 0).any()


def test_asgd_state_rounds_eta_and_mu_to_float32(torch):
    ours = _run(ag, *CONFIGS[7])[0].state_dict()["state"][0]
    theirs = _run(torch, *CONFIGS[7])[0].state_dict()["state"][0]
    for key in ("eta", "mu"):
        assert ours[key].dtype == ag.float32
        assert ours[key].item() == theirs[key].item()
    assert ours["mu"].item() != 1.0   # past t0: the average is a real running mean


def test_adafactor_on_a_3d_parameter_and_a_scalar(torch):
    rng = np.random.default_rng(3)
    start = [rng.standard_normal((2, 3, 4)), rng.standard_normal(())]
    results = []
    for lib in (ag, torch):
        params = [lib.nn.Parameter(lib.tensor(v, dtype=lib.float64)) for v in start]
        opt = lib.optim.Adafactor(params, lr=0.1, weight_decay=0.05)
        for step in range(6):
            set_grads(lib, params, step, FREQUENCY)
            opt.step()
        results.append((opt.state_dict(), [p.detach().numpy() for p in params]))
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    _assert_same_state_dict(results[0][0], results[1][0])
    assert results[0][0]["state"][0]["row_var"].shape == (2, 3, 1)
    assert results[0][0]["state"][0]["col_var"].shape == (2, 1, 4)


@pytest.mark.parametrize("options", [{}, {"differentiable": True}])
def test_defaults_are_torchs(torch, options):
    # (differentiable steps are compared with torch's in tests/optim/test_optim_modes.py)
    for name in ["Adadelta", "Rprop", "ASGD", "Adafactor", "LBFGS"]:
        if options and name in ("Adafactor", "LBFGS"):
            continue   # no differentiable option in torch either
        ours = getattr(optim, name)([nn.Parameter(ag.ones(1))], **options).defaults
        theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))],
                                            **options).defaults
        assert ours == theirs, name


# -- state comparison ------------------------------------------------------------------------------

def _assert_same_state_dict(ours: dict, theirs: dict, rtol: float = 1e-10,
                            atol: float = 0.0) -> None:
    """Same group options, same state keys and values (tensors: dtype, shape and values;
    Python numbers: type and value), recursively through LBFGS's lists."""
    assert ours["param_groups"] == theirs["param_groups"]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for key, state in ours["state"].items():
        assert sorted(state) == sorted(theirs["state"][key])
        for name, value in state.items():
            _assert_same_value(value, theirs["state"][key][name], rtol, atol, name)


def _assert_same_value(ours, theirs, rtol, atol, name) -> None:
    """``atol`` is relative to the largest magnitude of torch's value (LBFGS's vectors have
    components near zero whose relative rounding is large)."""
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), name
        for a, b in zip(ours, theirs):
            _assert_same_value(a, b, rtol, atol, name)
    elif hasattr(theirs, "detach"):
        assert isinstance(ours, ag.Tensor), (name, type(ours))
        other = theirs.detach().numpy()
        assert ours.numpy().dtype == other.dtype and ours.shape == tuple(other.shape), name
        scale = np.abs(other).max() if other.size else 0.0
        np.testing.assert_allclose(ours.numpy(), other, rtol=rtol, atol=atol * scale,
                                   err_msg=name)
    else:
        assert type(ours) is type(theirs), (name, ours, theirs)
        assert ours == pytest.approx(theirs, rel=rtol) if ours is not None else True, name


# -- state_dict round trips ------------------------------------------------------------------------

def _resume(lib, name, kwargs):
    """Three steps, a pickled state_dict loaded into a fresh optimizer, three more steps."""
    first, _ = _run(lib, name, kwargs, steps=3)
    saved = pickle.loads(pickle.dumps(first.state_dict()))
    w, b = model(lib, lib.float64)
    resumed = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
    with lib.no_grad():
        for p, q in zip((w, b), (q for g in first.param_groups for q in g["params"])):
            p.copy_(q)
    resumed.load_state_dict(saved)
    for step in range(3, 6):
        set_grads(lib, [w, b], step, FREQUENCY)
        resumed.step()
    return resumed, [w.detach().numpy(), b.detach().numpy()]


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[4], CONFIGS[10]],
                         ids=lambda v: str(v))
def test_state_dict_round_trip_continues_identically(name, kwargs):
    straight, values = _run(ag, name, kwargs, steps=6)
    resumed, resumed_values = _resume(ag, name, kwargs)
    for a, b in zip(resumed_values, values):
        np.testing.assert_array_equal(a, b)
    _assert_same_state_dict(resumed.state_dict(), straight.state_dict(), rtol=0)


@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[4], CONFIGS[7], CONFIGS[10]],
                         ids=lambda v: str(v))
def test_state_dict_round_trip_matches_torch(torch, name, kwargs):
    ours, our_values = _resume(ag, name, kwargs)
    theirs, their_values = _resume(torch, name, kwargs)
    for a, b in zip(our_values, their_values):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    _assert_same_state_dict(ours.state_dict(), theirs.state_dict())


def test_asgd_load_state_dict_casts_eta_and_mu_to_the_param_dtype(torch):
    # torch's load_state_dict casts every state tensor but ``step``: eta and mu become float64
    # and stop rounding to float32, so a resumed ASGD drifts from an uninterrupted one
    for lib in (ag, torch):
        state = _resume(lib, *CONFIGS[7])[0].state_dict()["state"][0]
        assert (state["eta"].dtype, state["mu"].dtype) == (lib.float64, lib.float64)
        assert state["step"].dtype == lib.float32


# -- errors ----------------------------------------------------------------------------------------

def _one(lib):
    return [lib.nn.Parameter(lib.ones(2, 2))]


BAD = [
    lambda lib: lib.optim.Adadelta(_one(lib), lr=-1.0),
    lambda lib: lib.optim.Adadelta(_one(lib), rho=1.5),
    lambda lib: lib.optim.Adadelta(_one(lib), rho=-0.1),
    lambda lib: lib.optim.Adadelta(_one(lib), eps=-1e-6),
    lambda lib: lib.optim.Adadelta(_one(lib), weight_decay=-0.1),
    lambda lib: lib.optim.Rprop(_one(lib), lr=-0.1),
    lambda lib: lib.optim.Rprop(_one(lib), etas=(1.2, 0.5)),
    lambda lib: lib.optim.Rprop(_one(lib), etas=(0.0, 1.2)),
    lambda lib: lib.optim.Rprop(_one(lib), etas=(0.5, 1.0)),
    lambda lib: lib.optim.ASGD(_one(lib), lr=-0.1),
    lambda lib: lib.optim.ASGD(_one(lib), weight_decay=-0.1),
    lambda lib: lib.optim.Adafactor(_one(lib), lr=-0.1),
    lambda lib: lib.optim.Adafactor(_one(lib), beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor(_one(lib), eps=(-1.0, 1e-3)),
    lambda lib: lib.optim.Adafactor(_one(lib), eps=(None, -1e-3)),
    lambda lib: lib.optim.Adafactor(_one(lib), d=0.5),
    lambda lib: lib.optim.Adafactor(_one(lib), weight_decay=-0.1),
    lambda lib: lib.optim.LBFGS(_one(lib), lr=-1),
    lambda lib: lib.optim.LBFGS([{"params": _one(lib)}, {"params": _one(lib)}]),
    lambda lib: lib.optim.LBFGS([]),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(torch, index):
    theirs = error_of(torch, BAD[index])
    assert theirs is not None
    assert error_of(ag, BAD[index]) == theirs


def test_lbfgs_unknown_line_search_raises_at_step(lib):
    w = lib.nn.Parameter(lib.tensor([2.0, -1.0]))
    opt = lib.optim.LBFGS([w], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# -- LBFGS on Rosenbrock ---------------------------------------------------------------------------

START = [np.array([-1.2, 1.0, -0.5]), np.array([[0.8, 1.3], [-0.3, 0.2]])]


def _rosenbrock(lib, params):
    v = lib.cat([p.reshape(-1) for p in params])
    return (100 * (v[1:] - v[:-1] ** 2) ** 2 + (1 - v[:-1]) ** 2).sum()


def _lbfgs(lib, kwargs, dtype="float64", start=START, loss_fn=_rosenbrock, device="cpu"):
    """An LBFGS on fresh parameters, its closure (counting its calls) and the parameters."""
    params = [lib.nn.Parameter(lib.tensor(v, dtype=getattr(lib, dtype), device=device))
              for v in start]
    opt = lib.optim.LBFGS(params, **kwargs)
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = loss_fn(lib, params)
        loss.backward()
        return loss
    return opt, closure, params, calls


def _from_torch(value):
    """A torch state value as agdebug's (tensors copied, containers rebuilt)."""
    if isinstance(value, dict):
        return {k: _from_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_torch(v) for v in value]
    if hasattr(value, "detach"):
        return ag.tensor(value.detach().numpy().copy())
    return value


LBFGS_CONFIGS = [
    {"max_iter": 8},
    {"line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 7},
    {"line_search_fn": "strong_wolfe", "max_iter": 5, "max_eval": 6},
    {"lr": 0.1, "max_iter": 6},
    {"lr": 0.5, "history_size": 2, "max_iter": 4, "tolerance_change": 1e-3},
    {"line_search_fn": "strong_wolfe", "tolerance_grad": 1e-2, "tolerance_change": 1e-4},
    {"max_iter": 1},
]


@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS, ids=lambda v: str(v))
def test_lbfgs_rosenbrock_float64_step_by_step_matches_torch(torch, kwargs):
    """Each step from torch's parameters and state, so rounding (torch fuses multiply-adds,
    sums in its own order) is not amplified across steps by Rosenbrock's ill-conditioning."""
    ours, our_closure, our_params, our_calls = _lbfgs(ag, kwargs)
    theirs, their_closure, their_params, their_calls = _lbfgs(torch, kwargs)
    for _ in range(2 if kwargs.get("max_iter", 20) > 10 else 3):
        loss = ours.step(our_closure)
        their_loss = theirs.step(their_closure)
        assert our_calls == their_calls
        assert loss.item() == pytest.approx(their_loss.item(), rel=1e-10)
        for p, q in zip(our_params, their_params):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10)
        _assert_same_state_dict(ours.state_dict(), theirs.state_dict(), rtol=1e-8, atol=1e-10)
        with ag.no_grad():
            for p, q in zip(our_params, their_params):
                p.copy_(ag.tensor(q.detach().numpy()))
        ours.load_state_dict(_from_torch(copy.deepcopy(theirs.state_dict())))


def test_lbfgs_float32_keeps_torchs_dtypes(torch):
    kwargs = {"line_search_fn": "strong_wolfe", "history_size": 4, "max_iter": 6}
    ours, our_closure, our_params, our_calls = _lbfgs(ag, kwargs, dtype="float32")
    theirs, their_closure, their_params, their_calls = _lbfgs(torch, kwargs, dtype="float32")
    for _ in range(2):
        ours.step(our_closure)
        theirs.step(their_closure)
        assert our_calls == their_calls
        for p, q in zip(our_params, their_params):
            assert p.dtype == ag.float32
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4,
                                       atol=1e-6)
        _assert_same_state_dict(ours.state_dict(), theirs.state_dict(), rtol=1e-2, atol=1e-3)
        with ag.no_grad():
            for p, q in zip(our_params, their_params):
                p.copy_(ag.tensor(q.detach().numpy()))
        ours.load_state_dict(_from_torch(copy.deepcopy(theirs.state_dict())))


A = np.random.default_rng(4).standard_normal((7, 7))
A = A @ A.T / 7 + np.eye(7)


def _quadratic(lib, params):
    v = lib.cat([p.reshape(-1) for p in params])
    return 0.5 * (v @ lib.tensor(A) @ v) - v.sum()


@pytest.mark.parametrize("kwargs", [{"max_iter": 3, "history_size": 2},
                                    {"line_search_fn": "strong_wolfe", "max_iter": 4}],
                         ids=lambda v: str(v))
def test_lbfgs_quadratic_float64_whole_run_matches_torch(torch, kwargs):
    """On a well-conditioned quadratic rounding does not grow: six steps straight through."""
    runs = []
    for lib in (ag, torch):
        opt, closure, params, calls = _lbfgs(lib, kwargs, loss_fn=_quadratic)
        for _ in range(6):
            opt.step(closure)
        runs.append(([p.detach().numpy() for p in params], calls, opt.state_dict()))
    (ours, our_calls, our_state), (theirs, their_calls, their_state) = runs
    assert our_calls == their_calls
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    _assert_same_state_dict(our_state, their_state, rtol=1e-8, atol=1e-12)


def test_lbfgs_history_lists_are_kept_in_place(lib):
    # as torch: the lists in state (and in state_dict()) are the ones later steps change
    opt, closure, _, _ = _lbfgs(lib, {"max_iter": 3, "history_size": 2})
    opt.step(closure)
    old_dirs = opt.state_dict()["state"][0]["old_dirs"]
    before = len(old_dirs)
    opt.step(closure)
    assert opt.state[opt.param_groups[0]["params"][0]]["old_dirs"] is old_dirs
    assert len(old_dirs) == 2 > before


def test_lbfgs_stops_at_once_on_a_flat_gradient(lib):
    # already optimal: one evaluation, and only the counters in state
    opt, closure, _, calls = _lbfgs(lib, {}, start=[np.ones(3), np.ones((2, 2))])
    assert opt.step(closure).item() == 0.0 and calls == [1]
    assert opt.state_dict()["state"] == {0: {"func_evals": 1, "n_iter": 0}}


def test_lbfgs_state_dict_round_trip_continues_identically():
    kwargs = {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 3}
    straight, closure, params, _ = _lbfgs(ag, kwargs)
    first, first_closure, first_params, _ = _lbfgs(ag, kwargs)
    for _ in range(2):
        straight.step(closure)
        first.step(first_closure)
    resumed, resumed_closure, resumed_params, _ = _lbfgs(
        ag, kwargs, start=[p.detach().numpy() for p in first_params])
    resumed.load_state_dict(pickle.loads(pickle.dumps(first.state_dict())))
    for _ in range(2):
        straight.step(closure)
        resumed.step(resumed_closure)
    for p, q in zip(resumed_params, params):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    _assert_same_state_dict(resumed.state_dict(), straight.state_dict(), rtol=0)


# -- on a GPU (CuPy's test double) -----------------------------------------------------------------

@pytest.mark.parametrize("name, kwargs", [CONFIGS[1], CONFIGS[4], CONFIGS[7], CONFIGS[10]],
                         ids=lambda v: str(v))
def test_steps_on_cuda_match_cpu(fake_cuda, name, kwargs):
    results = []
    for device in ("cpu", "cuda"):
        w, b = (nn.Parameter(ag.tensor(v, device=device)) for v in (W0, B0))
        opt = getattr(optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
        for step in range(4):
            for p in (w, b):
                value = p.detach().cpu().numpy()
                p.grad = ag.tensor(np.cos(3 * value) * 3 - 0.2 * step, device=device)
            opt.step()
        assert all(t.device.type == device for s in opt.state.values() for t in s.values()
                   if isinstance(t, ag.Tensor) and t.dim() > 0)
        results.append([p.detach().cpu().numpy() for p in (w, b)])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_lbfgs_on_cuda_matches_cpu(fake_cuda):
    results = []
    for device in ("cpu", "cuda"):
        opt, closure, params, _ = _lbfgs(ag, {"line_search_fn": "strong_wolfe", "max_iter": 5},
                                         device=device)
        for _ in range(2):
            opt.step(closure)
        assert opt.state[params[0]]["d"].device.type == device
        results.append([p.detach().cpu().numpy() for p in params])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


VERSION_CASES = [("Adadelta", {}), ("Rprop", {}), ("ASGD", {}), ("Adafactor", {}),
                 ("Adafactor", {"weight_decay": 0.1})]


@pytest.mark.parametrize("name, kwargs", VERSION_CASES, ids=lambda v: str(v))
def test_version_counts_like_torch(torch, name, kwargs):
    # one bump per in-place op torch runs on the parameter (ASGD: mul_ then add_)
    counts = []
    for lib in (ag, torch):
        w = lib.nn.Parameter(lib.ones(2, 3))
        opt = getattr(lib.optim, name)([w], **kwargs)
        for _ in range(2):
            (w * w).sum().backward()
            opt.step()
        counts.append(w._version)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe"}], ids=str)
def test_lbfgs_version_counts_like_torch(torch, kwargs):
    # every trial point of the line search is an add_ and a copy_ back
    counts = []
    for lib in (ag, torch):
        opt, closure, params, _ = _lbfgs(lib, dict(kwargs, max_iter=6))
        opt.step(closure)
        counts.append([p._version for p in params])
    assert counts[0] == counts[1]


def test_lbfgs_parameter_without_grad_counts_as_zero_gradient(torch):
    results = []
    for lib in (ag, torch):
        w = lib.nn.Parameter(lib.tensor([3.0, -1.0], dtype=lib.float64))
        unused = lib.nn.Parameter(lib.tensor([5.0], dtype=lib.float64))
        opt = lib.optim.LBFGS([w, unused], max_iter=4)

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = ((w - 1) ** 4).sum()
            loss.backward()
            return loss
        opt.step(closure)
        results.append((w.detach().numpy(), unused.detach().numpy(),
                        opt.state[w]["d"].numpy().shape))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    assert results[0][1].tolist() == results[1][1].tolist() == [5.0]
    assert results[0][2] == results[1][2] == (3,)

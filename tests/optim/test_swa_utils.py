"""optim.swa_utils against torch: AveragedModel's averaged weights and buffers (SWA's default,
avg_fn and multi_avg_fn, EMA, use_buffers) over several training steps, bitwise; SWALR's rates
(cos, linear, 0 anneal epochs, per-group swa_lr) and its state_dict; update_bn's statistics;
torch's errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import agdebug as ag

DATA = np.random.default_rng(5).standard_normal((6, 4, 3))


def _net(lib, dtype):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    return net.to(getattr(lib, dtype))


def _set_weights(lib, net, step: int, dtype: str) -> None:
    """The same weights and buffers in both libraries at each step (so only averaging runs)."""
    rng = np.random.default_rng(step)
    with lib.no_grad():
        for t in list(net.parameters()) + list(net.buffers()):
            if t.is_floating_point():
                t.copy_(lib.tensor(rng.standard_normal(tuple(t.shape))).to(getattr(lib, dtype)))
            else:
                t.fill_(step * 3)


def _averaging(lib, kind, dtype="float32", use_buffers=False):
    net = _net(lib, dtype)
    su = lib.optim.swa_utils
    fns = {"swa": {}, "avg_fn": {"avg_fn": su.get_swa_avg_fn()},
           "multi": {"multi_avg_fn": su.get_swa_multi_avg_fn()},
           "ema": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.9)},
           "ema_avg_fn": {"avg_fn": su.get_ema_avg_fn(0.8)}}
    swa = su.AveragedModel(net, use_buffers=use_buffers, **fns[kind])
    seen = []
    for step in range(6):
        _set_weights(lib, net, step, dtype)
        swa.update_parameters(net)
        seen.append({k: v.detach().numpy().copy() for k, v in swa.state_dict().items()})
    seen.append(swa(lib.tensor(DATA[0]).to(getattr(lib, dtype))).detach().numpy())
    return seen


@pytest.mark.parametrize("kind", ["swa", "avg_fn", "multi", "ema", "ema_avg_fn"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_weights_are_torch_s_bitwise(torch, kind, dtype, use_buffers):
    """Bitwise, but for the lerp of multi_avg_fn: torch's vectorised CPU lerp fuses its
    multiply-add (where the CPU has FMA), agdebug's lerp_ does not: a few ulps of the
    weights' scale (about 1), each step."""
    if kind == "multi" and use_buffers:   # SWA's lerp refuses num_batches_tracked, as torch's
        for lib in (ag, torch):
            with pytest.raises(RuntimeError, match="^Integer division with addcdiv is no longer"):
                _averaging(lib, kind, dtype, use_buffers)
        return
    ours, theirs = _averaging(ag, kind, dtype, use_buffers), _averaging(torch, kind, dtype,
                                                                         use_buffers)
    lerped = kind in ("multi", "ema")
    for mine, want in zip(ours[:-1], theirs[:-1]):
        assert list(mine) == list(want)
        for key in want:
            assert mine[key].dtype == want[key].dtype, key
            if lerped and want[key].dtype.kind == "f":
                eps = np.finfo(want[key].dtype).eps
                np.testing.assert_allclose(mine[key], want[key], rtol=0, atol=8 * eps,
                                           err_msg=key)
            else:
                np.testing.assert_array_equal(mine[key], want[key], err_msg=key)
    np.testing.assert_allclose(ours[-1], theirs[-1], rtol=1e-5)


def _rates(lib, strategy, anneal_epochs, swa_lr, steps=8):
    w1, w2 = lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([{"params": [w1]}, {"params": [w2], "lr": 0.3}], lr=1.0)
    sched = lib.optim.swa_utils.SWALR(opt, swa_lr, anneal_epochs, strategy)
    lrs = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    state = {k: v for k, v in sched.state_dict().items() if k != "_get_lr_called_within_step"}
    return lrs, state, [g["swa_lr"] for g in opt.param_groups]


@pytest.mark.parametrize("strategy, epochs, swa_lr", [
    ("cos", 10, 0.05), ("cos", 3, [0.5, 0.01]), ("linear", 4, 0.2), ("linear", 0, 0.1),
    ("cos", 0, [0.2, 0.4]), ("linear", 1, 2.0)])
def test_swalr_rates_are_torch_s(torch, strategy, epochs, swa_lr):
    assert _rates(ag, strategy, epochs, swa_lr) == _rates(torch, strategy, epochs, swa_lr)


def test_swalr_state_dict_round_trip():
    opt = ag.optim.SGD([ag.nn.Parameter(ag.ones(1))], lr=1.0)
    sched = ag.optim.swa_utils.SWALR(opt, 0.1, 3, "linear")
    opt.step()
    sched.step()
    state = pickle.loads(pickle.dumps(sched.state_dict()))
    again = ag.optim.swa_utils.SWALR(opt, 0.1, 5, "cos")
    again.load_state_dict(state)
    assert again.anneal_func is again._linear_anneal and again.anneal_epochs == 3


def _errors(lib):
    su, seen = lib.optim.swa_utils, []
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
    for make in [lambda: su.SWALR(opt, 0.1, anneal_strategy="exp"),
                 lambda: su.SWALR(opt, 0.1, anneal_epochs=-1),
                 lambda: su.SWALR(opt, 0.1, anneal_epochs=1.5),
                 lambda: su.SWALR(opt, [0.1, 0.2]), lambda: su.get_ema_avg_fn(1.5),
                 lambda: su.get_ema_multi_avg_fn(-0.1),
                 lambda: su.AveragedModel(lib.nn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(),
                                          multi_avg_fn=su.get_swa_multi_avg_fn())]:
        with pytest.raises(Exception) as caught:
            make()
        seen.append((caught.type.__name__, str(caught.value)))
    return seen


def test_errors_as_torch(torch):
    assert _errors(ag) == _errors(torch)


def _bn(lib):
    net = _net(lib, "float64")
    net.eval()
    loader = [(lib.tensor(b), 0) for b in DATA[:3]] + [lib.tensor(DATA[3])]
    lib.optim.swa_utils.update_bn(loader, net)
    swa = lib.optim.swa_utils.AveragedModel(net)
    lib.optim.swa_utils.update_bn(loader, swa)
    return net.training, net[1].momentum, {k: v.numpy() for k, v in net.state_dict().items()}, \
        {k: v.numpy() for k, v in swa.state_dict().items()}


def test_update_bn_as_torch(torch):
    ours, theirs = _bn(ag), _bn(torch)
    assert ours[:2] == theirs[:2]
    for mine, want in zip(ours[2:], theirs[2:]):
        assert list(mine) == list(want)
        for key in want:
            np.testing.assert_allclose(mine[key], want[key], rtol=1e-12, err_msg=key)


def test_update_bn_without_batch_norm_leaves_the_model_alone():
    net = ag.nn.Linear(2, 2)
    net.eval()
    ag.optim.swa_utils.update_bn([ag.ones(1, 2)], net)
    assert not net.training

"""agdebug.optim.lr_scheduler against torch's: learning-rate (and momentum) sequences over 30
steps, state_dict, warnings and errors."""

from __future__ import annotations

import warnings

import pytest

import agdebug as ag
from agdebug.optim import lr_scheduler


def _optimizer(lib, name="SGD"):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))
    kwargs = {"momentum": 0.9} if name == "SGD" else {}
    return getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1,
                                    **kwargs)


class Halve:
    """A picklable callable lambda with state (saved by LambdaLR.state_dict)."""

    def __init__(self):
        self.rate = 0.9

    def __call__(self, epoch):
        return self.rate ** epoch


SCHEDULES = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=[lambda e: 0.95 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lr_lambda=lambda e: 0.97),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=12),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.4, total_iters=6),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=20, power=2.0),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=31),
    "OneCycleLR-linear-3": lambda m, o: m.OneCycleLR(
        o, max_lr=1.0, epochs=4, steps_per_epoch=8, anneal_strategy="linear",
        three_phase=True, pct_start=0.25),
    "WarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2,
                                                                eta_min=0.001),
    "WarmRestarts-1": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.9),
            m.CosineAnnealingLR(o, T_max=6)], milestones=[5, 12]),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.5, total_iters=4), m.ExponentialLR(o, gamma=0.9)]),
    "CyclicLR": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.3], step_size_up=4),
    "CyclicLR-triangular2": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                      step_size_down=5, mode="triangular2"),
    "CyclicLR-exp_range": lambda m, o: m.CyclicLR(o, [0.01, 0.02], 0.1, step_size_up=2,
                                                    mode="exp_range", gamma=0.9,
                                                    base_momentum=0.7, max_momentum=0.95),
    "CyclicLR-scale_fn": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                   scale_fn=Halve(), scale_mode="iterations",
                                                   cycle_momentum=False),
}


def _sequence(lib, make, optimizer="SGD", steps=30):
    opt = _optimizer(lib, optimizer)
    sched = make(lib.optim.lr_scheduler, opt)
    seq = [(sched.get_last_lr(), _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append((sched.get_last_lr(), _momenta(opt)))
        assert [g["lr"] for g in opt.param_groups] == sched.get_last_lr()
    return seq


def _momenta(opt):
    return [g.get("momentum", g.get("betas")) for g in opt.param_groups]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_sequence_matches_torch(torch, name):
    assert _sequence(ag, SCHEDULES[name]) == _sequence(torch, SCHEDULES[name])


@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR"])
def test_cycles_adams_beta1(torch, name):
    make = SCHEDULES[name]
    assert _sequence(ag, make, "Adam") == _sequence(torch, make, "Adam")


def test_one_cycle_past_total_steps(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of "
                       "total steps is 2"):
        sched.step()


@pytest.mark.parametrize("mode, threshold_mode", [("min", "rel"), ("min", "abs"),
                                                  ("max", "rel"), ("max", "abs")])
def test_reduce_lr_on_plateau_matches_torch(torch, mode, threshold_mode):
    metrics = [1.0, 0.9, 0.9, 0.9, 0.95, 0.85, 0.85, 0.85, 0.85, 0.8, 0.8, 0.8, 0.8, 0.8,
               0.8, 0.9, 1.0, 1.0, 1.0, 1.0]

    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, mode=mode, factor=0.5, patience=1, threshold=0.01,
            threshold_mode=threshold_mode, cooldown=1, min_lr=[0.0, 0.1])
        out = []
        for m in metrics:
            opt.step()
            sched.step(lib.tensor(m))
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best))
        return out
    assert run(ag) == run(torch)


def test_closed_form_with_epoch_argument_matches_torch(torch):
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in [3, 7, 2]:
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr())
        assert any("epoch parameter in `scheduler.step()`" in str(w.message) for w in caught)
        return out
    assert run(ag) == run(torch)


def test_warm_restarts_fractional_epochs_match_torch(torch):
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        for epoch in [0.5, 1.5, 3.2, 9.7, 20.0]:
            opt.step()
            sched.step(epoch)
            out.append((sched.get_last_lr(), sched.T_i, sched.T_cur, sched.last_epoch))
        return out
    assert run(ag) == run(torch)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_warning_when_scheduler_steps_before_optimizer(torch):
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return _messages(sched.step)
    ours = run(ag)
    assert ours == run(torch) and len(ours) == 1
    assert ours[0].startswith("Detected call of `lr_scheduler.step()` before `optimizer.step()`")


def test_no_warning_in_the_right_order(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    assert _messages(lambda: (opt.step(), sched.step())) == []


def test_warning_when_get_lr_called_directly(torch):
    def run(lib):
        sched = lib.optim.lr_scheduler.ExponentialLR(_optimizer(lib), gamma=0.5)
        return _messages(sched.get_lr)
    assert run(ag) == run(torch) == [
        "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."]


def test_initial_lr_and_base_lrs(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert sched.base_lrs == [0.1, 0.5] and sched.last_epoch == 0 and sched._step_count == 1


def test_state_dict_keys_match_torch(torch):
    for name in ["StepLR", "LambdaLR", "OneCycleLR", "SequentialLR", "WarmRestarts",
                 "CyclicLR", "CyclicLR-scale_fn"]:
        ours = SCHEDULES[name](lr_scheduler, _optimizer(ag)).state_dict()
        theirs = SCHEDULES[name](torch.optim.lr_scheduler, _optimizer(torch)).state_dict()
        assert sorted(ours) == sorted(theirs), name


def test_state_dict_round_trip():
    opt = _optimizer(ag)
    sched = lr_scheduler.LambdaLR(opt, lr_lambda=Halve())
    for _ in range(3):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.9}, {"rate": 0.9}]
    opt2 = _optimizer(ag)
    fresh = lr_scheduler.LambdaLR(opt2, lr_lambda=Halve())
    fresh.load_state_dict(saved)
    assert fresh.last_epoch == 3 and "lr_lambdas" in saved
    opt2.step()
    fresh.step()
    opt.step()
    sched.step()
    assert fresh.get_last_lr() == sched.get_last_lr()


def _error(lib, make):
    try:
        make(lib)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e)
    return None


BAD = [
    lambda lib: lib.optim.lr_scheduler.StepLR(object(), step_size=2),
    lambda lib: lib.optim.lr_scheduler.StepLR(_optimizer(lib), step_size=2, last_epoch=3),
    lambda lib: lib.optim.lr_scheduler.LambdaLR(_optimizer(lib), [lambda e: 1.0]),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_optimizer(lib), 0.5),
    lambda lib: lib.optim.lr_scheduler.ConstantLR(_optimizer(lib), factor=1.5),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_optimizer(lib), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_optimizer(lib), end_factor=2),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(lib), T_0=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(lib), 2,
                                                                    T_mult=0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), max_lr=1.0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), 1.0, total_steps=10,
                                                  pct_start=2.0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), [1.0], total_steps=10),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), 1.0, total_steps=10,
                                                  anneal_strategy="exp"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib), mode="up"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib), min_lr=[0.1]),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(_optimizer(lib), [], milestones=[]),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_optimizer(lib), 0.01, 0.1, mode="sine"),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_optimizer(lib, "Adagrad"), 0.01, 0.1),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_optimizer(lib), [0.01], 0.1),
    lambda lib: lib.optim.lr_scheduler.ChainedScheduler([
        lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib))]),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(torch, index):
    theirs = _error(torch, BAD[index])
    assert theirs is not None
    assert _error(ag, BAD[index]) == theirs


def test_cyclic_state_dict_keeps_a_callable_objects_attributes(torch):
    for lib in (ag, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, scale_fn=Halve())
        saved = sched.state_dict()
        assert saved["_scale_fn_custom"] == {"rate": 0.9}
        halve = Halve()
        fresh = lib.optim.lr_scheduler.CyclicLR(_optimizer(lib), 0.01, 0.1, scale_fn=halve)
        saved["_scale_fn_custom"] = {"rate": 0.5}
        fresh.load_state_dict(saved)
        assert halve.rate == 0.5

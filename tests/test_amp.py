"""``torch.amp``'s GradScaler (and torch.cuda.amp's deprecated one) against torch, and
autocast, which agdebug turns off with a warning."""

from __future__ import annotations

import warnings

import pytest

import agdebug as ag


def scaled_training(lib, steps: int = 5):
    """SGD under an enabled CPU scaler, one step's loss infinite: that step is skipped."""
    lib.manual_seed(0)
    net = lib.nn.Linear(3, 1)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    seen = []
    for step in range(steps):
        opt.zero_grad()
        loss = net(lib.ones(2, 3)).sum() * (float("inf") if step == 2 else 1.0)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), net.weight.detach().tolist()))
    return seen, scaler.state_dict()


def test_an_enabled_scaler_scales_skips_and_grows_as_torchs(torch):
    assert scaled_training(ag) == scaled_training(torch)


@pytest.mark.parametrize("make", ["lib.amp.GradScaler('cuda')",
                                  "lib.cuda.amp.GradScaler(enabled=True)",
                                  "lib.amp.GradScaler('cpu', enabled=False)"])
def test_a_scaler_without_cuda_is_disabled_as_torchs(torch, make):
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = eval(make, {"lib": torch})
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = eval(make, {"lib": ag})
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert got.is_enabled() is want.is_enabled() is False
    assert got.get_scale() == want.get_scale() and got.state_dict() == want.state_dict()
    loss = ag.ones(1, requires_grad=True)
    assert got.scale(loss) is loss


def test_unscale_twice_is_refused_in_torchs_words():
    net = ag.nn.Linear(2, 1)
    opt = ag.optim.SGD(net.parameters(), lr=0.1)
    scaler = ag.amp.GradScaler("cpu")
    scaler.scale(net(ag.ones(1, 2)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) has already been called"):
        scaler.unscale_(opt)


def test_autocast_warns_and_runs_at_full_precision():
    with pytest.warns(UserWarning, match="agdebug has no autocast"):
        with ag.autocast("cpu", dtype=ag.bfloat16):
            y = ag.ones(2) @ ag.ones(2)
    assert y.dtype == ag.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ag.amp.autocast("cpu", enabled=False):
            pass

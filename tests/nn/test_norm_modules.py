"""The normalization modules and Conv1d / 1D and adaptive pools against torch.nn: outputs,
running statistics and buffers through train/eval, state_dict keys, repr."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)
BATCHES = [rng.standard_normal((6, 3, 4), dtype=np.float32) for _ in range(3)]


def _both(make):
    return make(ag.nn), make(torch.nn)


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("affine, track", [(True, True), (False, True), (True, False)])
def test_batchnorm1d_training_then_eval(momentum, affine, track):
    """momentum=None is a cumulative average over num_batches_tracked batches."""
    ours, theirs = _both(lambda nn: nn.BatchNorm1d(3, momentum=momentum, affine=affine,
                                                   track_running_stats=track))
    for batch in BATCHES:
        _close(ours(ag.tensor(batch)), theirs(torch.tensor(batch)))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        _close(ours.state_dict()[key], value)
    ours.eval()
    theirs.eval()
    out, ref = ours(ag.tensor(BATCHES[0])), theirs(torch.tensor(BATCHES[0]))
    _close(out, ref)
    if affine:
        assert out.grad_fn.name() == ref.grad_fn.name() == "NativeBatchNormBackward0"


def test_batchnorm2d_buffers_and_state_dict_round_trip():
    ours, theirs = _both(lambda nn: nn.BatchNorm2d(2, bias=False))
    x = rng.standard_normal((3, 2, 4, 4), dtype=np.float32)
    _close(ours(ag.tensor(x)), theirs(torch.tensor(x)))
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert int(ours.num_batches_tracked) == 1 and ours.num_batches_tracked.dtype == ag.int64
    fresh = ag.nn.BatchNorm2d(2, bias=False)
    fresh.load_state_dict(ours.state_dict())
    _close(fresh.running_var, theirs.running_var)
    assert repr(ours) == repr(theirs)


def test_batchnorm_input_dim_errors():
    for ours, theirs, x in ((ag.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3), np.ones((2, 3, 4, 4))),
                            (ag.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3), np.ones((2, 3)))):
        with pytest.raises(ValueError) as want:
            theirs(torch.tensor(x))
        with pytest.raises(ValueError, match=str(want.value).replace("(", r"\(")
                           .replace(")", r"\)")):
            ours(ag.tensor(x))


@pytest.mark.parametrize("make", [
    lambda nn: nn.LayerNorm(4),
    lambda nn: nn.LayerNorm([3, 4], elementwise_affine=False),
    lambda nn: nn.LayerNorm(4, bias=False, eps=0.1),
    lambda nn: nn.GroupNorm(3, 3),
    lambda nn: nn.GroupNorm(1, 3, affine=False),
    lambda nn: nn.InstanceNorm1d(3),
    lambda nn: nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
])
def test_module_matches_torch(make):
    ours, theirs = _both(make)
    for batch in BATCHES[:2]:
        out, ref = ours(ag.tensor(batch)), theirs(torch.tensor(batch))
        _close(out, ref)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        _close(ours.state_dict()[key], value)
    ours.eval()
    theirs.eval()
    _close(ours(ag.tensor(BATCHES[2])), theirs(torch.tensor(BATCHES[2])))


def test_instance_norm_unbatched_and_2d():
    ours, theirs = _both(lambda nn: nn.InstanceNorm2d(3, affine=True))
    x = rng.standard_normal((3, 4, 5), dtype=np.float32)
    _close(ours(ag.tensor(x)), theirs(torch.tensor(x)))
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        ours(ag.ones(3, 4))


def test_group_norm_checks_divisibility():
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        ag.nn.GroupNorm(2, 3)


def test_conv1d_and_pool_modules_match_torch():
    ag.manual_seed(0)
    conv = ag.nn.Conv1d(3, 5, 3, stride=2, padding=1, bias=True)
    ref = torch.nn.Conv1d(3, 5, 3, stride=2, padding=1)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(conv.weight.detach().numpy()))
        ref.bias.copy_(torch.tensor(conv.bias.detach().numpy()))
    assert repr(conv) == repr(ref)
    x = rng.standard_normal((2, 3, 9))
    out, want = conv(ag.tensor(x, dtype=ag.float32)), ref(torch.tensor(x, dtype=torch.float32))
    _close(out, want)
    assert out.grad_fn.name() == want.grad_fn.name() == "ConvolutionBackward0"
    for make in (lambda nn: nn.MaxPool1d(2), lambda nn: nn.AvgPool1d(3, 2, 1),
                 lambda nn: nn.AdaptiveAvgPool1d(4), lambda nn: nn.MaxPool1d(3, 1, 1)):
        ours, theirs = _both(make)
        _close(ours(ag.tensor(x)), theirs(torch.tensor(x)))
        assert repr(ours) == repr(theirs)
    ours, theirs = _both(lambda nn: nn.AdaptiveAvgPool2d((2, None)))
    img = rng.standard_normal((2, 3, 5, 4))
    _close(ours(ag.tensor(img)), theirs(torch.tensor(img)))
    assert repr(ours) == repr(theirs)

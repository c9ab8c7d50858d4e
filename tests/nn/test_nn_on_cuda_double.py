"""The nn ops on CuPy's test double: every forward and derivative stays on the device's xp."""

from __future__ import annotations

import numpy as np

import agdebug as ag
import agdebug.nn.functional as F
from agdebug import nn, optim


def _pair(shape, seed=0):
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return (ag.tensor(array, requires_grad=True),
            ag.tensor(array, device="cuda", requires_grad=True))


def test_functional_ops_run_on_cuda_and_match_cpu(fake_cuda):
    calls = [
        lambda x: F.conv2d(x, x[:2, :, :3, :3] * 1, padding=1, stride=2).sum(),
        lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True).sum(),
        lambda x: F.avg_pool2d(x, 2, count_include_pad=False).sum(),
        lambda x: F.log_softmax(x, 1).exp().sum() + F.softmax(x, -1).pow(2).sum(),
        lambda x: F.binary_cross_entropy_with_logits(x, x.detach().sigmoid()),
        lambda x: F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()),
        lambda x: F.mse_loss(x, x.detach() * 0.5),
    ]
    for i, call in enumerate(calls):
        cpu, gpu = _pair((4, 3, 5, 5), seed=i)
        out_cpu, out_gpu = call(cpu), call(gpu)
        assert out_gpu.device.type == "cuda", i
        out_cpu.backward()
        out_gpu.backward()
        assert gpu.grad.device.type == "cuda", i
        np.testing.assert_allclose(gpu.grad._data.get(), cpu.grad.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=str(i))


def test_cross_entropy_and_dropout_on_cuda(fake_cuda):
    cpu, gpu = _pair((6, 4))
    labels = np.array([0, 3, 1, 2, 2, 0])
    loss_cpu = F.cross_entropy(cpu, ag.tensor(labels), label_smoothing=0.1)
    loss_gpu = F.cross_entropy(gpu, ag.tensor(labels, device="cuda"), label_smoothing=0.1)
    np.testing.assert_allclose(float(loss_gpu.item()), float(loss_cpu.item()), rtol=1e-5)
    assert F.dropout(gpu, 0.5).device.type == "cuda"


def test_training_step_on_cuda(fake_cuda):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to("cuda")
    opt = optim.Adam(model.parameters(), lr=0.1)
    x = ag.randn(5, 3, device="cuda")
    before = [p.detach().cpu().numpy().copy() for p in model.parameters()]
    F.cross_entropy(model(x), ag.tensor([0, 1, 1, 0, 1], device="cuda")).backward()
    opt.step()
    after = list(model.parameters())
    assert all(p.device.type == "cuda" for p in after)
    assert all(not np.allclose(b, a.detach().cpu().numpy()) for b, a in zip(before, after))

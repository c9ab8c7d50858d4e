"""Modules against torch: the same weights give the same outputs, gradients and updates."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug import nn, optim


def _copy_weights(ours, theirs, torch) -> None:
    with torch.no_grad():
        for (name, p), (ref_name, ref) in zip(ours.named_parameters(),
                                              theirs.named_parameters()):
            assert name == ref_name
            ref.copy_(torch.tensor(p.detach().numpy()))


def _check_same(ours, theirs, x_np, loss_of, torch, opt_ours, opt_theirs, steps=2):
    for _ in range(steps):
        out = ours(ag.tensor(x_np))
        ref = theirs(torch.tensor(x_np))
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
        assert out.grad_fn.name() == ref.grad_fn.name()
        opt_ours.zero_grad()
        opt_theirs.zero_grad()
        loss_of(ag, out).backward()
        loss_of(torch, ref).backward()
        for (name, p), (_, r) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), r.grad.numpy(), rtol=1e-4, atol=1e-5,
                                       err_msg=name)
        opt_ours.step()
        opt_theirs.step()
        for (name, p), (_, r) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(p.detach().numpy(), r.detach().numpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=name)


def test_linear_matches_torch(torch):
    ours, theirs = nn.Linear(5, 3), torch.nn.Linear(5, 3)
    _copy_weights(ours, theirs, torch)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    out = ours(ag.tensor(x, requires_grad=True))
    assert out.grad_fn.name() == "AddmmBackward0"
    names = [f and f.name() for f, _ in out.grad_fn.next_functions]
    acc = "torch::autograd::AccumulateGrad"
    assert names == [acc, acc, "TBackward0"]   # bias, input, W.t(), as torch links them
    _check_same(ours, theirs, x, lambda t, y: (y * y).sum(), torch,
                optim.SGD(ours.parameters(), lr=0.1), torch.optim.SGD(theirs.parameters(), lr=0.1))


def test_conv2d_matches_torch(torch):
    ours = nn.Conv2d(2, 4, 3, stride=2, padding=1)
    theirs = torch.nn.Conv2d(2, 4, 3, stride=2, padding=1)
    _copy_weights(ours, theirs, torch)
    x = np.random.default_rng(1).standard_normal((2, 2, 7, 7)).astype(np.float32)
    _check_same(ours, theirs, x, lambda t, y: (y * y).mean(), torch,
                optim.Adam(ours.parameters(), lr=0.01),
                torch.optim.Adam(theirs.parameters(), lr=0.01))


def _mlp(lib):
    n = lib.nn
    return n.Sequential(n.Linear(4, 8), n.ReLU(), n.Linear(8, 8), n.Tanh(), n.Linear(8, 3))


def test_mlp_with_cross_entropy_matches_torch(torch):
    ours, theirs = _mlp(ag), _mlp(torch)
    _copy_weights(ours, theirs, torch)
    x = np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32)
    target = np.array([0, 1, 2, 2, 1, 0])

    def loss(lib, y):
        return lib.nn.functional.cross_entropy(y, lib.tensor(target))
    _check_same(ours, theirs, x, loss, torch,
                optim.SGD(ours.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                          weight_decay=0.01),
                torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                weight_decay=0.01), steps=3)


def test_cnn_layers_match_torch(torch):
    def build(lib):
        n = lib.nn
        return n.Sequential(n.Conv2d(1, 3, 3, padding=1), n.ReLU(), n.MaxPool2d(2), n.Flatten(),
                            n.Linear(12, 2))
    ours, theirs = build(ag), build(torch)
    _copy_weights(ours, theirs, torch)
    x = np.random.default_rng(3).standard_normal((2, 1, 4, 4)).astype(np.float32)
    _check_same(ours, theirs, x, lambda t, y: (y * y).sum(), torch,
                optim.Adam(ours.parameters(), lr=0.05, amsgrad=True),
                torch.optim.Adam(theirs.parameters(), lr=0.05, amsgrad=True))


def test_loss_modules_match_torch(torch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    p = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    t = np.array([0, 2, 1, 1])
    pairs = [("MSELoss", (x, p), {}), ("CrossEntropyLoss", (x, t), {"label_smoothing": 0.1}),
             ("NLLLoss", (x, t), {"reduction": "sum"}), ("BCELoss", (p, p[::-1].copy()), {}),
             ("BCEWithLogitsLoss", (x, p), {"reduction": "none"})]
    for name, (a, b), kwargs in pairs:
        ours = getattr(nn, name)(**kwargs)(ag.tensor(a, requires_grad=True), ag.tensor(b))
        ref = getattr(torch.nn, name)(**kwargs)(torch.tensor(a, requires_grad=True),
                                                torch.tensor(b))
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
        assert ours.grad_fn.name() == ref.grad_fn.name(), name


def test_default_init_bounds():
    layer = nn.Linear(100, 50)
    bound = 1 / np.sqrt(100)       # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), ...)
    w = layer.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    conv = nn.Conv2d(4, 6, 3, groups=2)
    assert tuple(conv.weight.shape) == (6, 2, 3, 3)
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / np.sqrt(2 * 9)


def test_init_functions():
    w = ag.empty(200, 300)
    nn.init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * np.sqrt(6 / 500)
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.95 * bound
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    assert np.abs(w.numpy()).max() <= np.sqrt(2) * np.sqrt(3 / 300)
    nn.init.normal_(w, mean=1.0, std=0.5)
    assert abs(w.numpy().mean() - 1.0) < 0.01 and abs(w.numpy().std() - 0.5) < 0.01
    version = w._version
    nn.init.zeros_(w)
    assert not w.numpy().any() and w._version == version + 1
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(ag.empty(3))


def test_parameter():
    p = nn.Parameter(ag.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert p.requires_grad and p.is_leaf and isinstance(p, ag.Tensor)
    frozen = nn.Parameter(ag.ones(2), requires_grad=False)
    assert repr(frozen) == "Parameter containing:\ntensor([1., 1.])"
    data = ag.zeros(2)
    shared = nn.Parameter(data)
    data.add_(1)               # storage and version counter are shared with the data tensor
    assert shared.tolist() == [1.0, 1.0] and shared._version == 1
    assert type(p * 2) is ag.Tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        self.head = nn.Linear(3, 1, bias=False)
        self.scale = nn.Parameter(ag.ones(1))
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.head(self.drop(self.body(x))) * self.scale


def test_module_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "body.0.weight", "body.0.bias", "head.weight"]
    assert [n for n, _ in net.named_modules()] == ["", "body", "body.0", "body.1", "head",
                                                   "drop"]
    assert [type(c).__name__ for c in net.children()] == ["Sequential", "Linear", "Dropout"]
    assert net.head.bias is None
    assert len(list(net.parameters())) == 4
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'scale'"):
        net.scale = 3
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'missing'"):
        net.missing  # noqa: B018
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_train_eval_and_dropout():
    net = Net()
    assert net.training and net.drop.training
    net.eval()
    assert not net.drop.training and not net.body[0].training
    x = ag.ones(8, 2)
    np.testing.assert_allclose(net(x).detach().numpy(), net(x).detach().numpy())
    net.train()
    ag.manual_seed(0)
    outs = {tuple(net.drop(ag.ones(1000)).tolist()) for _ in range(2)}
    assert len(outs) == 2                        # a fresh mask each call
    kept = np.array(net.drop(ag.ones(1000)).tolist())
    assert set(np.unique(kept)) <= {0.0, 2.0} and 400 < (kept > 0).sum() < 600


def test_zero_grad():
    net = Net()
    net(ag.ones(4, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_state_dict_round_trip_and_errors():
    a, b = Net(), Net()
    state = a.state_dict()
    assert list(state) == ["scale", "body.0.weight", "body.0.bias", "head.weight"]
    assert not state["scale"].requires_grad
    assert repr(b.load_state_dict(state)) == "<All keys matched successfully>"
    x = ag.ones(3, 2)
    a.eval()
    b.eval()
    np.testing.assert_allclose(a(x).detach().numpy(), b(x).detach().numpy())
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "scale"'):
        b.load_state_dict({k: v for k, v in state.items() if k != "scale"})
    bad = dict(state, extra=ag.ones(1))
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        b.load_state_dict(bad)
    result = b.load_state_dict(bad, strict=False)
    assert result.unexpected_keys == ["extra"] and result.missing_keys == []
    wrong = dict(state, scale=ag.ones(2))
    with pytest.raises(RuntimeError, match="size mismatch for scale: copying a param with shape "
                       "torch.Size\\(\\[2\\]\\) from checkpoint, the shape in current model is "
                       "torch.Size\\(\\[1\\]\\)"):
        b.load_state_dict(wrong)


def test_sequential_and_repr(torch):
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Conv2d(1, 2, 3), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Dropout(), nn.CrossEntropyLoss(), nn.Tanh())
    ref = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Conv2d(1, 2, 3),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Dropout(),
                              torch.nn.CrossEntropyLoss(), torch.nn.Tanh())
    assert repr(seq) == repr(ref)
    assert repr(nn.Conv2d(1, 2, 3, stride=2, padding=1, bias=False)) == repr(
        torch.nn.Conv2d(1, 2, 3, stride=2, padding=1, bias=False))
    assert len(seq) == 8 and isinstance(seq[1], nn.ReLU) and isinstance(seq[-1], nn.Tanh)
    assert len(seq[:2]) == 2
    assert seq.append(nn.Sigmoid()) is seq and len(seq) == 9


def test_module_classes_subclass_each_other_exactly_as_in_torch():
    # ``if isinstance(m, nn.Conv2d): init...`` must not catch a Conv1d, nor nn.Softmax a
    # LogSoftmax: shared code lives in private bases, as torch's _ConvNd does
    import inspect
    torch = pytest.importorskip("torch")
    names = [n for n in nn.__all__ if inspect.isclass(getattr(nn, n)) and hasattr(torch.nn, n)]
    differ = [(a, b) for a in names for b in names if a != b and
              issubclass(getattr(nn, a), getattr(nn, b))
              != issubclass(getattr(torch.nn, a), getattr(torch.nn, b))]
    assert len(names) > 60 and differ == []

"""RNN, LSTM, GRU and their cells against torch: values, final states, grad_fn names, the
whole recorded graph, every gradient (parameters, input, h0/c0), parameter names, shapes and
order, reprs and torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 2, 3))          # (seq, batch, features)
H = RNG.standard_normal((4, 2, 5))          # (layers * directions, batch, hidden), sliced
C = RNG.standard_normal((4, 2, 5))
WEIGHTS = (1.0, -2.0, 0.5)                  # of output, h_n, c_n in the loss


def _pair(cls: str, *args, dtype: str = "float64", **kwargs):
    """The torch module (seeded) and an agdebug one loaded from its state dict."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, cls)(*args, **kwargs).to(getattr(torch, dtype))
    ours = getattr(ag.nn, cls)(*args, **kwargs, dtype=getattr(ag, dtype))
    state = {k: ag.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    return ours, theirs


def _flat(result) -> list:
    if not isinstance(result, tuple):
        return [result]
    return [t for r in result for t in (_flat(r) if isinstance(r, tuple) else [r])]


def _node(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__ if \
        type(t).__module__.startswith("torch") else t.grad_fn.name()


def _inputs(lib, arrays: list, dtype: str) -> list:
    return [lib.tensor(a.copy(), dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _compare(ours, theirs, arrays: list, call, dtype: str = "float64"):
    """Run both, compare values and node names, then every gradient of a weighted sum."""
    rtol = 1e-6 if dtype == "float64" else 2e-4
    our_in, their_in = _inputs(ag, arrays, dtype), _inputs(torch, arrays, dtype)
    our_out, their_out = _flat(call(ours, *our_in)), _flat(call(theirs, *their_in))
    assert len(our_out) == len(their_out)
    for o, t in zip(our_out, their_out):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        assert _node(o) == _node(t)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol,
                                   atol=rtol * 1e-2)
    sum(w * o.sum() for w, o in zip(WEIGHTS, our_out)).backward()
    sum(w * o.sum() for w, o in zip(WEIGHTS, their_out)).backward()
    pairs = list(zip(our_in, their_in)) + [
        (p, q) for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters())]
    for o, t in pairs:
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=rtol * 1e-2)


# ----------------------------------------------------------------------------- sequences

CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True},
    {"batch_first": True},
    {"bias": False},
    {"num_layers": 2, "dropout": 0.5},     # eval mode: no dropout
]
MODES = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]


def _states(cls: str, kwargs: dict, batched: bool = True):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h_size = kwargs.get("proj_size") or 5
    h, c = H[:layers, :, :h_size], C[:layers]
    if not batched:
        h, c = h[:, 0], c[:, 0]
    return [h, c] if cls == "LSTM" else [h]


def _run(cls: str):
    def call(module, x, *state):
        if not state:
            return module(x)
        return module(x, tuple(state) if cls == "LSTM" else state[0])
    return call


@pytest.mark.parametrize("mode", MODES, ids=[f"{c}{k.get('nonlinearity', '')}" for c, k in MODES])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c) or "default")
@pytest.mark.parametrize("with_h0", [False, True], ids=["no_h0", "h0"])
def test_sequence_matches_torch(mode, config, with_h0):
    cls, extra = mode
    ours, theirs = _pair(cls, 3, 5, **extra, **config)
    ours.eval(), theirs.eval()
    x = X.transpose(1, 0, 2) if config.get("batch_first") else X
    _compare(ours, theirs, [x] + (_states(cls, config) if with_h0 else []), _run(cls))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("config", [{}, {"num_layers": 2, "bidirectional": True},
                                    {"batch_first": True}], ids=["default", "deep", "bf"])
def test_unbatched_sequence_matches_torch(cls, config):
    ours, theirs = _pair(cls, 3, 5, **config)
    _compare(ours, theirs, [X[:, 0]], _run(cls))
    _compare(ours, theirs, [X[:, 0]] + _states(cls, config, batched=False), _run(cls))


@pytest.mark.parametrize("config", [{}, {"num_layers": 2, "bidirectional": True},
                                    {"batch_first": True, "bias": False}],
                         ids=["default", "deep", "bf_nobias"])
def test_lstm_projection_matches_torch(config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch: projections are not supported by oneDNN
        ours, theirs = _pair("LSTM", 3, 5, proj_size=2, **config)
        x = X.transpose(1, 0, 2) if config.get("batch_first") else X
        _compare(ours, theirs, [x] + _states("LSTM", {**config, "proj_size": 2}), _run("LSTM"))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_float32_matches_torch(cls):
    ours, theirs = _pair(cls, 3, 5, num_layers=2, bidirectional=True, dtype="float32")
    _compare(ours, theirs, [X.astype(np.float32)], _run(cls), dtype="float32")


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("dropout", [0.0, 1.0])
def test_training_dropout_between_layers(cls, dropout):
    """dropout=1 zeroes the second layer's input: deterministic, so torch can check that it
    acts between layers (not after the last) and in training only."""
    ours, theirs = _pair(cls, 3, 5, num_layers=2, dropout=dropout)
    _compare(ours, theirs, [X] + _states(cls, {"num_layers": 2}), _run(cls))


def test_training_dropout_masks_the_layer_input():
    rnn = ag.nn.RNN(3, 5, num_layers=2, dropout=0.5, dtype=ag.float64)
    out = rnn(ag.tensor(X))[0]
    rnn.eval()
    assert not np.allclose(out.detach().numpy(), rnn(ag.tensor(X))[0].detach().numpy())


def _names(fn, limit: int = 400) -> list:
    """The graph below ``fn``, depth first along next_functions, as node names."""
    out, stack = [], [fn]
    while stack and len(out) < limit:
        node = stack.pop()
        if node is None:
            out.append(None)
            continue
        name = node.name() if hasattr(node, "name") else type(node).__name__
        out.append(name.rsplit("::", 1)[-1])
        stack.extend(f for f, _ in reversed(node.next_functions))
    return out


@pytest.mark.parametrize("cls, config", [
    ("RNN", {"bias": False}), ("LSTM", {"proj_size": 1}), ("GRU", {"bidirectional": True}),
    ("RNN", {"num_layers": 2, "batch_first": True, "nonlinearity": "relu"}),
], ids=["rnn", "lstm_proj", "gru_bi", "rnn_deep_bf"])
def test_recorded_graph_is_torchs(cls, config):
    """Every node of the graph, in next_functions order, as torch's CPU kernels record it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _pair(cls, 2, 2, **config)
        x = X[:2, :1, :2]
        our_out = _flat(ours(ag.tensor(x, requires_grad=True)))
        their_out = _flat(theirs(torch.tensor(x, requires_grad=True)))
    for o, t in zip(our_out, their_out):
        assert _names(o.grad_fn) == _names(t.grad_fn)


# ----------------------------------------------------------------------------- cells

CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
         ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("cell", CELLS, ids=[f"{c}-{'-'.join(k)}" for c, k in CELLS])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_hx", [False, True], ids=["no_hx", "hx"])
def test_cell_matches_torch(cell, batched, with_hx):
    cls, kwargs = cell
    ours, theirs = _pair(cls, 3, 5, **kwargs)
    x, h, c = (X[0], H[0], C[0]) if batched else (X[0, 0], H[0, 0], C[0, 0])
    state = ([h, c] if cls == "LSTMCell" else [h]) if with_hx else []
    _compare(ours, theirs, [x] + state, _run("LSTM" if cls == "LSTMCell" else cls))


@pytest.mark.parametrize("cls", ["LSTMCell", "GRUCell"])
def test_cell_graph_is_torchs(cls):
    ours, theirs = _pair(cls, 2, 2)
    our_out = _flat((ours(ag.tensor(X[0, :, :2], requires_grad=True)),))
    their_out = _flat((theirs(torch.tensor(X[0, :, :2], requires_grad=True)),))
    for o, t in zip(our_out, their_out):
        assert _names(o.grad_fn) == _names(t.grad_fn)


# ----------------------------------------------------------------------------- derivatives

def test_gradcheck_lstm_and_gru_of_input_and_state():
    lstm = ag.nn.LSTM(2, 2, dtype=ag.float64)
    gru = ag.nn.GRU(2, 2, bidirectional=True, dtype=ag.float64)
    x = ag.tensor(X[:2, :1, :2], requires_grad=True)
    h, c = (ag.tensor(a[:1, :1, :2], requires_grad=True) for a in (H, C))
    assert ag.autograd.gradcheck(lambda x, h, c: _flat(lstm(x, (h, c))), (x, h, c))
    h2 = ag.tensor(H[:2, :1, :2], requires_grad=True)
    assert ag.autograd.gradcheck(lambda x, h: _flat(gru(x, h)), (x, h2))


def test_gradgradcheck_cells():
    lstm, gru = ag.nn.LSTMCell(2, 2, dtype=ag.float64), ag.nn.GRUCell(2, 2, dtype=ag.float64)
    x, h, c = (ag.tensor(a[0, :1, :2], requires_grad=True) for a in (X, H, C))
    assert ag.autograd.gradgradcheck(lambda x, h, c: lstm(x, (h, c)), (x, h, c))
    assert ag.autograd.gradgradcheck(lambda x, h: gru(x, h), (x, h))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_second_derivative_matches_torch(cls):
    """d/dx of (d(sum of squares of output)/dx . v), with create_graph, against torch."""
    ours, theirs = _pair(cls, 2, 3, bidirectional=True)
    grads = []
    for lib, module in ((ag, ours), (torch, theirs)):
        x = lib.tensor(X[:3, :, :2].copy(), requires_grad=True)
        out = module(x)[0]
        gx, = lib.autograd.grad((out ** 2).sum(), x, create_graph=True)
        (gx * lib.tensor(X[:3, :, :2].copy())).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-10)


# ----------------------------------------------------------------------------- parameters

@pytest.mark.parametrize("cls, args, kwargs", [
    ("RNN", (3, 4), {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("LSTM", (3, 4), {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
    ("LSTM", (3, 4), {"proj_size": 1, "bias": False}),
    ("GRU", (3, 4, 3), {}),
    ("RNNCell", (3, 4), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {}),
])
def test_parameters_repr_and_init_are_torchs(cls, args, kwargs):
    ours, theirs = getattr(ag.nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert str(ours) == str(theirs)
    bound = 1 / np.sqrt(args[1])
    for p in ours.parameters():
        values = p.detach().numpy()
        assert np.all(np.abs(values) <= bound) and np.std(values) > bound / 4


def test_all_weights_and_flat_weights():
    lstm = ag.nn.LSTM(3, 4, bidirectional=True, proj_size=2)
    assert [[tuple(w.shape) for w in ws] for ws in lstm.all_weights] == \
        [[(16, 3), (16, 2), (16,), (16,), (2, 4)]] * 2
    assert lstm._flat_weights[4] is lstm.weight_hr_l0


# ----------------------------------------------------------------------------- errors

SETUP = {"x": "lib.ones(5, 3, 10)", "h": "lib.ones(1, 3, 20)", "c": "lib.ones(1, 3, 20)"}
ERRORS = [
    "lib.nn.RNN(10, 20)(lib.ones(5, 3, 5))",
    "lib.nn.GRU(10, 20, batch_first=True)(lib.ones(3, 5, 5))",
    "lib.nn.RNN(10, 20)(x, lib.ones(1, 2, 20))",
    "lib.nn.RNN(10, 20, 2, bidirectional=True)(x, h)",
    "lib.nn.RNN(10, 20)(x, lib.ones(3, 20))",
    "lib.nn.GRU(10, 20)(x[:, 0], h)",
    "lib.nn.RNN(10, 20)(lib.ones(2, 2, 2, 10))",
    "lib.nn.RNN(10, 20)(lib.ones(10))",
    "lib.nn.LSTM(10, 20)(lib.ones(2, 2, 2, 10))",
    "lib.nn.GRU(10, 20)(lib.ones(2, 2, 2, 10))",
    "lib.nn.LSTM(10, 20)(x, (h, lib.ones(1, 2, 20)))",
    "lib.nn.LSTM(10, 20)(x, (lib.ones(1, 2, 20), c))",
    "lib.nn.LSTM(10, 20)(x, (lib.ones(3, 20), c))",
    "lib.nn.LSTM(10, 20)(x[:, 0], (h, c))",
    "lib.nn.LSTM(10, 20, proj_size=5)(x, (h, c))",
    "lib.nn.RNN(10, 20)(x.double())",
    "lib.nn.LSTM(10, 20)(x.long())",
    "lib.nn.RNN(10, 20)(lib.ones(0, 3, 10))",
    "lib.nn.RNN(10, 20, nonlinearity='sigmoid')",
    "lib.nn.RNN(10, 20, proj_size=2)",
    "lib.nn.GRU(10, 20, proj_size=0)",
    "lib.nn.LSTM(10, 20, proj_size=20)",
    "lib.nn.LSTM(10, 20, proj_size=-1)",
    "lib.nn.RNN(10, 20, dropout=1.5)",
    "lib.nn.RNN(10, 20, dropout=-0.1)",
    "lib.nn.LSTM(10, 20, dropout=True)",
    "lib.nn.RNN(10, 20, num_layers=0)",
    "lib.nn.RNN(0, 20)",
    "lib.nn.RNN(10, 0)",
    "lib.nn.RNN(10.0, 20)",
    "lib.nn.RNN(10, 20.0)",
    "lib.nn.RNN(10, 20, bias=1)",
    "lib.nn.RNN(10, 20, batch_first=None)",
    "lib.nn.RNNCell(10, 20)(lib.ones(3, 5))",
    "lib.nn.RNNCell(10, 20)(lib.ones(3, 10), lib.ones(2, 20))",
    "lib.nn.RNNCell(10, 20)(lib.ones(3, 10), lib.ones(3, 4))",
    "lib.nn.RNNCell(10, 20)(lib.ones(10), lib.ones(3, 20))",
    "lib.nn.RNNCell(10, 20)(lib.ones(3, 10), lib.ones(20))",
    "lib.nn.RNNCell(10, 20)(lib.ones(2, 3, 10))",
    "lib.nn.RNNCell(10, 20)(lib.ones(3, 10), h)",
    "lib.nn.RNNCell(10, 20, nonlinearity='foo')(lib.ones(3, 10))",
    "lib.nn.LSTMCell(10, 20)(lib.ones(3, 10), (lib.ones(3, 20),))",
    "lib.nn.LSTMCell(10, 20)(lib.ones(3, 10), (lib.ones(3, 20), lib.ones(2, 20)))",
    "lib.nn.LSTMCell(10, 20)(lib.ones(3, 10), (lib.ones(3, 4), lib.ones(3, 20)))",
    "lib.nn.LSTMCell(10, 20)(lib.ones(3, 10), (lib.ones(3, 20), h))",
    "lib.nn.LSTMCell(10, 20)(lib.ones(2, 3, 10))",
    "lib.nn.GRUCell(10, 20)(lib.ones(2, 3, 10))",
    "lib.nn.GRUCell(10, 20)(lib.ones(3, 5))",
    "lib.nn.GRUCell(10, 20)(lib.ones(3, 10), h)",
    # not errors: empty batches
    "lib.nn.GRU(10, 20)(lib.ones(4, 0, 10))[0]",
    "lib.nn.LSTM(10, 20, batch_first=True)(lib.ones(0, 4, 10))[1]",
    "lib.nn.RNNCell(10, 20)(lib.ones(0, 10))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_are_torchs(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_dropout_warning_with_one_layer_is_torchs(cls):
    texts = []
    for lib in (ag, torch):
        with pytest.warns(UserWarning) as record:
            getattr(lib.nn, cls)(10, 20, dropout=0.5)
        texts.append([str(w.message) for w in record])
    assert texts[0] == texts[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.nn.RNN(10, 20, num_layers=2, dropout=0.5)


# ----------------------------------------------------------------------------- devices

@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU", "LSTMCell"])
def test_runs_on_cuda_and_matches_cpu(cls, fake_cuda):
    """Every forward and derivative stays on the device's array module (CuPy's test double)."""
    kwargs = {} if cls.endswith("Cell") else {"num_layers": 2, "bidirectional": True,
                                              "batch_first": True}
    cpu = getattr(ag.nn, cls)(3, 5, **kwargs)
    gpu = getattr(ag.nn, cls)(3, 5, **kwargs)
    gpu.load_state_dict(cpu.state_dict())
    gpu.to("cuda")
    x = X[0] if cls.endswith("Cell") else X
    grads = []
    for module, device in ((cpu, "cpu"), (gpu, "cuda")):
        inp = ag.tensor(x.astype(np.float32), device=device, requires_grad=True)
        out = _flat(module(inp))
        assert all(o.device.type == device for o in out)
        sum(o.sum() for o in out).backward()
        grads.append([inp.grad] + [p.grad for p in module.parameters()])
    for c, g in zip(*grads):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(g.cpu().numpy(), c.numpy(), rtol=1e-4, atol=1e-5)

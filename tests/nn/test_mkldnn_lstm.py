"""A float32 LSTM on the CPU records torch's oneDNN graph: one MkldnnRnnLayerBackward0 per
layer and direction (``mkldnn_rnn_layer``), or the native cell graph with
``backends.mkldnn.enabled = False``, as torch does. The op against torch's own
``torch.mkldnn_rnn_layer``, against the native cell graph, and gradcheck in float64."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.autograd import gradcheck, gradgradcheck

from .test_recurrent import WEIGHTS, _compare, _flat, _names, _pair, _run, _states

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 2, 3)).astype(np.float32)   # (seq, batch, features)

CONFIGS = [
    {},
    {"batch_first": True},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False},
]


def _ids(config: dict) -> str:
    return "-".join(config) or "default"


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _graphs(torch, config: dict, with_h0: bool, train: bool = False):
    ours, theirs = _pair("LSTM", 3, 5, dtype="float32", **config)
    if not train:
        ours.eval(), theirs.eval()
    x = X.transpose(1, 0, 2) if config.get("batch_first") else X
    arrays = [x] + ([a.astype(np.float32) for a in _states("LSTM", config)] if with_h0 else [])
    our_out = _flat(_run("LSTM")(ours, *[ag.tensor(a, requires_grad=True) for a in arrays]))
    their_out = _flat(_run("LSTM")(theirs, *[torch.tensor(a, requires_grad=True)
                                              for a in arrays]))
    return our_out, their_out


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
@pytest.mark.parametrize("with_h0", [False, True], ids=["no_h0", "h0"])
def test_the_graph_is_torchs_onednn_graph(torch, config, with_h0):
    our_out, their_out = _graphs(torch, config, with_h0)
    for o, t in zip(our_out, their_out):
        names = _names(o.grad_fn)
        assert names == _names(t.grad_fn)
        assert "MkldnnRnnLayerBackward0" in names and "SigmoidBackward0" not in names


def test_with_onednn_off_the_graph_is_the_native_cell_graph(torch):
    torch.backends.mkldnn.enabled = False
    try:
        with ag.backends.mkldnn.flags(enabled=False):
            our_out, their_out = _graphs(torch, {"num_layers": 2}, True)
    finally:
        torch.backends.mkldnn.enabled = True
    assert ag.backends.mkldnn.enabled
    for o, t in zip(our_out, their_out):
        names = _names(o.grad_fn)
        assert names == _names(t.grad_fn)
        assert "SigmoidBackward0" in names and "MkldnnRnnLayerBackward0" not in names


@pytest.mark.parametrize("config", CONFIGS + [{"num_layers": 2, "dropout": 1.0}], ids=_ids)
def test_values_and_gradients_match_torch(torch, config):
    """Training mode: dropout=1 between layers is deterministic (the second layer's input is
    zeros), so torch can check where it acts."""
    ours, theirs = _pair("LSTM", 3, 5, dtype="float32", **config)
    x = X.transpose(1, 0, 2) if config.get("batch_first") else X
    states = [a.astype(np.float32) for a in _states("LSTM", config)]
    _compare(ours, theirs, [x] + states, _run("LSTM"), dtype="float32")


def test_unbatched_input_matches_torch(torch):
    ours, theirs = _pair("LSTM", 3, 5, dtype="float32", num_layers=2)
    _compare(ours, theirs, [X[:, 0]], _run("LSTM"), dtype="float32")


def test_second_derivative_matches_torch(torch):
    """create_graph through the fused node: its gradients are ops, so they differentiate."""
    ours, theirs = _pair("LSTM", 3, 5, dtype="float32", bidirectional=True)
    grads = []
    for lib, module in ((ag, ours), (torch, theirs)):
        x = lib.tensor(X.copy(), requires_grad=True)
        out, (h, c) = module(x)
        assert "MkldnnRnnLayerBackward0" in _names(out.grad_fn)
        gx, = lib.autograd.grad((out ** 2).sum() + (c ** 2).sum(), x, create_graph=True)
        (gx * lib.tensor(X.copy())).sum().backward()
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in module.parameters()])
    for o, t in zip(*grads):
        np.testing.assert_allclose(o, t, rtol=2e-4, atol=2e-6)


def test_saved_values_are_torchs_and_released_by_backward(torch):
    ours, theirs = _pair("LSTM", 3, 5, dtype="float32")
    nodes, outputs = [], []
    for lib, module in ((ag, ours), (torch, theirs)):
        out, (h, _) = module(lib.tensor(X, requires_grad=True))
        nodes.append(h.grad_fn.next_functions[0][0])   # StackBackward0's input
        outputs.append(out)
    our_node, their_node = nodes
    assert our_node.name() == their_node.name() == "MkldnnRnnLayerBackward0"
    for name in sorted(a for a in dir(their_node) if a.startswith("_saved_")):
        mine, torchs = getattr(our_node, name), getattr(their_node, name)
        if name == "_saved_result3":   # the workspace: oneDNN's layout is its own
            assert mine.ndim == 1 and mine.dtype == ag.float32
        elif hasattr(torchs, "shape"):
            assert tuple(mine.shape) == tuple(torchs.shape), name
        else:
            assert mine == torchs, name
    errors = []
    for out, node in zip(outputs, nodes):
        out.sum().backward()
        with pytest.raises(RuntimeError) as caught:
            node._saved_input
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


# ----------------------------------------------------------------------------- the op itself

T, B, I, H = 3, 2, 3, 2


def _layer_inputs(dtype, bias: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    shapes = [(T, B, I), (4 * H, I), (4 * H, H), (4 * H,), (4 * H,), (B, H), (B, H)]
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if not bias:   # (torch asks for tensors there all the same, and reads none of them)
        arrays[3] = arrays[4] = np.full((4 * H,), np.nan, dtype)
    return arrays


def _layer(lib, tensors, reverse: bool, bias: bool):
    return lib.mkldnn_rnn_layer(*tensors, reverse, [], 2, H, 1, bias, False, False, True)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
def test_the_op_matches_torchs(torch, reverse, bias):
    arrays = _layer_inputs(np.float32, bias)
    results, grads = [], []
    for lib in (ag, torch):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = _layer(lib, inputs, reverse, bias)
        results.append([o.detach().numpy() for o in out[:3]])
        sum(w * o.sum() for w, o in zip(WEIGHTS, out[:3])).backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in inputs])
    for o, t in zip(*results):
        np.testing.assert_allclose(o, t, rtol=2e-5, atol=1e-6)
    for o, t in zip(*grads):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(o, t, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
def test_gradcheck_and_gradgradcheck_in_float64(reverse, bias):
    arrays = _layer_inputs(np.float64, bias, seed=3)
    if not bias:
        del arrays[3:5]
    tensors = [ag.tensor(a, requires_grad=True) for a in arrays]

    def layer(x, w_ih, w_hh, *rest):
        b = rest[:2] if bias else (ag.zeros(4 * H, dtype=ag.float64),) * 2
        return _layer(ag, [x, w_ih, w_hh, *b, *rest[-2:]], reverse, bias)[:3]
    assert gradcheck(layer, tensors)
    assert gradgradcheck(layer, tensors)


def test_the_op_equals_the_native_cell_graph():
    """The same layer through the native steps (float64, so rounding is not at stake)."""
    model = ag.nn.LSTM(3, 2, dtype=ag.float64, bidirectional=True)
    x = ag.tensor(RNG.standard_normal((5, 2, 3)), dtype=ag.float64)
    native = _flat(model(x))   # (float64 takes the native path, as in torch)
    weights = model._layer_weights()
    ours = []
    for d in (0, 1):
        w_ih, w_hh, b_ih, b_hh, _ = weights[d]
        zeros = ag.zeros(2, 2, dtype=ag.float64)
        ours.append(ag.mkldnn_rnn_layer(x, w_ih, w_hh, b_ih, b_hh, zeros, zeros, d == 1, [], 2,
                                        2, 1, True, True, False, True))
    output = ag.cat([ours[0][0], ours[1][0]], -1)
    np.testing.assert_allclose(output.detach().numpy(), native[0].detach().numpy(), rtol=1e-12)
    for k, state in ((1, native[1]), (2, native[2])):
        stacked = ag.stack([ours[0][k], ours[1][k]], 0)
        np.testing.assert_allclose(stacked.detach().numpy(), state.detach().numpy(),
                                   rtol=1e-12)


def test_the_workspace_is_not_differentiable():
    tensors = [ag.tensor(a, requires_grad=True) for a in _layer_inputs(np.float32, True)]
    out = _layer(ag, tensors, False, True)
    assert out[3].grad_fn is None and not out[3].requires_grad
    assert all(o.grad_fn.name() == "MkldnnRnnLayerBackward0" for o in out[:3])


def test_flags_are_torchs(torch):
    assert ag.backends.mkldnn.is_available() and ag.backends.mkldnn.enabled
    previous = ag.backends.mkldnn.set_flags(False)
    assert previous == (True, False, True) and not ag.backends.mkldnn.enabled
    ag.backends.mkldnn.set_flags(*previous)
    assert ag.backends.mkldnn.enabled == torch.backends.mkldnn.enabled


def test_the_op_refuses_what_torch_refuses(torch):
    arrays = _layer_inputs(np.float32, True)
    for lib in (ag, torch):
        tensors = [lib.tensor(a) for a in arrays]
        tensors[3] = None
        with pytest.raises(TypeError, match=r"argument 'weight2' \(position 4\) must be Tensor, "
                                            "not NoneType"):
            _layer(lib, tensors, False, False)

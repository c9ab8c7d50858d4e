"""Normalization, conv1d, the 1D pools and the adaptive pools against torch: values, dtypes,
grad_fn names and torch's errors (type and first line), with ``assert_same_as_torch``."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# float64, so that values compare to 1e-6 (float32 statistics differ from torch's in the
# last bits: it accumulates in another order)
SETUP = {
    "x": "lib.arange(60.0, dtype=lib.float64).reshape(3, 4, 5).sin().requires_grad_()",
    "img": "lib.arange(48.0, dtype=lib.float64).reshape(2, 4, 3, 2).cos().requires_grad_()",
    "w5": "lib.tensor([0.5, 0.75, 1.0, 1.25, 1.5], dtype=lib.float64).requires_grad_()",
    "b5": "lib.tensor([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=lib.float64).requires_grad_()",
    "w4": "lib.tensor([0.5, 0.8, 1.2, 1.5], dtype=lib.float64).requires_grad_()",
    "b4": "lib.tensor([-1.0, -0.4, 0.3, 1.0], dtype=lib.float64).requires_grad_()",
    "rm": "lib.zeros(4).double()",
    "rv": "lib.ones(4).double()",
    "sig": "lib.arange(48.0, dtype=lib.float64).reshape(2, 3, 8).sin().requires_grad_()",
    "k": "lib.arange(36.0, dtype=lib.float64).reshape(4, 3, 3).cos().requires_grad_()",
    "f32": "lib.tensor([[1.0, 3.0, 5.0, 7.0], [2.0, 2.0, 4.0, 4.0]])",
}

EXPRESSIONS = [
    # layer_norm
    "F.layer_norm(x, (5,))",
    "F.layer_norm(x, [4, 5])",
    "F.layer_norm(x, x.shape[1:])",
    "F.layer_norm(x, (5,), w5, b5, eps=0.5)",
    "F.layer_norm(x, (5,), None, b5)",
    "F.layer_norm(x.detach(), (5,), w5)",
    "F.layer_norm(x.detach(), (5,))",
    "F.layer_norm(f32, (4,))",
    "F.layer_norm(f32.half(), (4,))",
    "F.layer_norm(f32, (4,), lib.ones(4))",
    "F.layer_norm(lib.ones(0, 5), (5,))",
    "F.layer_norm(x, (4,))",
    "F.layer_norm(x, (2, 3, 4, 5))",
    "F.layer_norm(x, 5)",
    "F.layer_norm(x, ())",
    "F.layer_norm(x, (5,), lib.ones(4))",
    "F.layer_norm(x, (5,), None, lib.ones(4))",
    "F.layer_norm(x.long(), (5,))",
    "F.layer_norm(x, (5,), w5.float())",
    "F.layer_norm(f32.half(), (4,), lib.ones(4))",
    # group_norm
    "F.group_norm(x, 2)",
    "F.group_norm(img, 4, w4, b4)",
    "F.group_norm(img, 1, None, b4, eps=0.1)",
    "F.group_norm(lib.ones(3, 4) * x[:, :, 0], 2)",
    "F.group_norm(lib.ones(0, 4, 3), 2)",
    "F.group_norm(x, 3)",
    "F.group_norm(x, 2, lib.ones(3))",
    "F.group_norm(x, 2, None, lib.ones(3))",
    "F.group_norm(lib.ones(4), 2)",
    "F.group_norm(lib.ones(1, 2), 2)",
    "F.group_norm(x.long(), 2)",
    # batch_norm
    "F.batch_norm(x, rm, rv, training=True)",
    "F.batch_norm(img, rm, rv, w4, b4, training=True, momentum=0.5, eps=0.1)",
    "F.batch_norm(img, rm, rv, w4, b4, training=False)",
    "F.batch_norm(img, None, None, w4, training=True)",
    "F.batch_norm(x.detach(), rm, rv, training=False)",
    "F.batch_norm(x[:, :, 0], rm, rv, None, b4, training=True)",
    "F.batch_norm(lib.ones(0, 4), rm, rv, training=True)",
    "F.batch_norm(f32.half(), rm.float(), rv.float(), training=True)",
    "F.batch_norm(f32, lib.zeros(4), lib.ones(4), training=True)",
    "F.batch_norm(lib.ones(1, 4), rm, rv, training=True)",
    "F.batch_norm(lib.ones(1, 4, 1), rm, rv, training=True)",
    "F.batch_norm(lib.ones(1, 4), rm, rv, training=False)",
    "F.batch_norm(x, lib.zeros(3), rv, training=True)",
    "F.batch_norm(x, rm, lib.ones(3), training=True)",
    "F.batch_norm(x, rm, rv, lib.ones(3), training=True)",
    "F.batch_norm(x, None, None, training=False)",
    "F.batch_norm(x, rm, rv, momentum=None)",
    "F.batch_norm(x.long(), rm, rv, training=True)",
    "F.batch_norm(x.float(), rm, rv, training=True)",
    "F.batch_norm(x, rm.float(), rv.float(), training=True)",
    "F.group_norm(f32, 2, lib.ones(4))",
    # instance_norm
    "F.instance_norm(x)",
    "F.instance_norm(img, rm, rv, w4, b4, momentum=0.3)",
    "F.instance_norm(img, rm, rv, use_input_stats=False)",
    "F.instance_norm(x.transpose(0, 2).transpose(0, 1)[:, :4])",
    "F.instance_norm(lib.ones(1, 4, 1))",
    "F.instance_norm(lib.ones(2, 4))",
    "F.instance_norm(x, use_input_stats=False)",
    # conv1d
    "F.conv1d(sig, k)",
    "F.conv1d(sig, k, lib.ones(4).double(), stride=2, padding=1, dilation=2)",
    "F.conv1d(sig, k, padding='same')",
    "F.conv1d(sig, k, padding='valid')",
    "F.conv1d(sig, k[:, :1], groups=3)",
    "F.conv1d(sig[0], k)",
    "F.conv1d(sig.detach(), k.detach())",
    "F.conv1d(sig.long(), k.long())",
    "F.conv1d(sig, k, padding=(1, 2))",
    "F.conv1d(sig, k, stride=0)",
    "F.conv1d(sig, k, padding=-1)",
    "F.conv1d(sig, k, padding='same', stride=2)",
    "F.conv1d(sig, k, padding='foo')",
    "F.conv1d(sig[:, :, :2], k)",
    "F.conv1d(sig, k[:, :2])",
    "F.conv1d(sig, k[:2, :1], groups=3)",
    "F.conv1d(sig.repeat(1, 2, 1), k[:, :1], groups=6)",
    "F.conv1d(sig.unsqueeze(0), k)",
    "F.conv1d(sig, k, lib.ones(3).double())",
    "F.conv1d(sig, k, lib.ones(4))",
    "F.conv1d(sig, k.float())",
    "F.conv1d(sig.float(), k)",
    "F.conv1d(lib.ones(0, 3, 8), k)",
    "F.conv1d(sig, k[0])",
    "F.conv1d(sig, k.unsqueeze(2))",
    "F.conv1d(sig, k, groups=0)",
    # 1D pools
    "F.max_pool1d(sig, 2)",
    "F.max_pool1d(sig[0], 3, 2, 1, ceil_mode=True)",
    "F.max_pool1d(sig, (2,), dilation=2)",
    "F.max_pool1d(sig, 2, return_indices=True)",
    "F.max_pool1d(sig.detach(), 2)",
    "F.max_pool1d(sig[0, 0], 2)",
    "F.max_pool1d(sig.unsqueeze(0), 2)",
    "F.max_pool1d(sig, 10)",
    "F.max_pool1d(sig, 3, padding=2)",
    "F.max_pool1d(sig, 0)",
    "F.max_pool1d(sig.detach().long(), 2)",
    "F.avg_pool1d(sig, 2)",
    "F.avg_pool1d(sig[0], 3, 2, 1, ceil_mode=True, count_include_pad=False)",
    "F.avg_pool1d(sig.detach().long(), 2)",
    "F.avg_pool1d(sig[0, 0], 2)",
    "F.avg_pool1d(sig.unsqueeze(0), 2)",
    "F.avg_pool1d(sig, 10)",
    "F.avg_pool1d(sig, 2, stride=0)",
    "F.avg_pool1d(sig, (2, 2))",
    # adaptive pools
    "F.adaptive_avg_pool2d(img, (2, 1))",
    "F.adaptive_avg_pool2d(img, 1)",
    "F.adaptive_avg_pool2d(img, (1, 1))",
    "F.adaptive_avg_pool2d(img[0], (None, 3))",
    "F.adaptive_avg_pool2d(img, 5)",
    "F.adaptive_avg_pool2d(img, 0)",
    "F.adaptive_avg_pool2d(lib.ones(0, 3, 4, 4), 2)",
    "F.adaptive_avg_pool2d(img.detach(), 2)",
    "F.adaptive_avg_pool2d(img[0, 0], 2)",
    "F.adaptive_avg_pool2d(img.unsqueeze(0), 2)",
    "F.adaptive_avg_pool2d(img, (2, 3, 4))",
    "F.adaptive_avg_pool2d(img, -1)",
    "F.adaptive_avg_pool2d(img.detach().long(), 2)",
    "F.adaptive_avg_pool2d(img.detach().long(), 1)",
    "F.adaptive_avg_pool1d(sig, 3)",
    "F.adaptive_avg_pool1d(sig, 1)",
    "F.adaptive_avg_pool1d(sig[0], (5,))",
    "F.adaptive_avg_pool1d(sig, (3, 2))",
    "F.adaptive_avg_pool1d(sig[0, 0], 3)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_matches_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


def _pair(expr: str, setup: dict):
    """The scope of ``expr`` built for agdebug and for torch, with the result of each."""
    scopes = []
    for lib, functional in ((ag, AF), (torch, TF)):
        scope = {"lib": lib, "F": functional}
        for name, text in setup.items():
            scope[name] = eval(text, scope)
        scope["out"] = eval(expr, scope)
        scopes.append(scope)
    return scopes


@pytest.mark.parametrize("expr", [
    "F.batch_norm(img, rm, rv, training=True, momentum=0.3)",
    "F.batch_norm(x[:, :, :2], rm, rv, training=True)",   # unbiased: n = 6
    "F.instance_norm(img, rm, rv, momentum=0.4)",
    "F.instance_norm(img, rm, rv, use_input_stats=False)",
    "F.batch_norm(img, rm, rv, training=False)",
])
def test_running_statistics_and_versions(expr):
    ours, theirs = _pair(expr, SETUP)
    for name in ("rm", "rv"):
        np.testing.assert_allclose(ours[name].numpy(), theirs[name].numpy(), rtol=1e-6,
                                   atol=1e-7)
        # torch's kernel writes the statistics without a version bump; instance_norm copies
        assert ours[name]._version == theirs[name]._version, name


@pytest.mark.parametrize("expr, inputs", [
    ("F.layer_norm(x, (5,), w5, b5)", ("x", "w5", "b5")),
    ("F.group_norm(img, 2, w4, b4)", ("img", "w4", "b4")),
    ("F.batch_norm(img, rm, rv, w4, b4, training=True)", ("img", "w4", "b4")),
    ("F.batch_norm(img, rm, rv, w4, b4, training=False)", ("img", "w4", "b4")),
    ("F.instance_norm(img, None, None, w4, b4)", ("img", "w4", "b4")),
])
def test_second_derivatives_match_torch(expr, inputs):
    """The derivative recomputes the statistics from the input: a derivative built from the
    forward's (constant) statistics gives wrong second derivatives, which this catches."""
    results = []
    for scope, lib in zip(_pair(expr, SETUP), (ag, torch)):
        wrt = [scope[n] for n in inputs]
        out = scope["out"]
        weights = lib.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape))
        grads = lib.autograd.grad((out * out * weights).sum(), wrt, create_graph=True)
        total = sum(((g * g).sum() for g in grads), lib.zeros(()))
        results.append([g.detach().numpy() for g in lib.autograd.grad(total, wrt)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_layer_norm_node_edges_match_torch():
    """One node with three edges (input, weight, bias), None where a parameter is absent."""
    ours, theirs = _pair("F.layer_norm(x, (5,), None, b5)", SETUP)
    edges = [[f is None for f, _ in s["out"].grad_fn.next_functions] for s in (ours, theirs)]
    assert edges[0] == edges[1] == [False, True, False]


def test_instance_norm_graph_matches_torch():
    ours, theirs = _pair("F.instance_norm(img, None, None, w4, b4)", SETUP)
    for scope in (ours, theirs):
        node = scope["out"].grad_fn.next_functions[0][0]
        assert node.name() == "NativeBatchNormBackward0"
        assert [f.name() for f, _ in node.next_functions] == [
            "ViewBackward0", "RepeatBackward0", "RepeatBackward0"]

"""3D convolutions and pools, the channel and alpha dropouts, rms_norm and
local_response_norm against torch: values, dtypes, gradients, grad_fn names and errors,
batched and unbatched, argument variants (the volumes are tiny: each test well under 0.5 s).
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, evaluate


def _data(*shape) -> str:
    """A deterministic float64 leaf that requires grad, built the same way by both libraries."""
    n = int(np.prod(shape))
    return (f"lib.arange({n}, dtype=lib.float64).reshape{shape}.mul(0.37).sin()"
            ".detach().requires_grad_()")


SETUP = {"x": _data(2, 2, 3, 4, 3), "w": _data(3, 2, 2, 2, 2), "b": _data(3),
         "wt": _data(2, 3, 2, 1, 2), "v": _data(2, 4, 3)}


def assert_same_with_grads(torch, expr: str, setup: dict = SETUP) -> None:
    """``assert_same_as_torch``, then the gradients of every leaf in ``setup`` for the same
    fixed upstream gradient."""
    assert_same_as_torch(torch, expr, setup)
    grads = []
    for lib in (ag, torch):
        kind, out = evaluate(lib, f"(({expr}), {', '.join(setup)})", setup)
        if kind == "error":
            return
        result, leaves = out[0], out[1:]
        if isinstance(result, tuple):
            result = result[0]
        if not result.requires_grad:
            return
        upstream = lib.arange(result.numel(), dtype=result.dtype).reshape(result.shape).cos()
        (result * upstream).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in leaves])
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)


# ----------------------------------------------------------------------------- conv3d

CONVS = [
    "F.conv3d(x, w)", "F.conv3d(x, w, b)", "F.conv3d(x, w, b, stride=2, padding=1)",
    "F.conv3d(x, w, stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1))",
    "F.conv3d(x, w, padding='same')", "F.conv3d(x, w, padding='valid')",
    "F.conv3d(x, w, padding='same', dilation=2)", "F.conv3d(x[0], w, b)",
    "F.conv3d(x, w[:2, :1], groups=2)", "F.conv3d(x[:0], w)",
    "F.conv3d(x.float().mul(4).round(), w.float().mul(4).round())",
    "F.conv3d(x.detach().long(), w.detach().long())",
    "F.conv3d(x, w, None, [1], [0], [1], 1)",
    "F.conv3d(input=x, weight=w, bias=b, stride=1, padding=0, dilation=1, groups=1)",
    "F.conv3d(x, w.detach())", "F.conv3d(x.detach(), w)",
    # errors, in torch's order
    "F.conv3d(x[0, 0], w)", "F.conv3d(x[None], w)", "F.conv3d(x[:, :1], w)",
    "F.conv3d(x[:, :, :1], w)", "F.conv3d(x, w, stride=(1, 2))", "F.conv3d(x, w, padding=-1)",
    "F.conv3d(x, w, b[:2])", "F.conv3d(x.float(), w.float(), b)", "F.conv3d(x, w.float())",
    "F.conv3d(x.float(), w)", "F.conv3d(x[:1].float(), w)",
    "F.conv3d(x.detach().bool(), w.detach().bool())",
    "F.conv3d(x, w, groups=2)", "F.conv3d(x, w, padding='same', stride=2)",
    "F.conv3d(x, w, padding='full')", "F.conv3d(x, w[0])", "F.conv3d(x, w, stride=0)",
    "F.conv3d(x, w, dilation=0)", "F.conv3d(x, w, groups=0)", "F.conv3d(x, w[:, :, :0])",
    "F.conv3d(x, w[:, :, :0], dilation=2)",
]


@pytest.mark.parametrize("expr", CONVS)
def test_conv3d_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr)


TRANSPOSED = [
    "F.conv_transpose3d(x, wt)", "F.conv_transpose3d(x, wt, b)",
    "F.conv_transpose3d(x, wt, b, stride=2, padding=1, output_padding=1)",
    "F.conv_transpose3d(x, wt, stride=(2, 1, 3), padding=(0, 0, 1), output_padding=(1, 0, 2))",
    "F.conv_transpose3d(x, wt, dilation=2, output_padding=1)",
    "F.conv_transpose3d(x, wt[:, :1], groups=2)", "F.conv_transpose3d(x[1], wt, b)",
    "F.conv_transpose3d(x[:0], wt)",
    "F.conv_transpose3d(x.float().mul(4).round(), wt.float().mul(4).round())",
    "F.conv_transpose3d(x.detach().long(), wt.detach().long())",
    # errors
    "F.conv_transpose3d(x[0, 0], wt)", "F.conv_transpose3d(x[:, :1], wt)",
    "F.conv_transpose3d(x, wt, output_padding=1)", "F.conv_transpose3d(x, wt, padding=3)",
    "F.conv_transpose3d(x, wt, b[:2])", "F.conv_transpose3d(x, wt, padding='same')",
    "F.conv_transpose3d(x, wt.float())", "F.conv_transpose3d(x.float(), wt)",
    "F.conv_transpose3d(x[1:].float(), wt)",
    "F.conv_transpose3d(x.detach().bool(), wt.detach().bool())",
    "F.conv_transpose3d(x, wt, output_padding=-1)", "F.conv_transpose3d(x, wt, stride=(1, 2))",
    "F.conv_transpose3d(x.detach().long(), wt.detach().long(), b.detach())",
]


@pytest.mark.parametrize("expr", TRANSPOSED)
def test_conv_transpose3d_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr)


def test_conv3d_double_backward_records_torch_nodes(torch):
    """The first derivatives are ConvolutionBackwardBackward0 nodes, differentiable again."""
    for lib in (ag, torch):
        x = lib.arange(24.0, dtype=lib.float64).reshape(1, 1, 2, 3, 4).sin().requires_grad_()
        w = lib.arange(8.0, dtype=lib.float64).reshape(1, 1, 2, 2, 2).cos().requires_grad_()
        for fn in (lib.nn.functional.conv3d, lib.nn.functional.conv_transpose3d):
            gx, gw = lib.autograd.grad(fn(x, w).pow(2).sum(), (x, w), create_graph=True)
            assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
            assert gw.grad_fn.name() == "ConvolutionBackwardBackward0"


CONV_MODULES = [
    "lib.nn.Conv3d(2, 3, 2)",
    "lib.nn.Conv3d(2, 4, (1, 2, 3), stride=2, padding=1, bias=False, groups=2)",
    "lib.nn.Conv3d(2, 3, 3, padding='same', padding_mode='zeros', dilation=(1, 2, 1))",
    "lib.nn.ConvTranspose3d(2, 3, 2)",
    "lib.nn.ConvTranspose3d(2, 4, (1, 2, 3), stride=2, padding=1, output_padding=1, groups=2)",
]


@pytest.mark.parametrize("module", CONV_MODULES)
def test_conv3d_modules_match_torch(module, torch):
    """Shapes, repr and (with torch's weights copied in) outputs and grad_fn names."""
    outs = []
    for lib in (ag, torch):
        lib.manual_seed(0)
        m = eval(module, {"lib": lib})
        outs.append((m, repr(m)))
    (mine, mine_repr), (theirs, theirs_repr) = outs
    assert mine_repr == theirs_repr
    assert [tuple(p.shape) for p in mine.parameters()] == \
        [tuple(p.shape) for p in theirs.parameters()]
    with ag.no_grad():
        for p, q in zip(mine.parameters(), theirs.parameters()):
            p.copy_(ag.tensor(q.detach().numpy()))
    x = np.sin(np.arange(2 * 2 * 3 * 4 * 3) * 0.37).reshape(2, 2, 3, 4, 3).astype(np.float32)
    for batch in (x, x[0]):
        got, want = mine(ag.tensor(batch)), theirs(torch.tensor(batch))
        assert got.grad_fn.name() == want.grad_fn.name()
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_conv_transpose3d_module_output_size(torch):
    for lib in (ag, torch):
        up = lib.nn.ConvTranspose3d(2, 1, 3, stride=2, padding=1)
        x = lib.ones(1, 2, 2, 3, 2)
        assert tuple(up(x, output_size=[4, 6, 4]).shape) == (1, 1, 4, 6, 4)
        with pytest.raises(ValueError, match="requested an output size"):
            up(x, output_size=(9, 9, 9))


# ----------------------------------------------------------------------------- pools

POOLS = [
    "F.max_pool3d(x, 2)", "F.max_pool3d(x, (1, 2, 3), stride=1)",
    "F.max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True)",
    "F.max_pool3d(x, 2, dilation=(1, 2, 1))", "F.max_pool3d(x[0], 2, [1], 1)",
    "F.max_pool3d(x, 2, return_indices=True)", "F.max_pool3d(x[:0], 2)",
    "F.max_pool3d(x.detach().long(), 2)", "F.max_pool3d(x, 2, stride=())",
    "F.avg_pool3d(x, 2)", "F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True)",
    "F.avg_pool3d(x, 3, 2, 1, True, False)", "F.avg_pool3d(x[1], (1, 2, 3), divisor_override=2)",
    "F.avg_pool3d(x.detach().long(), 2)", "F.avg_pool3d(x[:0], 2)",
    "F.adaptive_avg_pool3d(x, 2)", "F.adaptive_avg_pool3d(x, (1, None, 2))",
    "F.adaptive_avg_pool3d(x[0], (3, 5, 1))", "F.adaptive_avg_pool3d(x[:0], 2)",
    "F.adaptive_avg_pool3d(x.float(), (3, 4, 3))",
    # errors
    "F.max_pool3d(v, 2)", "F.max_pool3d(x, 2, padding=2)", "F.max_pool3d(x, 0)",
    "F.max_pool3d(x, 2, stride=0)", "F.max_pool3d(x, 2, dilation=0)", "F.max_pool3d(x, 4)",
    "F.max_pool3d(x.detach().bool(), 2)", "F.max_pool3d(x, (2, 2))",
    "F.max_pool3d(x, 2, padding=-1)", "F.max_pool3d(x[:, :0], 2)",
    "F.max_pool3d(x, 3, padding=2, dilation=2)", "F.avg_pool3d(v, 2)",
    "F.avg_pool3d(x, 2, padding=2)", "F.avg_pool3d(x, 5)", "F.avg_pool3d(x.detach().bool(), 2)",
    "F.avg_pool3d(x, 2, divisor_override=0)", "F.avg_pool3d(x, 2, divisor_override=1.5)",
    "F.avg_pool3d(x, (2, 2))", "F.adaptive_avg_pool3d(v, 2)", "F.adaptive_avg_pool3d(x, -1)",
    "F.adaptive_avg_pool3d(x, (2, 2))", "F.adaptive_avg_pool3d(x.detach().long(), 2)",
    "F.adaptive_avg_pool3d(x[:, :, :0], 2)",
]


@pytest.mark.parametrize("expr", POOLS)
def test_pool3d_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr)


MODULES = [
    "lib.nn.MaxPool3d(2)(x)", "lib.nn.MaxPool3d(2, 1, 1, return_indices=True)(x)",
    "lib.nn.AvgPool3d((1, 2, 2), count_include_pad=False)(x)", "lib.nn.AvgPool3d(2)(x[0])",
    "lib.nn.AdaptiveAvgPool3d((2, None, 1))(x)",
    "lib.nn.BatchNorm3d(2)(x)", "lib.nn.BatchNorm3d(2, affine=False).eval()(x)",
    "lib.nn.BatchNorm3d(2)(x[0])", "lib.nn.InstanceNorm3d(2)(x)",
    "lib.nn.InstanceNorm3d(2, affine=True)(x[0])", "lib.nn.InstanceNorm3d(2)(v)",
    "lib.nn.InstanceNorm3d(3, affine=True)(x)",
]


@pytest.mark.parametrize("expr", MODULES)
def test_pool3d_and_norm3d_modules_match_torch(expr, torch):
    assert_same_with_grads(torch, expr)


@pytest.mark.parametrize("module", ["MaxPool3d(2, padding=1)", "AvgPool3d(3, stride=2)",
                                    "AdaptiveAvgPool3d((1, 2, 3))", "BatchNorm3d(4)",
                                    "InstanceNorm3d(4, affine=True)"])
def test_3d_module_reprs_match_torch(module, torch):
    assert repr(eval(f"lib.nn.{module}", {"lib": ag})) == \
        repr(eval(f"lib.nn.{module}", {"lib": torch}))

"""3D convolutions and pools, the channel and alpha dropouts, rms_norm and
local_response_norm against torch: values, dtypes, gradients, grad_fn names and errors,
batched and unbatched, argument variants (the volumes are tiny: each test well under 0.5 s).
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_with_grads, leaf

SETUP = {"x": leaf(2, 2, 3, 4, 3), "w": leaf(3, 2, 2, 2, 2), "b": leaf(3),
         "wt": leaf(2, 3, 2, 1, 2), "v": leaf(2, 4, 3)}


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
    assert_same_with_grads(torch, expr, SETUP)


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
    assert_same_with_grads(torch, expr, SETUP)


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
    # an output of 1 x 1 x 1 is a mean (MeanBackward1), before torch's other checks
    "F.adaptive_avg_pool3d(x, 1)", "F.adaptive_avg_pool3d(x[0], (1, 1, 1))",
    "F.adaptive_avg_pool3d(x[:, :, :0], 1)", "F.adaptive_avg_pool3d(x[0, 0], 1)",
    "F.adaptive_avg_pool3d(x.detach().long(), 1)", "F.interpolate(x, scale_factor=0.4, "
    "mode='area')",
    "F.adaptive_avg_pool3d(x, (1, None, 1))",
    "F.adaptive_avg_pool3d(x[0, 0], (2, 1, 1))", "F.adaptive_avg_pool3d(x, None)",
    "F.adaptive_avg_pool3d(x[None], (2, 1, 1))",
    # an empty output: the forward runs, the backward refuses
    "lib.autograd.grad(F.interpolate(x, scale_factor=0.1, mode='area').sum(), x)",
    "lib.autograd.grad(F.adaptive_avg_pool3d(x[0], (0, 1, 1)).sum(), x)",
    "lib.autograd.grad(F.adaptive_avg_pool3d(x[:0], (2, 1, 1)).sum(), x)",
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
    # a zero kernel with dilation: torch's pad check divides as C does, then the kernel fails
    "F.max_pool3d(x, (0, 2, 2), stride=1, dilation=2)",
    "F.max_pool2d(x[0], (0, 2), stride=1, dilation=2)",
]


@pytest.mark.parametrize("expr", POOLS)
def test_pool3d_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


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
    assert_same_with_grads(torch, expr, SETUP)


@pytest.mark.parametrize("module", ["MaxPool3d(2, padding=1)", "AvgPool3d(3, stride=2)",
                                    "AdaptiveAvgPool3d((1, 2, 3))", "BatchNorm3d(4)",
                                    "InstanceNorm3d(4, affine=True)"])
def test_3d_module_reprs_match_torch(module, torch):
    assert repr(eval(f"lib.nn.{module}", {"lib": ag})) == \
        repr(eval(f"lib.nn.{module}", {"lib": torch}))


# ----------------------------------------------------------------------------- dropout

DROPOUTS = [
    f"F.{fn}({arg}{extra})"
    for fn, arg in (("dropout1d", "v"), ("dropout1d", "v[0]"), ("dropout2d", "x[0]"),
                    ("dropout2d", "x[:, :, 0]"), ("dropout3d", "x"), ("dropout3d", "x[0]"),
                    ("alpha_dropout", "x"), ("feature_alpha_dropout", "x"),
                    ("feature_alpha_dropout", "v"))
    for extra in (", 0.0", ", 1.0", ", 0.5, training=False", ", p=1.0, training=True",
                  ", 0.0, True", "[:0], 0.5, True", ", 1.5", ", -0.1")
] + [
    "F.dropout1d(v.detach().long(), 1.0)", "F.dropout2d(x[0].detach().long(), 0.5)",
    "F.dropout3d(x.detach().int(), 1.0)", "F.alpha_dropout(x.detach().long(), 0.5, True)",
    "F.dropout1d(x, 0.5)", "F.dropout1d(x[0, 0, 0, 0], 0.5)",
    "F.feature_alpha_dropout(b, 0.5, True)",
    "F.feature_alpha_dropout(b, 1.0, True)", "F.alpha_dropout(b, 0.5)",
    "F.dropout2d(x, 1.0)", "F.dropout2d(v[0], 1.0)", "F.dropout3d(v, 1.0)",
    "F.dropout1d(v.clone(), 1.0, inplace=True)", "F.dropout3d(x.clone(), 1.0, True, True)",
    "F.alpha_dropout(x.clone(), 1.0, True, True)", "F.dropout2d(x[0].clone(), 0.0, True, True)",
    "lib.nn.Dropout1d(1.0)(v)", "lib.nn.Dropout2d(0.5).eval()(x[0])", "lib.nn.Dropout3d()(x[:0])",
    "lib.nn.AlphaDropout(1.0)(x)", "lib.nn.FeatureAlphaDropout(0.3).eval()(x)",
]


@pytest.mark.parametrize("expr", DROPOUTS)
def test_deterministic_dropouts_match_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


@pytest.mark.parametrize("module", ["Dropout1d()", "Dropout2d(0.2)",
                                    "Dropout3d(p=0.1, inplace=True)", "AlphaDropout(0.3)",
                                    "FeatureAlphaDropout()"])
def test_dropout_modules_repr_and_eval_identity(module, torch):
    mine, theirs = (eval(f"lib.nn.{module}", {"lib": lib}) for lib in (ag, torch))
    assert repr(mine) == repr(theirs)
    assert not isinstance(mine, ag.nn.Dropout)
    x = ag.ones(*{"1d": (2, 3, 4), "2d": (2, 3, 4, 5)}.get(module[7:9], (2, 3, 4, 5, 2)))
    assert mine.eval()(x) is x


def test_dropout_modules_refuse_a_bad_p(torch):
    for lib in (ag, torch):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, "
                                             "but got 1.5"):
            lib.nn.Dropout2d(1.5)


@pytest.mark.parametrize("expr, message", [
    ("F.dropout2d(v[0], 0.5)", "dropout2d: Received a 2-D input to dropout2d"),
    ("F.dropout2d(v, 0.5)", "dropout2d: Received a 3D input to dropout2d and assuming"),
    ("F.dropout3d(v, 0.5)", "dropout3d: Received a 3-D input to dropout3d"),
])
def test_dropout_warns_as_torch_does(expr, message, torch):
    for lib in (ag, torch):
        with pytest.warns(UserWarning, match=message) as caught:
            evaluate_unfiltered(lib, expr)
        texts = [str(w.message) for w in caught]
        if lib is ag:
            mine = texts
    assert mine == texts


def evaluate_unfiltered(lib, expr: str):
    import agdebug.nn.functional as agdebug_functional
    functional = agdebug_functional if lib is ag else lib.nn.functional
    return eval(expr, {"lib": lib, "F": functional, "v": lib.ones(2, 4, 3)})


@pytest.mark.parametrize("fn, shape, channel_dims", [
    ("dropout1d", (40, 50, 3), 2), ("dropout1d", (50, 3), 1), ("dropout2d", (40, 50, 2, 3), 2),
    ("dropout3d", (40, 50, 2, 1, 3), 2), ("dropout3d", (50, 2, 1, 3), 1),
])
def test_channel_dropout_zeroes_whole_channels(fn, shape, channel_dims):
    """Each channel is all zeros or all 1 / (1 - p); about p of them are zeroed; the gradient
    is the same mask."""
    ag.manual_seed(0)
    x = ag.ones(*shape, requires_grad=True)
    y = getattr(ag.nn.functional, fn)(x, 0.25)
    assert y.grad_fn.name() == ("MulBackward0" if channel_dims == 2 else "SqueezeBackward1")
    values = y.detach().numpy().reshape(int(np.prod(shape[:channel_dims])), -1)
    per_channel = values[:, :1]
    assert np.all(values == per_channel)
    assert set(np.unique(per_channel)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((per_channel == 0).mean() - 0.25) < 0.05
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_channel_dropout_in_place_and_repeatable():
    x = ag.ones(30, 40, 2)
    ag.manual_seed(3)
    first = ag.nn.functional.dropout1d(x.clone(), 0.5)
    ag.manual_seed(3)
    again = x.clone()
    assert ag.nn.functional.dropout1d(again, 0.5, inplace=True) is again
    np.testing.assert_array_equal(first.numpy(), again.numpy())


@pytest.mark.parametrize("fn, feature", [("alpha_dropout", False),
                                         ("feature_alpha_dropout", True)])
def test_alpha_dropout_keeps_mean_and_variance(fn, feature):
    """Dropped units take alpha' * a + b, kept ones x * a + b; standard normal inputs keep
    mean 0 and variance 1 (the point of alpha dropout); graph MulBackward0 then AddBackward0."""
    ag.manual_seed(1)
    x = ag.randn(200, 100, 4, dtype=ag.float64, requires_grad=True)
    y = getattr(ag.nn.functional, fn)(x, 0.2, training=True)
    assert y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * 0.2 + 1) * 0.8)
    dropped_value = -alpha * a + alpha * a * 0.2
    out, inp = y.detach().numpy(), x.detach().numpy()
    kept = np.isclose(out, inp * a + alpha * a * 0.2)
    dropped = np.isclose(out, dropped_value)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - 0.2) < 0.02
    if feature:
        assert np.all(dropped == dropped[:, :, :1])
    assert abs(out.mean()) < 0.02 and abs(out.var() - 1) < 0.03


def test_unbatched_in_place_dropout_returns_its_input_like_torch(torch):
    """torch reshapes an unbatched input in place (unsqueeze_, then squeeze_) and returns it."""
    seen = []
    for lib in (ag, torch):
        x = lib.ones(3, 4, requires_grad=True) * 1
        y = lib.nn.functional.dropout1d(x, 0.0, True, True)
        seen.append((y is x, y.grad_fn.name(), tuple(x.shape)))
    assert seen[0] == seen[1] == (True, "SqueezeBackward4", (3, 4))


@pytest.mark.parametrize("fn,shape", [("max_pool1d", (1, 1, 4)), ("max_pool2d", (1, 1, 4, 4)),
                                      ("max_pool3d", (1, 1, 4, 4, 4))])
def test_max_pool_indices_are_the_saved_ones(torch, fn, shape):
    """Recorded, the indices returned are those the node saved (one pooling per call), so
    writing into them makes backward refuse, as torch's do; unrecorded, the same values."""
    def outcome(lib):
        functional = ag.nn.functional if lib is ag else lib.nn.functional
        x = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        y, indices = getattr(functional, fn)(x, 2, return_indices=True)
        with lib.no_grad():
            _, unrecorded = getattr(functional, fn)(x, 2, return_indices=True)
        same = bool((unrecorded == indices).all())
        indices.add_(0)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return same, indices.requires_grad, str(e).split(" is at version")[0]
        return same, indices.requires_grad, "no error"
    assert outcome(ag) == outcome(torch)


@pytest.mark.parametrize("fn,shape", [("max_pool2d", (1, 1, 4, 4)),
                                      ("max_pool3d", (1, 1, 4, 4, 4))])
def test_max_pool_indices_under_saved_tensor_hooks(torch, fn, shape):
    """Under saved-tensor hooks the node keeps only what the pack hook made: the indices
    come from the forward, and the unpack hook runs in the backward alone, as in torch."""
    def outcome(lib):
        functional = ag.nn.functional if lib is ag else lib.nn.functional
        x = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        unpacked = []

        def unpack(packed):
            unpacked.append(len(unpacked))
            return packed
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y, indices = getattr(functional, fn)(x, 2, return_indices=True)
        in_forward = len(unpacked)
        y.sum().backward()
        return in_forward, bool(unpacked), indices.flatten().tolist(), x.grad.flatten().tolist()
    assert outcome(ag) == outcome(torch)

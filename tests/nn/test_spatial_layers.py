"""Spatial functions and their modules against torch: padding modules and circular pad,
transposed convolutions, interpolation: values, gradients, grad_fn names and errors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_with_grads, evaluate, graph_names, leaf

SETUP = {"x": leaf(2, 3, 4, 5), "s": leaf(2, 3, 6), "v": leaf(1, 2, 2, 3, 4),
         "i": "lib.arange(24).reshape(1, 2, 3, 4)", "e": "lib.ones(0, 2, 3, requires_grad=True)"}


# ----------------------------------------------------------------------------- padding

PADS = [
    "F.pad(x, (1, 2, 2, 0), mode='circular')", "F.pad(x, (-1, 2, 0, -2), mode='circular')",
    "F.pad(x[0], (4, 4), mode='circular')", "F.pad(s, (6, 6), mode='circular')",
    "F.pad(s[0], (2, 3), mode='circular')", "F.pad(v, (1, 1, 2, 0, 1, 2), mode='circular')",
    "F.pad(v[0], (0, 1, 1, 0, 2, 2), mode='circular')", "F.pad(i, (1, 2), mode='circular')",
    "F.pad(i, (1, 2, 1, 1), mode='circular')", "F.pad(e, (1, 2), mode='circular')",
    "F.pad(x, (-5, 1), mode='circular')", "F.pad(x, (-2, -3), mode='circular')",
    # errors, in torch's order
    "F.pad(x, (6, 0), mode='circular')", "F.pad(x, (0, 6), mode='circular')",
    "F.pad(x, (-3, -3), mode='circular')", "F.pad(x, (1, 1), mode='circular')",
    "F.pad(x[0, 0, 0], (1, 1), mode='circular')", "F.pad(x, (1, 1, 1), mode='circular')",
    "F.pad(x, (1,) * 10, mode='circular')", "F.pad(x, (1, 1), mode='circular', value=1.0)",
    "F.pad(x, (1, 1, 1, 1), mode='circular', value=0.0)", "F.pad(x, (1,), mode='foo')",
    "F.pad(x, (1, 1), mode='reflection')",
]


@pytest.mark.parametrize("expr", PADS)
def test_pad_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


@pytest.mark.parametrize("expr", ["F.pad(x, (1, 2, 2, 0), mode='circular')",
                                  "F.pad(x, (-1, 0, 0, 2), mode='circular')",
                                  "F.pad(s, (0, 3), mode='circular')"])
def test_circular_pad_graph_is_torchs(expr, torch):
    # torch's _pad_circular copies slices into an empty tensor: a chain of CopySlices
    graphs = [graph_names(evaluate(lib, expr, SETUP)[1]) for lib in (ag, torch)]
    assert graphs[0] == graphs[1]


def test_circular_pad_second_derivative_matches_torch(torch):
    grads = []
    for lib in (ag, torch):
        x = evaluate(lib, "x", SETUP)[1]
        y = lib.nn.functional.pad(x, (2, 1, 1, 3), mode="circular")
        (g,) = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sin().sum(), x)
        grads.append(gg.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


MODULES = [
    "lib.nn.ZeroPad1d(2)(s)", "lib.nn.ZeroPad1d((1, 0))(s[0])", "lib.nn.ZeroPad2d(1)(x)",
    "lib.nn.ZeroPad2d((1, 2, 0, 3))(x)", "lib.nn.ZeroPad2d((1, 2))(x)", "lib.nn.ZeroPad3d(1)(v)",
    "lib.nn.ZeroPad2d(-1)(x)", "lib.nn.ConstantPad1d(2, 3.5)(s)",
    "lib.nn.ConstantPad2d((1, 0, 2, 1), -1.0)(x)", "lib.nn.ConstantPad3d((1, 0, 0, 1, 2, 2), 2)(v)",
    "lib.nn.ConstantPad1d(1, 2)(i)", "lib.nn.ReflectionPad1d(2)(s)",
    "lib.nn.ReflectionPad1d((3, 1))(s[0])", "lib.nn.ReflectionPad2d(2)(x)",
    "lib.nn.ReflectionPad2d((1, 0, 3, 2))(x[0])", "lib.nn.ReflectionPad3d(1)(v)",
    "lib.nn.ReflectionPad2d(4)(x)", "lib.nn.ReflectionPad3d((1, 1, 1, 1, 2, 2))(v)",
    "lib.nn.ReflectionPad2d(5)(x)", "lib.nn.ReplicationPad1d(3)(s)",
    "lib.nn.ReplicationPad2d((2, 0, 1, 4))(x)", "lib.nn.ReplicationPad3d((1, 2, 0, 1, 1, 0))(v)",
    "lib.nn.ReplicationPad2d(1)(s[0, 0])", "lib.nn.CircularPad1d(2)(s)",
    "lib.nn.CircularPad1d((1, 3))(s[0])", "lib.nn.CircularPad2d(1)(x)",
    "lib.nn.CircularPad2d((1, 0, 2, 3))(x[0])", "lib.nn.CircularPad3d(1)(v)",
    "lib.nn.CircularPad3d((0, 1, 1, 0, 0, 1))(v[0])",
    "lib.nn.CircularPad1d(1)(x)", "lib.nn.CircularPad2d(1)(s[0])", "lib.nn.CircularPad3d(1)(x)",
    "lib.nn.CircularPad2d((1, 1))(x)",
]


@pytest.mark.parametrize("expr", MODULES)
def test_padding_modules_match_torch(expr, torch):
    assert_same_with_grads(torch, expr, SETUP)


PAD_REPRS = ["ZeroPad1d(2)", "ZeroPad2d((1, 2, 0, 3))", "ZeroPad3d(1)",
             "ConstantPad1d(2, 3.5)", "ConstantPad2d([1, 0, 2, 1], -1)", "ConstantPad3d(1, 0.0)",
             "ReflectionPad1d(2)", "ReflectionPad2d((1, 2))", "ReflectionPad3d(1)",
             "ReplicationPad1d((3, 1))", "ReplicationPad2d(1)", "ReplicationPad3d(2)",
             "CircularPad1d(2)", "CircularPad2d(1)", "CircularPad3d((1, 0, 0, 1, 2, 2))"]


@pytest.mark.parametrize("expr", PAD_REPRS)
def test_padding_module_reprs_match_torch(expr, torch):
    ours, theirs = eval(f"ag.nn.{expr}"), eval(f"torch.nn.{expr}")
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding


def test_padding_modules_are_not_each_others_subclasses():
    assert not isinstance(ag.nn.ReflectionPad2d(1), ag.nn.ReflectionPad1d)
    assert not isinstance(ag.nn.ZeroPad2d(1), ag.nn.ZeroPad1d)
    assert isinstance(ag.nn.ZeroPad2d(1), ag.nn.ConstantPad2d)   # as in torch


# ----------------------------------------------------------------------------- transposed conv

CONV_SETUP = {**SETUP, "x": leaf(2, 4, 3, 4), "w": leaf(4, 3, 3, 2), "b": leaf(6),
              "s": leaf(2, 4, 5), "k": leaf(4, 3, 3), "c": leaf(3)}

CONV_TRANSPOSE = [
    "F.conv_transpose2d(x, w)", "F.conv_transpose2d(x, w, b[:3])",
    "F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)",
    "F.conv_transpose2d(x, w, None, (2, 3), (1, 0), (1, 2), 1, (1, 2))",
    "F.conv_transpose2d(x, w, dilation=2, output_padding=1)",
    "F.conv_transpose2d(x, w, b[:3], 1, 0, 0, 1, 3)", "F.conv_transpose2d(x[0], w, b[:3], 2)",
    "F.conv_transpose2d(x, w[:, :1], groups=4)", "F.conv_transpose2d(x, w, padding=(1,))",
    "F.conv_transpose2d(x[:0], w)", "F.conv_transpose2d(x, w.detach())",
    "F.conv_transpose2d(x.detach(), w.detach(), b[:3].detach())",
    "F.conv_transpose2d((x * 4).round().float(), (w * 4).round().float(), stride=2)",
    "F.conv_transpose2d(x, w, b[:3].float())", "F.conv_transpose2d(i[:, :1].repeat(1, 4, 1, 1), "
    "lib.ones(4, 2, 2, 2, dtype=lib.int64), stride=2)",
    "F.conv_transpose1d(s, k)", "F.conv_transpose1d(s, k, c, stride=3, padding=1, "
    "output_padding=2)", "F.conv_transpose1d(s, k[:, :1], None, 2, 1, 1, 2, 2)",
    "F.conv_transpose1d(s, k, dilation=2, output_padding=1)", "F.conv_transpose1d(s[0], k, c)",
    "F.conv_transpose1d(s, k, c, (2,), [1], (1,))",
    "F.conv_transpose1d(s.long(), k.long())",
    # errors, in torch's order
    "F.conv_transpose2d(x[0, 0], w)", "F.conv_transpose2d(x[None], w)",
    "F.conv_transpose2d(x[:, :3], w)", "F.conv_transpose2d(x, w, groups=3)",
    "F.conv_transpose2d(x, w, groups=8)", "F.conv_transpose2d(x, w, groups=0, padding=-1)",
    "F.conv_transpose2d(x, w, padding=-1, output_padding=-1)",
    "F.conv_transpose2d(x, w, output_padding=-1, stride=0)",
    "F.conv_transpose2d(x, w, stride=0, dilation=-1)", "F.conv_transpose2d(x, w, dilation=-1)",
    "F.conv_transpose2d(x, w, dilation=0, output_padding=3)",
    "F.conv_transpose2d(x, w, stride=2, output_padding=2)",
    "F.conv_transpose2d(x, w, stride=(1, 2), output_padding=(1, 1))",
    "F.conv_transpose2d(x, w, padding=5)", "F.conv_transpose2d(x, w, b)",
    "F.conv_transpose2d(x, w, b[:3, None])", "F.conv_transpose2d(x, w[:, :, :0])",
    "F.conv_transpose2d(x, w.float())", "F.conv_transpose2d(x.float(), w)",
    "F.conv_transpose2d(x.float(), w.float(), b[:3])", "F.conv_transpose2d(x.bool(), w.bool())",
    "F.conv_transpose2d(x.long(), w.long(), b[:3])", "F.conv_transpose2d(x, w, padding='same')",
    "F.conv_transpose2d(x, w, stride=(1, 2, 3))", "F.conv_transpose2d(x, w, padding=(1, 2, 3))",
    "F.conv_transpose2d(x, w, output_padding=(1, 2, 3), dilation=(1, 2, 3))",
    "F.conv_transpose2d(x, k)", "F.conv_transpose1d(x, k)",
    "F.conv_transpose1d(s, k, padding=(1, 1))",
    "F.conv_transpose1d(s, k, stride=2, output_padding=2)", "F.conv_transpose1d(s[:, :3], k)",
    "F.conv_transpose1d(s, k, c[:2])", "F.conv_transpose1d(s, k, padding='same')",
]


@pytest.mark.parametrize("expr", CONV_TRANSPOSE)
def test_conv_transpose_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, CONV_SETUP)


def _conv_module(lib, text: str):
    """A module built by ``text`` with weights (and bias) set to the same values in both."""
    lib.manual_seed(0)
    module = eval(text, {"lib": lib}).double()
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.arange(p.numel(), dtype=lib.float64).reshape(p.shape).mul(0.3).cos())
    return module


CONV_MODULES = [
    ("lib.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)", "x",
     None),
    ("lib.nn.ConvTranspose2d(4, 2, (2, 3), stride=(2, 1), dilation=(1, 2), bias=False)", "x",
     None),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=2)", "x", [8, 10]),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=2)", "x", (2, 2, 7, 9)),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=3, padding=1)", "x[0]", [2, 7, 11]),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=2)", "x", [7]),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=2)", "x", [10, 9]),
    ("lib.nn.ConvTranspose2d(4, 2, 3, stride=2)", "x[0]", [1, 2, 7, 9]),
    ("lib.nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2)", "s", None),
    ("lib.nn.ConvTranspose1d(4, 3, 2, stride=3, padding=1, output_padding=1)", "s[0]", None),
    ("lib.nn.ConvTranspose1d(4, 3, 2, stride=3)", "s", [14]),
    ("lib.nn.ConvTranspose1d(4, 3, 2, stride=3)", "s", [2, 3, 16]),
    ("lib.nn.ConvTranspose1d(4, 3, 2, stride=3)", "s", [17]),
]


@pytest.mark.parametrize("text, input, output_size", CONV_MODULES)
def test_conv_transpose_modules_match_torch(text, input, output_size, torch):
    results = []
    for lib in (ag, torch):
        module = _conv_module(lib, text)
        x = evaluate(lib, input, CONV_SETUP)[1].detach().requires_grad_()
        try:
            y = module(x, output_size=output_size)
        except ValueError as e:
            results.append(("error", str(e)))
            continue
        (y * y).sum().backward()
        grads = [t.grad.numpy() for t in (x, *module.parameters())]
        results.append((y.grad_fn.name(), tuple(y.shape), y.detach().numpy(), grads))
    ours, theirs = results
    if theirs[0] == "error":
        assert ours == theirs
        return
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10)
    for got, want in zip(ours[3], theirs[3], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)


CONV_REPRS = ["ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)",
              "ConvTranspose2d(4, 2, (2, 3), dilation=(1, 2), bias=False)",
              "ConvTranspose1d(4, 6, 3)", "ConvTranspose1d(2, 2, 5, 2, 1, 1, 1, True, 2)"]


@pytest.mark.parametrize("expr", CONV_REPRS)
def test_conv_transpose_reprs_and_shapes_match_torch(expr, torch):
    ours, theirs = eval(f"ag.nn.{expr}"), eval(f"torch.nn.{expr}")
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)


@pytest.mark.parametrize("text", ["ConvTranspose2d(4, 6, 3, padding_mode='reflect')",
                                  "ConvTranspose2d(4, 6, 3, groups=0)",
                                  "ConvTranspose2d(3, 6, 3, groups=2)",
                                  "ConvTranspose1d(4, 5, 3, groups=2)"])
def test_conv_transpose_module_errors_match_torch(text, torch):
    errors = []
    for lib in (ag, torch):
        with pytest.raises(ValueError) as info:
            eval(f"lib.nn.{text}", {"lib": lib})
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_conv_transpose_init_bounds_follow_torchs_fan_in():
    # torch's fan-in is the weight's dim 1 (out / groups) times the kernel: bound 1/sqrt(fan_in)
    layer = ag.nn.ConvTranspose2d(64, 2, 3, groups=2)   # fan_in = 1 * 9
    bound = 1 / 3
    assert float(layer.weight.abs().max()) <= bound
    assert float(layer.weight.abs().max()) > 0.8 * bound
    assert float(layer.bias.abs().max()) <= bound


# ----------------------------------------------------------------------------- interpolate

INTERPOLATE = [
    "F.interpolate(s, scale_factor=2)", "F.interpolate(s, size=7)",
    "F.interpolate(s, size=[4], mode='nearest-exact')", "F.interpolate(s, 9, mode='linear')",
    "F.interpolate(s, scale_factor=1.7, mode='linear', align_corners=True)",
    "F.interpolate(x, scale_factor=(2, 3))", "F.interpolate(x, size=(3, 7), mode='bilinear')",
    "F.interpolate(x, scale_factor=2.3, mode='bilinear', align_corners=True)",
    "F.interpolate(x, scale_factor=2.3, mode='bilinear', recompute_scale_factor=True)",
    "F.interpolate(x, scale_factor=0.6, mode='bicubic')",
    "F.interpolate(x, size=(9, 6), mode='bicubic', align_corners=True)",
    "F.interpolate(x, scale_factor=1.5, mode='nearest-exact')",
    "F.interpolate(x, scale_factor=1 / 3)", "F.interpolate(x, size=1, mode='bilinear', "
    "align_corners=True)", "F.interpolate(x, size=(2, 3), mode='area')",
    "F.interpolate(s, scale_factor=0.5, mode='area')", "F.interpolate(v, scale_factor=2, "
    "mode='trilinear')", "F.interpolate(v, size=(2, 5, 3))", "F.interpolate(x[:0], size=3)",
    "F.interpolate(x.detach().float(), scale_factor=2.5)", "F.interpolate(x.detach(), 3)",
    # errors and refusals, in torch's order
    "F.interpolate(x, scale_factor=2, align_corners=True)",
    "F.interpolate(x, size=3, scale_factor=2)", "F.interpolate(x)",
    "F.interpolate(x, size=(3,))", "F.interpolate(x, size=(2, 2.5))",
    "F.interpolate(x, scale_factor=(2,))", "F.interpolate(x, size=3, recompute_scale_factor=True)",
    "F.interpolate(x, size=0)", "F.interpolate(x, scale_factor=0.1, mode='bilinear')",
    "F.interpolate(s, size=0)", "F.interpolate(v, size=(0, 1, 1))",
    "F.interpolate(x[:, :, :0], size=3)", "F.interpolate(x, size=3, mode='linear')",
    "F.interpolate(s, size=3, mode='bilinear')", "F.interpolate(v, size=3, mode='bicubic')",
    "F.interpolate(x[0, 0], size=3)", "F.interpolate(x, size=3, mode='foo')",
    "F.interpolate(i.double() * 0 + i, scale_factor=2)", "F.interpolate(i, scale_factor=2)",
    "F.interpolate(i, scale_factor=2, mode='bilinear')",
    "F.interpolate(i, scale_factor=2, mode='bicubic')", "F.interpolate(i[0], size=3)",
    "F.interpolate(i[0], size=3, mode='linear')",
]


@pytest.mark.parametrize("expr", INTERPOLATE)
def test_interpolate_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr, CONV_SETUP)


UPSAMPLE_MODULES = [
    "lib.nn.Upsample(scale_factor=2)(x)", "lib.nn.Upsample(size=(3, 5), mode='bilinear')(x)",
    "lib.nn.Upsample(scale_factor=(1.5, 2), mode='bicubic', align_corners=True)(x)",
    "lib.nn.Upsample(7, mode='linear')(s)", "lib.nn.Upsample(scale_factor=1.5, mode='nearest-"
    "exact', recompute_scale_factor=True)(x)", "lib.nn.UpsamplingNearest2d(scale_factor=2)(x)",
    "lib.nn.UpsamplingNearest2d((5, 3))(x)", "lib.nn.UpsamplingBilinear2d(scale_factor=2)(x)",
    "lib.nn.UpsamplingBilinear2d(size=6)(x)", "lib.nn.Upsample(scale_factor=2, mode='linear')(x)",
]


@pytest.mark.parametrize("expr", UPSAMPLE_MODULES)
def test_upsample_modules_match_torch(expr, torch):
    assert_same_with_grads(torch, expr, CONV_SETUP)


UPSAMPLE_REPRS = ["Upsample(scale_factor=2)", "Upsample(size=(3, 5), mode='bilinear')",
                  "Upsample(scale_factor=(1, 2.5), mode='bicubic', align_corners=True)",
                  "UpsamplingNearest2d(size=4)", "UpsamplingBilinear2d(scale_factor=3)",
                  "Upsample(7, mode='nearest-exact')"]


@pytest.mark.parametrize("expr", UPSAMPLE_REPRS)
def test_upsample_reprs_match_torch(expr, torch):
    ours, theirs = eval(f"ag.nn.{expr}"), eval(f"torch.nn.{expr}")
    assert repr(ours) == repr(theirs)
    assert (ours.scale_factor, ours.align_corners) == (theirs.scale_factor, theirs.align_corners)


def test_interpolate_second_derivative_matches_torch(torch):
    results = []
    for lib in (ag, torch):
        x = evaluate(lib, "x", CONV_SETUP)[1]
        y = lib.nn.functional.interpolate(x, size=(5, 7), mode="bicubic")
        (g,) = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sin().sum(), x)
        results.append((g.grad_fn.name(), gg.numpy()))
    assert results[0][0] == results[1][0] == "UpsampleBicubic2DBackwardBackward0"
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9)


def test_float32_bilinear_is_close_to_torch(torch):
    # float32 sums may round differently from torch's (weights applied as matrices)
    outs = [evaluate(lib, "F.interpolate(x.float(), scale_factor=2.5, mode='bilinear')",
                     CONV_SETUP)[1] for lib in (ag, torch)]
    assert outs[0].dtype == ag.float32
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5,
                               atol=1e-6)


# ----------------------------------------------------------------------------- conv padding modes

CONV_PADDING_MODES = [
    ("lib.nn.Conv2d(4, 3, 3, padding=(1, 2), padding_mode='{mode}')", "x"),
    ("lib.nn.Conv2d(4, 2, (2, 3), padding='same', dilation=(2, 1), padding_mode='{mode}')", "x"),
    ("lib.nn.Conv1d(4, 2, 4, padding='same', dilation=2, padding_mode='{mode}')", "s"),
    ("lib.nn.Conv1d(4, 6, 3, padding=2, groups=2, padding_mode='{mode}')", "s[0]"),
    ("lib.nn.Conv1d(4, 2, 3, padding='valid', padding_mode='{mode}')", "s"),
]


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("text, input", CONV_PADDING_MODES)
def test_conv_padding_modes_match_torch(text, input, mode, torch):
    """A mode other than zeros pads with F.pad first ('same' puts the odd unit last)."""
    results = []
    for lib in (ag, torch):
        module = _conv_module(lib, text.format(mode=mode))
        x = evaluate(lib, input, CONV_SETUP)[1].detach().requires_grad_()
        y = module(x)
        (y * y).sum().backward()
        grads = [t.grad.numpy() for t in (x, *module.parameters())]
        results.append((repr(module), y.grad_fn.name(), y.detach().numpy(), grads))
    ours, theirs = results
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10)
    for got, want in zip(ours[3], theirs[3], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("text", ["Conv2d(4, 6, 3, groups=0)", "Conv2d(4, 6, 3, groups=3)",
                                  "Conv1d(3, 6, 3, groups=2)", "Conv2d(4, 6, 3, padding='full')",
                                  "Conv2d(4, 6, 3, padding='same', stride=(1, 2))",
                                  "Conv1d(4, 6, 3, padding='bogus', padding_mode='bogus')"])
def test_conv_module_errors_match_torch(text, torch):
    errors = []
    for lib in (ag, torch):
        with pytest.raises(ValueError) as info:
            eval(f"lib.nn.{text}", {"lib": lib})
        errors.append(_sorted_sets(str(info.value)))
    assert errors[0] == errors[1]


def _sorted_sets(text: str) -> str:
    """torch prints Python sets of strings, whose order changes from run to run."""
    return re.sub(r"\{[^}]*\}", lambda m: str(sorted(eval(m.group()))), text)


def test_conv_module_refuses_an_unknown_padding_mode_in_torchs_words():
    with pytest.raises(ValueError, match=r"^padding_mode must be one of \{.*'circular'.*\}, but "
                                         r"got padding_mode='wrap'$"):
        ag.nn.Conv2d(2, 2, 3, padding_mode="wrap")

"""F.interpolate(antialias=True) (bilinear, bicubic and lanczos on 4-D input) and mode='area'
on 5-D input against torch: values, dtypes, gradients, grad_fn names (Upsample{Bilinear,
Bicubic,Lanczos}2DAaBackward0, their BackwardBackward0 derivatives,
AdaptiveAvgPool3DBackward0), second derivatives, sizes and scale factors up and down,
align_corners, and torch's errors. Lanczos's own cases and uint8 images are in
test_interpolate_lanczos.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..torch_parity import assert_same_as_torch, assert_same_with_grads, leaf

torch = pytest.importorskip("torch")


MODES = ["bilinear", "bicubic", "lanczos"]
SETUP = {"x": leaf(2, 3, 9, 11)}
RESIZES = [   # interpolate's keywords: down, up, both, one dim unchanged, to one pixel, far
    # down (a wide filter)
    "size=(4, 5)", "size=(2, 3)", "size=(13, 20)", "size=(5, 17)", "size=(1, 1)",
    "size=(9, 4)", "size=(30, 3)", "scale_factor=0.5", "scale_factor=0.37",
    "scale_factor=0.13", "scale_factor=2.3", "scale_factor=(1.7, 0.4)",
    "scale_factor=(1.05, 0.6)", "scale_factor=1.0",
    "scale_factor=0.5, recompute_scale_factor=True",
]


# lanczos refuses align_corners=True (test_interpolate_lanczos.py checks the error)
@pytest.mark.parametrize("mode,align", [(mode, align) for mode in MODES for align in (False, True)
                                        if not (mode == "lanczos" and align)])
@pytest.mark.parametrize("resize", RESIZES)
def test_values_and_gradients(mode, align, resize):
    assert_same_with_grads(
        torch, f"F.interpolate(x, {resize}, mode='{mode}', align_corners={align}, "
               "antialias=True)", SETUP)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("resize", ["size=(4, 5)", "size=(20, 30)", "scale_factor=0.3"])
def test_float32_matches_to_float_precision(mode, resize):
    """float32 weights are computed in float32 (Lanczos's window in float64), as torch's; the
    sums may round differently."""
    x = np.sin(np.arange(2 * 3 * 9 * 11, dtype=np.float32) * 0.37).reshape(2, 3, 9, 11)
    want = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, antialias=True,
                                           **eval(f"dict({resize})"))
    got = AF.interpolate(ag.tensor(x), mode=mode, antialias=True, **eval(f"dict({resize})"))
    assert got.dtype == ag.float32 and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=2e-6)


def test_antialias_differs_from_plain_when_downsampling():
    """A test that would pass with the plain (aliasing) kernel would not test antialias."""
    assert_same_as_torch(torch, "F.interpolate(x, size=(3, 3), mode='bilinear', antialias=True)"
                         " - F.interpolate(x, size=(3, 3), mode='bilinear')", SETUP)
    x = ag.arange(16.).reshape(1, 1, 4, 4)
    aa = AF.interpolate(x, size=2, mode="bicubic", antialias=True)
    assert not np.allclose(aa.numpy(), AF.interpolate(x, size=2, mode="bicubic").numpy())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("resize", ["size=(4, 5)", "scale_factor=2.3",
                                    "scale_factor=(1.05, 0.6)"])
def test_second_derivative(mode, resize):
    """The gradient's node is ...AaBackwardBackward0; its derivative for the upstream gradient
    is the forward again (torch's too: with scale_factor 1.05 the forward copies the unchanged
    dim while the backward applies torch's weights, so they are not each other's transpose)."""
    results = []
    for lib, F in ((ag, AF), (torch, torch.nn.functional)):
        x = lib.tensor(np.sin(np.arange(2 * 3 * 9 * 11) * 0.37).reshape(2, 3, 9, 11),
                       requires_grad=True)
        y = F.interpolate(x, mode=mode, antialias=True, **eval(f"dict({resize})"))
        g = lib.tensor(np.cos(np.arange(y.numel()) * 0.3).reshape(tuple(y.shape)),
                       requires_grad=True)
        gx, = lib.autograd.grad(y, x, g, create_graph=True)
        gg, = lib.autograd.grad((gx * x.detach()).sum(), g)
        results.append((y.grad_fn.name(), gx.grad_fn.name(), gx.detach().numpy(), gg.numpy()))
    (name, grad_name, gx, gg), (want_name, want_grad_name, want_gx, want_gg) = results
    stem = f"Upsample{mode.capitalize()}2DAa"
    assert (name, grad_name) == (want_name, want_grad_name) == (
        f"{stem}Backward0", f"{stem}BackwardBackward0")
    np.testing.assert_allclose(gx, want_gx, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gg, want_gg, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("expr", [
    "F.interpolate(x.detach(), size=(4, 5), mode='bicubic', antialias=True)",
    "F.interpolate(x[:0], size=(4, 5), mode='bilinear', antialias=True)",
    "F.interpolate(x[:, :, :1, :1], size=(3, 2), mode='bicubic', antialias=True)",
    "F.interpolate(x, size=(9, 11), mode='bicubic', antialias=True)",
    "F.interpolate(x, size=(4, 5), mode='bilinear', align_corners=None, antialias=True)",
])
def test_variants(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    *(f"F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode='{m}', antialias=True)"
      for m in ("nearest", "linear", "trilinear", "area", "nearest-exact")),
    *(f"F.interpolate(lib.ones(1, 1, 4), size=2, mode='{m}', antialias=True)"
      for m in ("bilinear", "bicubic", "linear")),
    "F.interpolate(lib.ones(1, 1, 4, 4, 4), size=2, mode='bilinear', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4, 4), size=2, mode='trilinear', antialias=True)",
    *(f"F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.{d}), size=2, mode='bilinear', "
      "antialias=True)" for d in ("int64", "int32", "bool", "float16")),
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.int64), size=2, mode='bicubic', "
    "antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(0, 2), mode='bilinear', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 0, 4), size=2, mode='bicubic', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), scale_factor=0.1, mode='bicubic', antialias=True)",
    "F.interpolate(lib.ones(1, 0, 4, 4), size=2, mode='bilinear', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(2.0, 2), mode='bilinear', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(2, 2, 2), mode='bilinear', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=2, scale_factor=2, mode='bilinear', "
    "antialias=True)",
    # the plain kernels refuse an empty channel dim too
    "F.interpolate(lib.ones(1, 0, 4), size=2, mode='linear')",
    "F.interpolate(lib.ones(2, 0, 4, 4, 4), size=2, mode='nearest')",
])
def test_errors(expr):
    assert_same_as_torch(torch, expr)


AREA = {"v": leaf(2, 3, 4, 5, 6)}


@pytest.mark.parametrize("resize", [
    "size=(2, 3, 2)", "size=3", "size=(4, 5, 6)", "size=(7, 2, 9)", "scale_factor=0.5",
    "scale_factor=(2, 0.5, 1.5)", "scale_factor=0.3",
])
def test_area_on_5d_input(resize):
    assert_same_with_grads(torch, f"F.interpolate(v, {resize}, mode='area')", AREA)


@pytest.mark.parametrize("expr", [
    "F.interpolate(v.detach().long(), scale_factor=0.5, mode='area')",
    "F.interpolate(v, size=2, mode='area', align_corners=False)",
    "F.interpolate(v, size=(2, 2), mode='area')",
    "F.interpolate(v[:0], size=2, mode='area')",
])
def test_area_on_5d_variants_and_errors(expr):
    assert_same_as_torch(torch, expr, AREA)


def test_area_on_5d_second_derivative():
    results = []
    for lib, F in ((ag, AF), (torch, torch.nn.functional)):
        v = lib.tensor(np.sin(np.arange(120) * 0.37).reshape(1, 2, 3, 4, 5), requires_grad=True)
        y = F.interpolate(v, size=(2, 3, 2), mode="area")
        g = lib.tensor(np.cos(np.arange(y.numel()) * 0.3).reshape(tuple(y.shape)),
                       requires_grad=True)
        gv, = lib.autograd.grad(y, v, g, create_graph=True)
        gg, = lib.autograd.grad((gv * v.detach()).sum(), g)
        results.append((gv.grad_fn.name(), gg.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9, atol=1e-12)


def test_area_on_5d_float32_to_float_precision():
    v = np.sin(np.arange(720, dtype=np.float32) * 0.37).reshape(2, 3, 4, 5, 6)
    want = torch.nn.functional.interpolate(torch.tensor(v), scale_factor=0.5, mode="area")
    got = AF.interpolate(ag.tensor(v), scale_factor=0.5, mode="area")
    assert got.dtype == ag.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)

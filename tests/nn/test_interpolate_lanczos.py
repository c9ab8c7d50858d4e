"""F.interpolate(mode='lanczos', antialias=True) on 4-D input, and uint8 images, against
torch: Lanczos's reach, variants and errors (its values, gradients, float32 and second
derivatives are tested with the other antialiased modes in test_interpolate_antialias.py),
and uint8 results bit for bit (torch's int16 fixed-point kernel for bilinear, bicubic and
lanczos, with and without antialias; nearest and nearest-exact pick pixels).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..torch_parity import assert_same_as_torch, leaf

torch = pytest.importorskip("torch")


SETUP = {"x": leaf(2, 3, 9, 11)}


def _interpolate(lib, x, **keywords):
    functional = AF if lib is ag else torch.nn.functional
    return functional.interpolate(lib.tensor(x), **keywords)


def test_lanczos_is_neither_bicubic_nor_bilinear():
    """Lanczos-3 reaches three pixels each side: upsampling, a pixel three away counts."""
    x = np.zeros((1, 1, 1, 9))
    x[..., 4] = 1.0
    keywords = dict(size=(1, 18), antialias=True)
    got = _interpolate(ag, x, mode="lanczos", **keywords).numpy()
    np.testing.assert_allclose(got, _interpolate(torch, x, mode="lanczos", **keywords).numpy(),
                               rtol=1e-12, atol=1e-15)
    cubic = _interpolate(ag, x, mode="bicubic", **keywords).numpy()
    assert np.count_nonzero(got) > np.count_nonzero(cubic)


@pytest.mark.parametrize("expr", [
    "F.interpolate(x.detach(), size=(4, 5), mode='lanczos', antialias=True)",
    "F.interpolate(x[:, :, :1, :1], size=(3, 2), mode='lanczos', antialias=True)",
    "F.interpolate(x, size=(9, 11), mode='lanczos', antialias=True)",
    "F.interpolate(x, size=(4, 5), mode='lanczos', align_corners=None, antialias=True)",
    "F.interpolate(x, size=5, mode='lanczos', antialias=True)",
])
def test_variants(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    "F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode='lanczos')",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode='lanczos', antialias=False)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode='lanczos', align_corners=True, "
    "antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode='lanczos', align_corners=True)",
    "F.interpolate(lib.ones(1, 1, 4), size=2, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4), size=2, mode='lanczos')",
    "F.interpolate(lib.ones(1, 1, 4, 4, 4), size=2, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4, 4), size=2, mode='lanczos')",
    *(f"F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.{d}), size=2, mode='lanczos', "
      "antialias=True)" for d in ("int64", "int8", "bool", "float16")),
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(0, 2), mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 0, 4), size=2, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 0, 4, 4), size=2, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(0, 1, 4, 4), size=2, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), scale_factor=0.1, mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(2.0, 2), mode='lanczos', antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4), size=(2, 2, 2), mode='lanczos', antialias=True)",
])
def test_errors(expr):
    assert_same_as_torch(torch, expr)


# ------------------------------------------------------------------------------ uint8 images

UINT8_RESIZES = [
    {"size": (4, 5)}, {"size": (2, 3)}, {"size": (13, 20)}, {"size": (9, 4)},
    {"size": (30, 3)}, {"size": (1, 7)}, {"scale_factor": 0.5}, {"scale_factor": 2.3},
    {"scale_factor": (1.7, 0.4)}, {"scale_factor": (1.05, 0.6)}, {"scale_factor": 1.1},
]


def _image(channels: int, seed: int = 3):
    """Random pixels with saturated corners, so overshoot past 0 and 255 is clamped."""
    x = np.random.default_rng(seed).integers(0, 256, (2, channels, 9, 11)).astype(np.uint8)
    x[..., :2, :2], x[..., -2:, -2:] = 0, 255
    return x


def _same_uint8(channels: int, **keywords):
    x = _image(channels)
    want = _interpolate(torch, x, **keywords).numpy()
    got = _interpolate(ag, x, **keywords)
    assert got.dtype == ag.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


# torch's kernel for 1 to 4 channels (AVX) and the generic one (more channels) agree
@pytest.mark.parametrize("channels", [3, 5])
@pytest.mark.parametrize("mode,align", [("bilinear", False), ("bilinear", True),
                                        ("bicubic", False), ("bicubic", True)])
@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_bilinear_bicubic_bit_exact(mode, align, antialias, channels):
    for resize in UINT8_RESIZES:
        _same_uint8(channels, mode=mode, align_corners=align, antialias=antialias, **resize)


@pytest.mark.parametrize("channels", [3, 5])
def test_uint8_lanczos_bit_exact(channels):
    for resize in UINT8_RESIZES:
        _same_uint8(channels, mode="lanczos", antialias=True, **resize)


def test_uint8_plain_bicubic_clamps_its_overshoot():
    """Keys' cubic overshoots at an edge from 0 to 255: torch saturates, never wraps."""
    x = np.zeros((1, 1, 1, 8), np.uint8)
    x[..., 4:] = 255
    got = _interpolate(ag, x, size=(1, 29), mode="bicubic").numpy()
    np.testing.assert_array_equal(got, _interpolate(torch, x, size=(1, 29),
                                                    mode="bicubic").numpy())
    assert got.min() == 0 and got.max() == 255


@pytest.mark.parametrize("mode,shape", [
    (mode, shape) for mode, shape in itertools.product(
        ("nearest", "nearest-exact"), ((2, 3, 7), (2, 3, 5, 7), (2, 3, 4, 5, 6)))])
@pytest.mark.parametrize("resize", [{"scale_factor": 2}, {"scale_factor": 0.6},
                                    {"scale_factor": 1.7}, {"size": 3}])
def test_uint8_nearest_picks_pixels(mode, shape, resize):
    x = np.random.default_rng(5).integers(0, 256, shape).astype(np.uint8)
    want = _interpolate(torch, x, mode=mode, **resize).numpy()
    got = _interpolate(ag, x, mode=mode, **resize)
    assert got.dtype == ag.uint8
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("expr", [
    # torch has uint8 kernels for these, and for no other integer dtype
    *(f"F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.uint8), size=3, mode='{m}')"
      for m in ("bilinear", "bicubic", "nearest", "nearest-exact")),
    *(f"F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.int8), size=3, mode='{m}')"
      for m in ("bilinear", "bicubic", "nearest")),
    "F.interpolate(lib.ones(1, 1, 4, dtype=lib.uint8), size=3, mode='linear')",
    "F.interpolate(lib.ones(1, 1, 4, 4, 4, dtype=lib.uint8), size=3, mode='trilinear')",
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.uint8), size=3, mode='area')",
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.int32), size=3, mode='bicubic', "
    "antialias=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.uint8), size=(2, 3), mode='bilinear', "
    "align_corners=True)",
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.uint8), size=(4, 4), mode='bicubic')",
    "F.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.uint8).requires_grad_(), size=3, "
    "mode='bilinear')",
])
def test_uint8_dtypes_and_errors(expr):
    assert_same_as_torch(torch, expr)


def test_lanczos_and_uint8_stay_on_the_device(fake_cuda):
    """On CuPy's test double: the forward, the derivative and the uint8 kernel keep to xp."""
    x = np.sin(np.arange(2 * 3 * 9 * 11) * 0.37).reshape(2, 3, 9, 11)
    cpu, gpu = ag.tensor(x, requires_grad=True), ag.tensor(x, device="cuda", requires_grad=True)
    for t in (cpu, gpu):
        AF.interpolate(t, size=(4, 13), mode="lanczos", antialias=True).pow(2).sum().backward()
    assert gpu.grad.device.type == "cuda"
    np.testing.assert_allclose(gpu.grad._data.get(), cpu.grad.numpy(), rtol=1e-12)
    image = _image(3)
    for mode in ("bilinear", "bicubic", "nearest"):
        want = AF.interpolate(ag.tensor(image), size=(5, 17), mode=mode)
        got = AF.interpolate(ag.tensor(image, device="cuda"), size=(5, 17), mode=mode)
        assert got.device.type == "cuda" and got.dtype == ag.uint8
        np.testing.assert_array_equal(got._data.get(), want.numpy())

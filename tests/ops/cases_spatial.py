"""Cases for agdebug/ops/nn/convolution_transpose.py and agdebug/ops/nn/upsample.py (see harness.py):
transposed convolutions and their derivatives, interpolation and its derivatives.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(23)
IMG = rng.standard_normal((1, 4, 2, 3))
WEIGHT = rng.standard_normal((4, 1, 2, 2))          # (C_in, C_out / groups, kh, kw), groups 2
BIAS = rng.standard_normal(3)
SIGNAL = rng.standard_normal((1, 2, 4))
WEIGHT_1D = rng.standard_normal((2, 3, 3))
# stride 2, padding 1, output_padding 1: the output is (1, 2, 3, 5)
GRAD_UP = rng.standard_normal((1, 2, 3, 5))
# the 1D op with dilation 2, output_padding 1 >= stride 1: the input gradient is cropped
GRAD_UP_1D = rng.standard_normal((1, 3, 9))


def F(t):
    return t.nn.functional


def _leaf(x):
    return x.detach().requires_grad_()


def _transpose_input_grad(t, w, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).conv_transpose2d(x, w, stride=2, padding=1, output_padding=1, groups=2)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _transpose_weight_grad(t, x, g, w):
    with t.enable_grad():
        w = _leaf(w)
        y = F(t).conv_transpose2d(x, w, stride=2, padding=1, output_padding=1, groups=2)
        return t.autograd.grad(y, w, g, create_graph=True)[0]


def _transpose1d_input_grad(t, w, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).conv_transpose1d(x, w, dilation=2, output_padding=1)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _transpose1d_weight_grad(t, x, g, w):
    with t.enable_grad():
        w = _leaf(w)
        y = F(t).conv_transpose1d(x, w, dilation=2, output_padding=1)
        return t.autograd.grad(y, w, g, create_graph=True)[0]


CASES = [
    # transposed convolutions
    Case("conv_transpose2d", lambda t, x, w, b: F(t).conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1, groups=2), [IMG, WEIGHT, BIAS[:2]]),
    Case("conv_transpose2d", lambda t, x, w: F(t).conv_transpose2d(
        x, w, stride=(1, 2), padding=(1, 0), dilation=(2, 1)), [IMG, WEIGHT],
        id="conv_transpose2d_dilated"),
    Case("conv_transpose2d", lambda t, x, w: F(t).conv_transpose2d(
        x[0], w, stride=1, dilation=2, output_padding=1), [IMG, WEIGHT],
        id="conv_transpose2d_unbatched_output_padding_past_stride"),
    Case("conv_transpose1d", lambda t, x, w, b: F(t).conv_transpose1d(
        x, w, b, stride=3, padding=1, output_padding=2), [SIGNAL, WEIGHT_1D, BIAS[:3]]),
    Case("conv_transpose1d", lambda t, x, w: F(t).conv_transpose1d(
        x, w[:, :1], groups=2, dilation=2, output_padding=1), [SIGNAL, WEIGHT_1D],
        id="conv_transpose1d_groups_dilated"),
    Case("conv_transpose_input_grad", _transpose_input_grad, [WEIGHT, GRAD_UP, IMG],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv_transpose_weight_grad", _transpose_weight_grad, [IMG, GRAD_UP, WEIGHT],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv_transpose_input_grad", _transpose1d_input_grad, [WEIGHT_1D, GRAD_UP_1D, SIGNAL],
         grad_fn="ConvolutionBackwardBackward0", id="conv_transpose1d_input_grad_cropped"),
    Case("conv_transpose_weight_grad", _transpose1d_weight_grad,
         [SIGNAL, GRAD_UP_1D, WEIGHT_1D], grad_fn="ConvolutionBackwardBackward0",
         id="conv_transpose1d_weight_grad"),
]


def _transpose_weight_grad_grad(t, x, g, w, u):
    """A derivative of the weight gradient: conv_transpose_to (torch's second derivatives are
    convolutions again: ConvolutionBackward0)."""
    with t.enable_grad():
        g = _leaf(g)
        gw = _transpose_weight_grad(t, x, g, w)
        return t.autograd.grad(gw, g, u, create_graph=True)[0]


CASES += [
    Case("conv_transpose_to", _transpose_weight_grad_grad, [IMG, GRAD_UP, WEIGHT, WEIGHT * 0.5],
         grad_fn="ConvolutionBackward0"),
]


# interpolation: each (mode, dims) op and its backward op (reached through a first derivative)
ROW = rng.standard_normal((1, 2, 3))
IMAGE = rng.standard_normal((1, 1, 3, 4))
VOLUME = rng.standard_normal((1, 1, 2, 3, 2))
INPUTS = {1: ROW, 2: IMAGE, 3: VOLUME}
UPSAMPLES = [   # (op, dims, interpolate's keywords)
    ("upsample_nearest1d", 1, {"scale_factor": 1.7}),
    ("upsample_nearest2d", 2, {"size": (5, 3)}),
    ("upsample_nearest3d", 3, {"scale_factor": 2}),
    ("upsample_nearest_exact1d", 1, {"size": 5, "mode": "nearest-exact"}),
    ("upsample_nearest_exact2d", 2, {"scale_factor": (1.5, 0.7), "mode": "nearest-exact"}),
    ("upsample_nearest_exact3d", 3, {"size": (3, 2, 4), "mode": "nearest-exact"}),
    ("upsample_linear1d", 1, {"scale_factor": 2.5, "mode": "linear"}),
    ("upsample_bilinear2d", 2, {"size": (4, 6), "mode": "bilinear", "align_corners": True}),
    ("upsample_trilinear3d", 3, {"scale_factor": 1.5, "mode": "trilinear"}),
    ("upsample_bicubic2d", 2, {"size": (5, 3), "mode": "bicubic"}),
]


def _interpolate(keywords):
    def fn(t, x):
        return F(t).interpolate(x, **keywords)
    return fn


def _interpolate_grad(keywords):
    def fn(t, g, x):
        with t.enable_grad():
            x = _leaf(x)
            return t.autograd.grad(F(t).interpolate(x, **keywords), x, g, create_graph=True)[0]
    return fn


def _out_shape(dims: int, keywords: dict) -> tuple:
    """The output shape, computed as torch does (floor(size * scale))."""
    shape = INPUTS[dims].shape
    size = keywords.get("size")
    if size is not None:
        spatial = tuple(size) if isinstance(size, tuple) else (size,) * dims
    else:
        s = keywords["scale_factor"]
        scales = s if isinstance(s, tuple) else (s,) * dims
        spatial = tuple(int(np.floor(n * f)) for n, f in zip(shape[2:], scales))
    return shape[:2] + spatial


for _op, _dims, _kw in UPSAMPLES:
    CASES.append(Case(_op, _interpolate(_kw), [INPUTS[_dims]]))
    CASES.append(Case(f"{_op}_backward", _interpolate_grad(_kw),
                      [rng.standard_normal(_out_shape(_dims, _kw)), INPUTS[_dims]],
                      id=f"{_op}_backward"))
CASES.append(Case("upsample_bilinear2d", _interpolate({"scale_factor": 0.6, "mode": "bilinear"}),
                  [IMAGE], id="upsample_bilinear2d_down_no_align"))
CASES.append(Case("upsample_bicubic2d", _interpolate({"scale_factor": 1.5, "mode": "bicubic",
                                                      "align_corners": True}),
                  [IMAGE], id="upsample_bicubic2d_align"))

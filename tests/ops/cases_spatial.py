"""Cases for agdebug/ops/conv_transpose.py and agdebug/ops/upsample.py (see harness.py):
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

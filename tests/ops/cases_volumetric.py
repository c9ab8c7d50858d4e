"""Cases for agdebug/ops/nn/convolution_volumetric.py and pooling_volumetric.py (see
harness.py): 3D convolutions, transposed convolutions and pools, each with the ops its derivatives record.
The volumes are tiny: central differences evaluate each case twice per input element.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(43)
VOL = rng.standard_normal((1, 2, 3, 3, 3))
KERNEL = rng.standard_normal((2, 2, 2, 2, 2))       # (O, C, kd, kh, kw)
GROUPED = rng.standard_normal((2, 1, 1, 2, 2))      # groups 2
BIAS = rng.standard_normal(2)
GRAD_CONV = rng.standard_normal((1, 2, 2, 2, 2))    # conv3d(VOL, KERNEL, stride 2, padding 1)
# conv_transpose3d(VOL, KERNEL, stride 2, padding 1, output_padding (1, 0, 1)): (1, 2, 5, 4, 5)
GRAD_UP = rng.standard_normal((1, 2, 5, 4, 5))
U_VOL = rng.standard_normal((1, 2, 3, 3, 3))


def F(t):
    return t.nn.functional


def _leaf(x):
    return x.detach().requires_grad_()


def _conv(t, x, w):
    return F(t).conv3d(x, w, stride=2, padding=1)


def _up(t, x, w):
    return F(t).conv_transpose3d(x, w, stride=2, padding=1, output_padding=(1, 0, 1))


def _input_grad(conv):
    def case(t, w, g, x):
        with t.enable_grad():
            x = _leaf(x)
            return t.autograd.grad(conv(t, x, w), x, g, create_graph=True)[0]
    return case


def _weight_grad(conv):
    def case(t, x, g, w):
        with t.enable_grad():
            w = _leaf(w)
            return t.autograd.grad(conv(t, x, w), w, g, create_graph=True)[0]
    return case


def _conv_input_grad_by_g(t, u, w, x, g):
    """The derivative of conv3d's input gradient with respect to the output gradient: a
    convolution (conv3d_to, cropped to the gradient's size)."""
    with t.enable_grad():
        x, g = _leaf(x), _leaf(g)
        gx = t.autograd.grad(_conv(t, x, w), x, g, create_graph=True)[0]
        return t.autograd.grad(gx, g, u, create_graph=True)[0]


CASES = [
    Case("conv3d", lambda t, x, w, b: F(t).conv3d(x, w, b), [VOL, KERNEL, BIAS]),
    Case("conv3d", lambda t, x, w: F(t).conv3d(x, w, stride=(2, 1, 1), padding=(1, 0, 1),
                                               dilation=(1, 2, 1)),
         [VOL, KERNEL], id="conv3d_stride_pad_dilation"),
    Case("conv3d", lambda t, x, w: F(t).conv3d(x[0], w, padding="same", groups=2),
         [VOL, GROUPED], id="conv3d_unbatched_groups_same"),
    Case("conv3d_input_grad", _input_grad(_conv), [KERNEL, GRAD_CONV, VOL],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv3d_weight_grad", _weight_grad(_conv), [VOL, GRAD_CONV, KERNEL],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv3d_to", _conv_input_grad_by_g, [U_VOL, KERNEL, VOL, GRAD_CONV],
         grad_fn="ConvolutionBackward0"),
    Case("conv_transpose3d", lambda t, x, w, b: _up(t, x, w) + b.reshape(-1, 1, 1, 1),
         [VOL, KERNEL, BIAS], id="conv_transpose3d_output_padding"),
    Case("conv_transpose3d", lambda t, x, w, b: F(t).conv_transpose3d(x, w, b, groups=2),
         [VOL, GROUPED[:, :, :1], BIAS], id="conv_transpose3d_groups_bias"),
    Case("conv_transpose3d", lambda t, x, w: F(t).conv_transpose3d(
        x[0], w, dilation=(2, 1, 1), output_padding=(1, 0, 0)), [VOL, KERNEL],
        id="conv_transpose3d_unbatched_output_padding_past_stride"),
    Case("conv_transpose3d_input_grad", _input_grad(_up), [KERNEL, GRAD_UP, VOL],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv3d_weight_grad", _weight_grad(_up), [VOL, GRAD_UP, KERNEL],
         grad_fn="ConvolutionBackwardBackward0", id="conv3d_weight_grad_of_transposed"),
]

# ----------------------------------------------------------------------------- pools

POOL_VOL = rng.permutation(np.arange(54.0)).reshape(1, 2, 3, 3, 3) / 8   # no ties in a window
GRAD_POOL = rng.standard_normal((1, 2, 2, 2, 2))    # max_pool3d(POOL_VOL, 2, padding=1)
UP_POOL = rng.standard_normal((1, 2, 3, 3, 3))
GRAD_AVG = rng.standard_normal((1, 2, 4, 2, 2))    # the avg pool of _avg_backward


def _max_scatter(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        return t.autograd.grad(F(t).max_pool3d(x, 2, padding=1), x, g, create_graph=True)[0]


def _max_scatter_by_g(t, u, x, g):
    """The derivative of the max pool's scatter with respect to its gradient: a gather."""
    with t.enable_grad():
        x, g = _leaf(x), _leaf(g)
        gx = t.autograd.grad(F(t).max_pool3d(x, 2, padding=1), x, g, create_graph=True)[0]
        return t.autograd.grad(gx, g, u, create_graph=True)[0]


def _avg_backward(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).avg_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True,
                            count_include_pad=False)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _adaptive_backward(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).adaptive_avg_pool3d(x, (2, 2, 2))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


CASES += [
    Case("max_pool3d", lambda t, x: F(t).max_pool3d(x, 2), [POOL_VOL]),
    Case("max_pool3d", lambda t, x: F(t).max_pool3d(x[0], (2, 3, 2), stride=(1, 2, 1),
                                                    padding=1, ceil_mode=True),
         [POOL_VOL], id="max_pool3d_unbatched_pad_ceil"),
    Case("max_pool3d", lambda t, x: F(t).max_pool3d(x, (1, 2, 2), dilation=(1, 1, 2)),
         [POOL_VOL], id="max_pool3d_dilation"),
    Case("max_pool3d_scatter", _max_scatter, [GRAD_POOL, POOL_VOL],
         grad_fn="MaxPool3DWithIndicesBackwardBackward0"),
    Case("max_pool3d_scatter", _max_scatter_by_g, [UP_POOL, POOL_VOL, GRAD_POOL],
         grad_fn="ViewBackward0", id="max_pool3d_scatter_derivative_gathers"),
    Case("avg_pool3d", lambda t, x: F(t).avg_pool3d(x, 2), [VOL]),
    Case("avg_pool3d", lambda t, x: F(t).avg_pool3d(x[0], 3, stride=2, padding=1,
                                                    ceil_mode=True, count_include_pad=False),
         [VOL], id="avg_pool3d_unbatched_pad_ceil_exclude"),
    Case("avg_pool3d", lambda t, x: F(t).avg_pool3d(x, (1, 2, 3), divisor_override=4), [VOL],
         id="avg_pool3d_divisor_override"),
    Case("avg_pool3d_backward", _avg_backward, [GRAD_AVG, VOL],
         grad_fn="AvgPool3DBackwardBackward0"),
    Case("adaptive_avg_pool3d", lambda t, x: F(t).adaptive_avg_pool3d(x, (2, 1, None)), [VOL]),
    Case("adaptive_avg_pool3d", lambda t, x: F(t).adaptive_avg_pool3d(x[0], 2), [VOL],
         id="adaptive_avg_pool3d_unbatched"),
    Case("adaptive_avg_pool3d_backward", _adaptive_backward, [GRAD_POOL, VOL],
         grad_fn="AdaptiveAvgPool3DBackwardBackward0"),
]

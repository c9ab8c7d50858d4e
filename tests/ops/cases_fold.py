"""Cases for agdebug/ops/nn/fold.py and agdebug/ops/nn/pooling_adaptive_max.py (see harness.py):
im2col / col2im, pixel_shuffle / pixel_unshuffle, channel_shuffle, the Tensor.unfold view and its
backward, adaptive max pooling and max unpooling, each with the op its derivative records.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(31)
IMG = rng.standard_normal((2, 2, 3, 4))
COLS = rng.standard_normal((1, 8, 6))          # C=2, kernel (2, 2), blocks 2 * 3 on (3, 4)
COLS_PADDED = rng.standard_normal((6, 2))      # C=1, kernel (2, 3), padding (1, 0), stride 2


def F(t):
    return t.nn.functional


def _leaf(x):
    return x.detach().requires_grad_()


def _unfold_grad(t, g, x):
    """The derivative of unfold (a col2im, Col2ImBackward0) reached from its input."""
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


CASES = [
    Case("im2col", lambda t, x: F(t).unfold(x, 2), [IMG]),
    Case("im2col", lambda t, x: F(t).unfold(x, (2, 3), dilation=(1, 2), padding=1,
                                             stride=(2, 1)), [IMG], id="im2col_geometry"),
    Case("im2col", lambda t, x: F(t).unfold(x[0], (3, 1), padding=(1, 0)), [IMG],
         id="im2col_unbatched"),
    Case("col2im", lambda t, c: F(t).fold(c, (3, 4), 2), [COLS]),
    Case("col2im", lambda t, c: F(t).fold(c, (3, 4), (2, 3), padding=(1, 0), stride=2),
         [COLS_PADDED], id="col2im_unbatched_geometry"),
    Case("col2im", _unfold_grad, [rng.standard_normal((2, 12, 4)), IMG],
         grad_fn="Col2ImBackward0", id="col2im_as_unfold_derivative"),
]

SHUFFLED = rng.standard_normal((2, 8, 2, 3))
UNSHUFFLED = rng.standard_normal((3, 4, 6))


def _shuffle_grad(t, g, x):
    """The derivative of pixel_shuffle: a pixel_unshuffle (PixelUnshuffleBackward0)."""
    with t.enable_grad():
        x = _leaf(x)
        return t.autograd.grad(F(t).pixel_shuffle(x, 2), x, g, create_graph=True)[0]


CASES += [
    Case("pixel_shuffle", lambda t, x: F(t).pixel_shuffle(x, 2), [SHUFFLED]),
    Case("pixel_shuffle", lambda t, x: t.pixel_shuffle(x[1:, :4], upscale_factor=1), [SHUFFLED],
         id="pixel_shuffle_factor_1"),
    Case("pixel_unshuffle", lambda t, x: F(t).pixel_unshuffle(x, 2), [UNSHUFFLED],
         id="pixel_unshuffle_unbatched"),
    Case("pixel_unshuffle", lambda t, x: t.pixel_unshuffle(x[None, None], 2), [UNSHUFFLED],
         id="pixel_unshuffle_5d"),
    Case("pixel_unshuffle", _shuffle_grad, [rng.standard_normal((2, 2, 4, 6)), SHUFFLED],
         grad_fn="PixelUnshuffleBackward0", id="pixel_unshuffle_as_shuffle_derivative"),
]

CHANNELS = rng.standard_normal((2, 6, 3))


def _channel_shuffle_grad(t, g, x):
    """The derivative of a shuffle in 2 groups: the shuffle in 6 / 2 (ChannelShuffleBackward0)."""
    with t.enable_grad():
        x = _leaf(x)
        return t.autograd.grad(F(t).channel_shuffle(x, 2), x, g, create_graph=True)[0]


CASES += [
    Case("channel_shuffle", lambda t, x: F(t).channel_shuffle(x, 3), [CHANNELS]),
    Case("channel_shuffle", lambda t, x: t.channel_shuffle(x[:, :, None], 2), [CHANNELS],
         id="channel_shuffle_4d"),
    Case("channel_shuffle", lambda t, x: t.nn.ChannelShuffle(6)(x), [CHANNELS],
         id="channel_shuffle_module"),
    Case("channel_shuffle", _channel_shuffle_grad, [CHANNELS, CHANNELS],
         id="channel_shuffle_as_its_derivative"),
]

ROWS = rng.standard_normal((3, 7))


def _unfold_view_grad(t, g, x):
    """The derivative of Tensor.unfold: unfold_backward (UnfoldBackwardBackward0)."""
    with t.enable_grad():
        x = _leaf(x)
        return t.autograd.grad(x.unfold(1, 3, 2), x, g, create_graph=True)[0]


CASES += [
    Case("unfold", lambda t, x: x.unfold(1, 3, 2), [ROWS]),
    Case("unfold", lambda t, x: x.unfold(0, 2, 1), [ROWS], id="unfold_overlapping_dim0"),
    Case("unfold", lambda t, x: x.unfold(-1, 2, 3), [ROWS], id="unfold_gaps"),
    Case("unfold", lambda t, x: x.sum().unfold(0, 1, 1), [ROWS], id="unfold_scalar"),
    Case("unfold_backward", _unfold_view_grad, [rng.standard_normal((3, 3, 3)), ROWS],
         grad_fn="UnfoldBackwardBackward0"),
]

# distinct values (a random draw has no ties), so the maxima are well defined
POOLED = rng.permutation(2 * 2 * 5 * 7).reshape(2, 2, 5, 7) * 0.1 + \
    rng.uniform(0, 0.01, (2, 2, 5, 7))


def _adaptive_grad(t, g, x):
    """The derivative of adaptive_max_pool2d: a scatter (AdaptiveMaxPool2DBackwardBackward0)."""
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).adaptive_max_pool2d(x, (2, 3))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _unpooled(t, x, size):
    with t.no_grad():
        _, indices = F(t).max_pool2d(t.tensor(POOLED[:1]), 2, return_indices=True)
    return F(t).max_unpool2d(x, indices.reshape(x.shape), 2, output_size=size)


CASES += [
    Case("adaptive_max_pool2d", lambda t, x: F(t).adaptive_max_pool2d(x, (2, 3)), [POOLED]),
    Case("adaptive_max_pool2d", lambda t, x: F(t).adaptive_max_pool2d(x[0], (7, 4)), [POOLED],
         id="adaptive_max_pool2d_unbatched_upsampling"),
    Case("adaptive_max_pool2d", lambda t, x: F(t).adaptive_max_pool1d(x[0, 0], 3), [POOLED],
         id="adaptive_max_pool1d"),
    Case("adaptive_max_pool2d_backward", _adaptive_grad,
         [rng.standard_normal((2, 2, 2, 3)), POOLED], grad_fn="AdaptiveMaxPool2DBackwardBackward0"),
    Case("max_unpool2d", lambda t, x: _unpooled(t, x, (5, 7)), [rng.standard_normal((1, 2, 2, 3))]),
    Case("max_unpool2d", lambda t, x: _unpooled(t, x[0], [1, 2, 5, 7]),
         [rng.standard_normal((1, 2, 2, 3))], id="max_unpool2d_unbatched"),
]

VOLUMES = rng.permutation(2 * 2 * 3 * 4 * 5).reshape(2, 2, 3, 4, 5) * 0.1 + \
    rng.uniform(0, 0.01, (2, 2, 3, 4, 5))


def _adaptive3d_grad(t, g, x):
    """The derivative of adaptive_max_pool3d: a scatter (AdaptiveMaxPool3DBackwardBackward0)."""
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).adaptive_max_pool3d(x, (2, 3, 2))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _unpooled3d(t, x, size):
    with t.no_grad():
        _, indices = F(t).max_pool3d(t.tensor(VOLUMES[:1]), 2, return_indices=True)
    return F(t).max_unpool3d(x, indices.reshape(x.shape), 2, output_size=size)


CASES += [
    Case("adaptive_max_pool3d", lambda t, x: F(t).adaptive_max_pool3d(x, (2, 3, 2)), [VOLUMES]),
    Case("adaptive_max_pool3d", lambda t, x: F(t).adaptive_max_pool3d(x[0], (4, 5, 7)),
         [VOLUMES], id="adaptive_max_pool3d_unbatched_upsampling"),
    Case("adaptive_max_pool3d", lambda t, x: t.nn.AdaptiveMaxPool3d((None, 1, 2))(x), [VOLUMES],
         id="adaptive_max_pool3d_module_none"),
    Case("adaptive_max_pool3d_backward", _adaptive3d_grad,
         [rng.standard_normal((2, 2, 2, 3, 2)), VOLUMES],
         grad_fn="AdaptiveMaxPool3DBackwardBackward0"),
    Case("max_unpool3d", lambda t, x: _unpooled3d(t, x, (3, 4, 5)),
         [rng.standard_normal((1, 2, 1, 2, 2))]),
    Case("max_unpool3d", lambda t, x: _unpooled3d(t, x[0], [1, 2, 3, 4, 5]),
         [rng.standard_normal((1, 2, 1, 2, 2))], id="max_unpool3d_unbatched"),
    Case("max_unpool3d", lambda t, x: t.nn.MaxUnpool3d(2)(x, _unpooled_indices(t), (3, 4, 5)),
         [rng.standard_normal((1, 2, 1, 2, 2))], id="max_unpool3d_module"),
]


def _unpooled_indices(t):
    with t.no_grad():
        return F(t).max_pool3d(t.tensor(VOLUMES[:1]), 2, return_indices=True)[1]

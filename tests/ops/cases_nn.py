"""Cases for agdebug/ops/nn/pooling.py and the activations of torch.nn.functional (see harness.py).

``t.nn.functional`` is torch's module with lib=torch and agdebug.nn.functional with
lib=agdebug. The ops that only appear inside derivatives (ConvolutionBackwardBackward0,
MaxPool2DWithIndicesBackwardBackward0...) are reached with ``autograd.grad(...,
create_graph=True)``, which both libraries spell the same way.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(7)
A = rng.standard_normal((2, 3))
AWAY = A + np.sign(A) * 0.3                    # away from the kinks at 0
LOGITS = rng.standard_normal((4, 3))
TARGET = np.array([0, 2, 1, 2])
TARGET_IGNORED = np.array([0, -100, 1, 2])
CLASS_W = np.array([0.5, 2.0, 1.5])
LOGITS_3D = rng.standard_normal((2, 3, 2))
TARGET_3D = np.array([[0, 2], [1, 1]])
PROB = rng.uniform(0.1, 0.9, (2, 3))
PROB_T = rng.uniform(0.1, 0.9, (2, 3))
IMG = rng.standard_normal((1, 2, 4, 4))
KERNEL = rng.standard_normal((2, 2, 2, 2))
BIAS = rng.standard_normal(2)
GROUPED = rng.standard_normal((4, 1, 3, 3))
GRAD_3X3 = rng.standard_normal((1, 2, 3, 3))
POOL_IMG = rng.permutation(np.arange(32.0)).reshape(1, 2, 4, 4) / 8   # no ties in a window
GRAD_POOL = rng.standard_normal((1, 2, 2, 2))
UP = rng.standard_normal((1, 2, 4, 4))


def F(t):
    return t.nn.functional


def _softmax_backward(lib, log: bool):
    """aten's ``_(log_)softmax_backward_data(grad, output, dim)``, agdebug's or torch's."""
    name = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    if lib.__name__ == "torch":
        aten = getattr(lib.ops.aten, name)
        return lambda grad, out, dim: aten(grad, out, dim, out.dtype)
    from agdebug.ops import OPS
    return lambda grad, out, dim: OPS[name](grad, out, dim=dim)


def _leaf(x):
    """A fresh leaf that requires grad: the inner derivative needs one even where the harness
    evaluates the case without grad (central differences); the output does not depend on it,
    so such inputs come last (the harness draws its random projections input by input)."""
    return x.detach().requires_grad_(True)


def _conv_input_grad(t, w, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).conv2d(x, w, stride=2, padding=1)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _conv_weight_grad(t, x, g, w):
    with t.enable_grad():
        w = _leaf(w)
        y = F(t).conv2d(x, w, stride=2, padding=1)
        return t.autograd.grad(y, w, g, create_graph=True)[0]


def _pool_scatter(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        return t.autograd.grad(F(t).max_pool2d(x, 2), x, g, create_graph=True)[0]


def _pool_gather(t, u, x, g):
    with t.enable_grad():
        x, g = _leaf(x), _leaf(g)
        gx = t.autograd.grad(F(t).max_pool2d(x, 2), x, g, create_graph=True)[0]
        return t.autograd.grad(gx, g, u, create_graph=True)[0]


def _avg_backward(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


EMB_W = rng.standard_normal((5, 3))
EMB_I = np.array([[0, 4, 2], [2, 2, 1]])

CASES = [
    Case("embedding", lambda t, w, i: F(t).embedding(i, w), [EMB_W, EMB_I],
         grad_fn="EmbeddingBackward0"),
    Case("embedding", lambda t, w, i: F(t).embedding(i, w) ** 2, [EMB_W, EMB_I],
         id="embedding_squared"),
    # The padding row's zero gradient and the frequency scaling are torch's definitions, not
    # derivatives: central differences cannot check them, torch can.
    Case("embedding", lambda t, w, i: F(t).embedding(i, w, padding_idx=2) ** 2, [EMB_W, EMB_I],
         id="embedding_padding", numeric=False),
    Case("embedding", lambda t, w, i: F(t).embedding(i[0, 1], w, padding_idx=-1), [EMB_W, EMB_I],
         id="embedding_0d_negative_padding", numeric=False),
    Case("embedding", lambda t, w, i: F(t).embedding(i, w * 1, scale_grad_by_freq=True) ** 2,
         [EMB_W, EMB_I], id="embedding_scale_grad_by_freq", numeric=False),
    # activations registered in elementwise.py, spelled torch.nn.functional.X
    Case("leaky_relu", lambda t, x: F(t).leaky_relu(x, 0.2), [AWAY]),
    Case("gelu", lambda t, x: F(t).gelu(x), [A]),
    Case("gelu", lambda t, x: F(t).gelu(x, approximate="tanh"), [A], id="gelu_tanh"),
    Case("elu", lambda t, x: F(t).elu(x, alpha=0.7), [AWAY]),
    Case("silu", lambda t, x: F(t).silu(x), [A]),
    Case("softplus", lambda t, x: F(t).softplus(x, beta=2.0, threshold=1.5), [AWAY]),
    # softmax
    Case("softmax", lambda t, x: F(t).softmax(x, dim=1), [A]),
    Case("softmax", lambda t, x: t.softmax(x * 30, 0), [A], id="softmax_large"),
    Case("log_softmax", lambda t, x: F(t).log_softmax(x, dim=-1), [A]),
    Case("log_softmax", lambda t, x: x.log_softmax(0), [A * 40], id="log_softmax_large"),
    Case("_softmax_backward_data",
         lambda t, g, x: _softmax_backward(t, False)(g, x.softmax(1), 1), [AWAY, A]),
    Case("_log_softmax_backward_data",
         lambda t, g, x: _softmax_backward(t, True)(g, x.log_softmax(0), 0), [AWAY, A]),
    # losses
    Case("nll_loss", lambda t, x, y: F(t).nll_loss(x, y), [LOGITS, TARGET]),
    Case("nll_loss", lambda t, x, y: F(t).nll_loss(x, y, weight=t.tensor(CLASS_W)),
         [LOGITS, TARGET_IGNORED], id="nll_loss_weight_ignore"),
    Case("nll_loss", lambda t, x, y: F(t).nll_loss(x, y, reduction="none"),
         [LOGITS_3D, TARGET_3D], id="nll_loss_3d_none"),
    Case("nll_loss2d", lambda t, x, y: F(t).cross_entropy(x, y, ignore_index=0),
         [LOGITS_3D.reshape(2, 3, 1, 2), TARGET_3D.reshape(2, 1, 2)]),
    Case("nll_loss", lambda t, x, y: F(t).cross_entropy(x, y, reduction="sum"),
         [LOGITS, TARGET], id="cross_entropy_sum"),
    Case("nll_loss", lambda t, x, y: F(t).cross_entropy(x, y, label_smoothing=0.2,
                                                        ignore_index=1),
         [LOGITS, TARGET], id="cross_entropy_smoothing"),
    Case("log_softmax", lambda t, x, p: F(t).cross_entropy(x, p.softmax(1), reduction="sum"),
         [LOGITS, LOGITS[::-1].copy()], id="cross_entropy_soft_targets"),
    # the mean over samples is C++'s tensor / count in torch: div.Scalar, DivBackward1
    Case("div_scalar", lambda t, x, p: F(t).cross_entropy(x, p.softmax(1)),
         [LOGITS, LOGITS[::-1].copy()], grad_fn="DivBackward1"),
    Case("mse_loss", lambda t, x, y: F(t).mse_loss(x, y), [A, PROB]),
    Case("mse_loss", lambda t, x, y: F(t).mse_loss(x, y, reduction="none"), [A, PROB],
         id="mse_loss_none"),
    Case("binary_cross_entropy", lambda t, p, y: F(t).binary_cross_entropy(p, y),
         [PROB, PROB_T]),
    Case("binary_cross_entropy",
         lambda t, p, y: F(t).binary_cross_entropy(p, y, weight=t.tensor(CLASS_W),
                                                   reduction="sum"),
         [PROB, PROB_T], id="binary_cross_entropy_weight_sum"),
    Case("binary_cross_entropy_with_logits",
         lambda t, x, y: F(t).binary_cross_entropy_with_logits(x, y), [A, PROB_T]),
    Case("binary_cross_entropy_with_logits",
         lambda t, x, y: F(t).binary_cross_entropy_with_logits(
             x, y, weight=t.tensor(CLASS_W), pos_weight=t.tensor(CLASS_W[::-1].copy()),
             reduction="none"),
         [A * 3, PROB_T], id="bce_with_logits_pos_weight"),
    # convolution
    Case("conv2d", lambda t, x, w, b: F(t).conv2d(x, w, b), [IMG, KERNEL, BIAS]),
    Case("conv2d", lambda t, x, w: F(t).conv2d(x, w, stride=2, padding=1, dilation=(1, 2)),
         [IMG, KERNEL], id="conv2d_stride_pad_dilation"),
    Case("conv2d", lambda t, x, w: F(t).conv2d(x, w, padding="same", groups=2),
         [IMG, GROUPED], id="conv2d_groups_same"),
    Case("conv2d_input_grad", _conv_input_grad, [KERNEL, GRAD_3X3, IMG],
         grad_fn="ConvolutionBackwardBackward0"),
    Case("conv2d_weight_grad", _conv_weight_grad, [IMG, GRAD_3X3, KERNEL],
         grad_fn="ConvolutionBackwardBackward0"),
    # pooling
    Case("max_pool2d", lambda t, x: F(t).max_pool2d(x, 2), [POOL_IMG]),
    Case("max_pool2d", lambda t, x: F(t).max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
         [POOL_IMG], id="max_pool2d_pad_ceil"),
    Case("max_pool2d", lambda t, x: F(t).max_pool2d(x[0], (2, 1), dilation=2),
         [POOL_IMG], id="max_pool2d_unbatched_dilation"),
    Case("max_pool2d_scatter", _pool_scatter, [GRAD_POOL, POOL_IMG],
         grad_fn="MaxPool2DWithIndicesBackwardBackward0"),
    Case("max_pool2d_gather", _pool_gather, [UP, POOL_IMG, GRAD_POOL], grad_fn="ViewBackward0"),
    Case("avg_pool2d", lambda t, x: F(t).avg_pool2d(x, 2), [IMG]),
    Case("avg_pool2d", lambda t, x: F(t).avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                    count_include_pad=False),
         [IMG], id="avg_pool2d_pad_ceil_exclude"),
    Case("avg_pool2d_backward", _avg_backward, [GRAD_3X3, IMG],
         grad_fn="AvgPool2DBackwardBackward0"),
]

# ----------------------------------------------------------------------------- conv1d, 1D and
# adaptive pools

SIGNAL = rng.standard_normal((2, 2, 7))
KERNEL_1D = rng.standard_normal((4, 2, 3))
BIAS_4 = rng.standard_normal(4)
GRAD_1D = rng.standard_normal((2, 4, 4))
POOL_SIGNAL = rng.permutation(np.arange(28.0)).reshape(2, 2, 7) / 8   # no ties in a window
IMG_5X6 = rng.standard_normal((2, 2, 5, 6))
GRAD_ADAPTIVE = rng.standard_normal((2, 2, 2, 4))


def _conv1d_input_grad(t, w, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).conv1d(x, w, stride=2, padding=1)
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _adaptive_backward(t, g, x):
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).adaptive_avg_pool2d(x, (2, 4))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


CASES += [
    Case("conv1d", lambda t, x, w, b: F(t).conv1d(x, w, b), [SIGNAL, KERNEL_1D, BIAS_4]),
    Case("conv1d", lambda t, x, w: F(t).conv1d(x, w, stride=2, padding=1, dilation=2) ** 2,
         [SIGNAL, KERNEL_1D], id="conv1d_strided_dilated"),
    Case("conv1d", lambda t, x, w: F(t).conv1d(x, w[:, :1], padding="same", groups=2),
         [SIGNAL, KERNEL_1D], id="conv1d_same_groups"),
    Case("conv1d", lambda t, x, w: F(t).conv1d(x[0], w), [SIGNAL, KERNEL_1D],
         id="conv1d_unbatched"),
    # conv1d's derivative runs through the conv2d_* ops on (N, C, 1, L) views
    Case("conv2d_input_grad", _conv1d_input_grad, [KERNEL_1D, GRAD_1D, SIGNAL],
         grad_fn="ConvolutionBackwardBackward0", id="conv1d_input_grad"),
    Case("max_pool2d", lambda t, x: F(t).max_pool1d(x, 2), [POOL_SIGNAL], id="max_pool1d"),
    Case("max_pool2d", lambda t, x: F(t).max_pool1d(x[0], 3, 2, 1, ceil_mode=True),
         [POOL_SIGNAL], id="max_pool1d_ceil_unbatched"),
    Case("avg_pool2d", lambda t, x: F(t).avg_pool1d(x, 3, 2, 1, count_include_pad=False),
         [SIGNAL], id="avg_pool1d"),
    Case("adaptive_avg_pool2d", lambda t, x: F(t).adaptive_avg_pool2d(x, (2, 4)), [IMG_5X6]),
    Case("adaptive_avg_pool2d", lambda t, x: F(t).adaptive_avg_pool2d(x[0], (3, None)) ** 2,
         [IMG_5X6], id="adaptive_avg_pool2d_none_unbatched"),
    Case("adaptive_avg_pool2d", lambda t, x: F(t).adaptive_avg_pool1d(x, 3), [SIGNAL],
         id="adaptive_avg_pool1d"),
    Case("adaptive_avg_pool2d_backward", _adaptive_backward, [GRAD_ADAPTIVE, IMG_5X6],
         grad_fn="AdaptiveAvgPool2DBackwardBackward0"),
]

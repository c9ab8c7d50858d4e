"""Neural-network ops: softmax, losses, convolution and pooling.

Each forward works on raw arrays with ``xp``; each derivative is written in
Tensor ops (or in another op of this module whose own derivative is here too),
so ``create_graph=True`` differentiates them again. Convolution and pooling
gather their windows with one strided slice per kernel offset (kh * kw slices,
never a loop over pixels) and multiply with ``matmul``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..backend import xp_of
from ..tensor import Tensor
from .pointwise.promotion import promote
from .pointwise.activations import softplus
from .core import tie_order
from .indexing.gather_scatter import index_add_op, masked_fill_op
from .reduction.signatures import NO_DIM, missing_arguments
from .core.registry import defop
from .core.gradients import attr_array, input_shape, needs, zeros_grad
from .core.checks import c_div, dims_of, kernel_missing

# ----------------------------------------------------------------------------- softmax


@defop("softmax", node="SoftmaxBackward0", saves=("result",))
def softmax(xp, x, dim=-1):
    axis = dims_of(dim, x.ndim)[0]
    if x.size == 0:   # NumPy's max has no identity to reduce an empty axis with; torch
        return xp.empty_like(x)   # runs no kernel then, so int and bool inputs pass too
    _check_softmax_input(x, axis, "softmax")
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return (e / xp.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)


@softmax.vjp
def softmax_vjp(ctx, grad):
    return (softmax_backward_data(grad, ctx.result, dim=ctx.dim),)


@defop("log_softmax", node="LogSoftmaxBackward0", saves=("result",))
def log_softmax(xp, x, dim=-1):
    axis = dims_of(dim, x.ndim)[0]
    if x.size == 0:
        return xp.empty_like(x)
    _check_softmax_input(x, axis, "log_softmax")
    # The arrays' own max and sum: NumPy's functions wrap these in a Python layer of theirs.
    shifted = x - x.max(axis=axis, keepdims=True)
    lse = xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return (shifted - lse).astype(x.dtype, copy=False)


@log_softmax.vjp
def log_softmax_vjp(ctx, grad):
    return (log_softmax_backward_data(grad, ctx.result, dim=ctx.dim),)


def _check_softmax_input(x, axis: int, name: str) -> None:
    """torch has no integer or bool softmax kernel (its error names the kernel it looked for)."""
    if x.dtype.kind in "biu":
        kernel = "lastdim_kernel_impl" if x.ndim == 0 or axis == x.ndim - 1 else "kernel_impl"
        raise kernel_missing(f"{name}_{kernel}", x.dtype)


# torch's fused derivatives of softmax and log_softmax (aten's ``_softmax_backward_data``):
# one op instead of four, so one node in a create_graph=True graph, as torch records.

@defop("_softmax_backward_data", node="SoftmaxBackwardDataBackward0",
       saves=("grad_output@1", "output"))
def softmax_backward_data(xp, grad_output, output, dim=-1):
    """``output * (grad_output - sum(grad_output * output))`` along ``dim``."""
    axis = dims_of(dim, output.ndim)[0]
    return output * (grad_output - xp.sum(grad_output * output, axis=axis, keepdims=True))


@softmax_backward_data.vjp
def softmax_backward_data_vjp(ctx, grad):
    out, dim = ctx.output, ctx.dim
    grad_grad_output = softmax_backward_data(grad, out, dim=dim) if needs(ctx, 0) else None
    grad_out = None
    if needs(ctx, 1):   # torch's softmax_double_backward
        go = ctx.grad_output
        grad_out = (go * grad - (out * go).sum(dim, keepdim=True) * grad
                    - go * (out * grad).sum(dim, keepdim=True))
    return grad_grad_output, grad_out


@defop("_log_softmax_backward_data", node="LogSoftmaxBackwardDataBackward0",
       saves=("grad_output@1", "output"))
def log_softmax_backward_data(xp, grad_output, output, dim=-1):
    """``grad_output - exp(output) * sum(grad_output)`` along ``dim``."""
    axis = dims_of(dim, output.ndim)[0]
    return grad_output - xp.exp(output) * grad_output.sum(axis=axis, keepdims=True)


@log_softmax_backward_data.vjp
def log_softmax_backward_data_vjp(ctx, grad):
    probs, dim = ctx.output.exp(), ctx.dim
    grad_grad_output = grad - (grad * probs).sum(dim, keepdim=True) if needs(ctx, 0) else None
    grad_out = None
    if needs(ctx, 1):
        grad_out = -ctx.grad_output.sum(dim, keepdim=True) * probs * grad
    return grad_grad_output, grad_out


# ----------------------------------------------------------------------------- losses

def _reduce(xp, losses, reduction: str):
    if reduction == "mean":
        return xp.mean(losses)
    if reduction == "sum":
        return xp.sum(losses)
    return losses


def _scale_grad(ctx, grad, shape):
    """The incoming gradient of a reduced loss, spread over the element ``shape``."""
    if ctx.reduction == "mean":
        return grad / max(int(np.prod(shape)), 1)
    return grad


@defop("div_scalar", node="DivBackward1")
def div_scalar(xp, x, other=1):
    """aten's ``div.Scalar``: what C++ code records when it divides by a number (the mean of
    cross_entropy with class probabilities); Python's ``x / 2`` is DivBackward0 instead."""
    return (x / other).astype(x.dtype, copy=False)


@div_scalar.vjp
def div_scalar_vjp(ctx, grad):
    return (div_scalar(grad, other=ctx.other),)


@defop("nll_loss", node="NllLossBackward0", saves=("coeff",), extras=("coeff",))
def nll_loss(xp, x, target=None, weight=None, reduction="mean", ignore_index=-100):
    # target and weight are keyword attributes, not inputs: torch's node has one edge (self).
    # A call per training step: plain array calls, none of NumPy's Python-level helpers.
    target, weight = attr_array(target), attr_array(weight)
    axis = 1 if x.ndim >= 2 else 0
    classes = x.shape[axis]
    if (xp is np and x.ndim == 2 and weight is None and reduction == "mean" and target.size
            and not 0 <= ignore_index < classes and 0 <= target.min()
            and target.max() < classes):
        return _batch_mean_nll(x, target)
    valid = target != ignore_index
    if xp is np:   # reading values on the host is free: skip the masks when all is well
        every = bool(valid.all())
        if target.size and not (every and 0 <= target.min() and target.max() < classes):
            _check_targets(target, valid, classes)
    else:          # each read waits for the GPU: one, for the bounds alone
        every = False
        _check_targets(target, valid, classes)
    safe = target.astype(np.int64, copy=False) if every else xp.where(valid, target, 0)
    if weight is None:
        w = valid.astype(x.dtype)
    else:
        w = weight[safe].astype(x.dtype) if every else (weight[safe] * valid).astype(x.dtype)
    keep = _with_class_axis(safe, axis)
    if x.ndim == 2:   # (batch, classes), the common case: plain integer indexing
        picked = x[xp.arange(x.shape[0]), safe]
    else:
        picked = xp.take_along_axis(x, keep, axis=axis)
    losses = -w * picked.reshape(w.shape)
    onehot = xp.arange(classes).reshape((classes,) + (1,) * (x.ndim - 1 - axis)) == keep
    coeff = 0 - onehot * _with_class_axis(w, axis)   # +0.0 off the targets, as torch's zeros
    if reduction == "mean":
        total = w.sum()
        return losses.sum() / total, (coeff / total).astype(x.dtype)
    return _reduce(xp, losses, reduction).astype(x.dtype), coeff.astype(x.dtype)


def _batch_mean_nll(x, target) -> tuple:
    """The loss of a training step, in fewer passes: (batch, classes) scores, no weights, the
    mean, and every target a class (so none is ``ignore_index``). The general path's values
    with every weight 1: the same sum of the picked scores over ``total``, the batch size."""
    rows = np.arange(target.shape[0])
    total = x.dtype.type(target.shape[0])
    coeff = np.zeros(x.shape, x.dtype)   # torch's gradient is zero off the targets (+0.0)
    coeff[rows, target] = x.dtype.type(-1) / total
    return -x[rows, target].sum() / total, coeff


def _check_targets(target, valid, classes: int) -> None:
    bad = valid & ((target < 0) | (target >= classes))
    if bool(bad.any()):
        raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")


def _with_class_axis(a, axis: int):
    """``a`` (shaped like the target) with a size-1 class axis put back at ``axis``."""
    return a.reshape(a.shape[:axis] + (1,) + a.shape[axis:])


@nll_loss.vjp
def nll_loss_vjp(ctx, grad):
    coeff = ctx.coeff
    if ctx.reduction == "none" and coeff.ndim >= 2:
        shape = list(coeff.shape)
        shape[1] = 1
        grad = grad.reshape(tuple(shape))
    return (grad * coeff,)


# torch runs 4D (image) inputs through nll_loss2d: the same maths under another node name.
nll_loss2d = defop("nll_loss2d", node="NllLoss2DBackward0",
                   saves=("coeff",), extras=("coeff",))(nll_loss.forward)
nll_loss2d.vjp(nll_loss_vjp)


@defop("mse_loss", node="MseLossBackward0", saves=("x", "target"))
def mse_loss(xp, x, target, reduction="mean"):
    # torch's result type: float32 with an int64 target stays float32
    x, target = promote(x, target)
    if x.dtype.kind in "biu":
        raise kernel_missing("mse_cpu" if xp is np else "mse_cuda", x.dtype)
    d = x - target
    return _reduce(xp, d * d, reduction).astype(d.dtype, copy=False)


@mse_loss.vjp
def mse_loss_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    shape = np.broadcast_shapes(tuple(x.shape), tuple(target.shape))
    g = _scale_grad(ctx, grad, shape) * 2 * (x - target)
    return g, -g


_EPSILON = 1e-12


@defop("binary_cross_entropy", node="BinaryCrossEntropyBackward0",
       saves=("x", "target"))
def binary_cross_entropy(xp, x, target, weight=None, reduction="mean"):
    weight = attr_array(weight)
    if bool(((x < 0) | (x > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    # torch clamps each log at -100 so that p = 0 or 1 gives a finite loss.
    log_p = xp.maximum(xp.log(x), -100)
    log_q = xp.maximum(xp.log1p(-x), -100)
    losses = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        losses = losses * weight
    return _reduce(xp, losses, reduction).astype(x.dtype, copy=False)


@binary_cross_entropy.vjp
def binary_cross_entropy_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    g = _scale_grad(ctx, grad, tuple(x.shape))
    if ctx.weight is not None:
        g = g * ctx.weight
    grad_x = g * (x - target) / (x * (1 - x)).clamp(min=_EPSILON)
    grad_t = None
    if needs(ctx, 1):
        grad_t = g * ((-x).log1p().clamp(min=-100) - x.log().clamp(min=-100))
    return grad_x, grad_t


@defop("binary_cross_entropy_with_logits", node="BinaryCrossEntropyWithLogitsBackward0",
       saves=("x", "target"))
def binary_cross_entropy_with_logits(xp, x, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    weight, pos_weight = attr_array(weight), attr_array(pos_weight)
    # softplus(-x) = log(1 + exp(-x)), computed without overflow.
    softplus_neg = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)
    if pos_weight is None:
        losses = (1 - target) * x + softplus_neg
    else:
        losses = (1 - target) * x + (1 + (pos_weight - 1) * target) * softplus_neg
    if weight is not None:
        losses = losses * weight
    # torch computes ``(1 - target).mul_(input)...``: the loss has the target's (float) dtype
    return _reduce(xp, losses, reduction).astype(target.dtype, copy=False)


@binary_cross_entropy_with_logits.vjp
def binary_cross_entropy_with_logits_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    g = _scale_grad(ctx, grad, tuple(x.shape))
    if ctx.weight is not None:
        g = g * ctx.weight
    sig = x.sigmoid()
    if ctx.pos_weight is None:
        grad_x = g * (sig - target)
        grad_t = g * -x
    else:
        pw = ctx.pos_weight
        grad_x = g * ((1 - target) - (1 + (pw - 1) * target) * (1 - sig))
        grad_t = g * (-x + (pw - 1) * softplus(-x))
    return grad_x, grad_t if needs(ctx, 1) else None


# ----------------------------------------------------------------------------- windows

def pair(value) -> tuple:
    """``3`` -> ``(3, 3)``; a pair stays a pair."""
    return (int(value), int(value)) if isinstance(value, (int, np.integer)) else tuple(
        int(v) for v in value)


def _windows(xp, padded, kernel, stride, dilation, out):
    """(..., *kernel, *out): every kernel offset's strided slice of ``padded``, for any
    number of spatial dims (two here, three for :mod:`.conv3d` and :mod:`.pool3d`)."""
    cols = xp.empty(padded.shape[:-len(out)] + tuple(kernel) + tuple(out), dtype=padded.dtype)
    for offsets, spans in _offsets(kernel, stride, dilation, out):
        cols[offsets] = padded[spans]
    return cols


def _unwindow(xp, cols, padded_size, stride, dilation):
    """The adjoint of :func:`_windows`: sum every window back into a padded input."""
    dims = len(stride)
    kernel, out = cols.shape[-2 * dims:-dims], cols.shape[-dims:]
    total = xp.zeros(cols.shape[:-2 * dims] + tuple(padded_size), dtype=cols.dtype)
    for offsets, spans in _offsets(kernel, stride, dilation, out):
        total[spans] += cols[offsets]
    return total


def _offsets(kernel, stride, dilation, out):
    """For each kernel offset: its index into the windows (``..., i, j, :, :``) and the
    strided slices it reads from the padded input (``..., rows, columns``)."""
    every = (slice(None),) * len(out)
    spans = [[slice(o * d, o * d + s * (n - 1) + 1, s) for o in range(k)]
             for k, s, d, n in zip(kernel, stride, dilation, out)]
    return [((Ellipsis, *offsets, *every), (Ellipsis, *span))
            for offsets, span in zip(itertools.product(*(range(k) for k in kernel)),
                                     itertools.product(*spans))]


# Padding is given as (low, high) per spatial dim, in order: (top, bottom, left, right) for
# an image, with (front, back) before them for a volume.

def _pad(xp, x, padding, value=0.0):
    """``x`` padded with ``value`` on its last ``len(padding) // 2`` dims."""
    if not any(padding):
        return x
    pairs = tuple(zip(padding[0::2], padding[1::2]))
    return xp.pad(x, ((0, 0),) * (x.ndim - len(pairs)) + pairs, constant_values=value)


def _crop(x, padding, size):
    """The inverse of :func:`_pad`: the ``size`` cells after each low padding."""
    return x[(Ellipsis,) + tuple(slice(lo, lo + n) for lo, n in zip(padding[0::2], size))]


def _padded_size(size, padding) -> tuple:
    return tuple(n + lo + hi for n, lo, hi in zip(size, padding[0::2], padding[1::2]))


def conv_out_size(size, kernel, stride, padding, dilation) -> tuple:
    """A convolution's output size along each spatial dim (``padding``: (low, high) each)."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, lo, hi, k, s, d in
                 zip(size, padding[0::2], padding[1::2], kernel, stride, dilation))


# ----------------------------------------------------------------------------- conv2d

# The arrays of a convolution and its two gradients, for any number of spatial dims (conv2d's
# here, conv3d's in .conv3d): windows gathered as matrices, multiplied with ``matmul``.

def _conv_cols(xp, x, kernel, stride, padding, dilation, groups, out):
    """(N, groups, C / groups * prod(kernel), prod(out)): the windows as matrices."""
    cols = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out)
    n, per_group = x.shape[0], x.shape[1] // groups * math.prod(kernel)
    # explicit sizes, not -1: an empty batch has no size to infer from
    return cols.reshape(n, groups, per_group, math.prod(out))


def _convolve(xp, x, w, stride, padding, dilation, groups, out):
    """The convolution of ``x`` with ``w`` (no bias) at its ``out`` output positions."""
    cols = _conv_cols(xp, x, w.shape[2:], stride, padding, dilation, groups, out)
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    return xp.matmul(wm, cols).reshape((x.shape[0], w.shape[0]) + tuple(out))


def _conv_input_grad(xp, g, w, input_size, stride, padding, dilation, groups):
    """A convolution's input gradient (a transposed convolution), sized ``input_size``."""
    n, out = g.shape[0], g.shape[2:]
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    gm = g.reshape(n, groups, w.shape[0] // groups, math.prod(out))
    cols = xp.matmul(wm.transpose(0, 2, 1), gm)
    cols = cols.reshape((n, w.shape[1] * groups) + tuple(w.shape[2:]) + tuple(out))
    padded = _unwindow(xp, cols, _padded_size(input_size, padding), stride, dilation)
    return _crop(padded, padding, input_size)


def _conv_weight_grad(xp, x, g, weight_size, stride, padding, dilation, groups):
    """A convolution's weight gradient for input ``x`` and output gradient ``g`` (windows
    past ``g``'s size unused)."""
    n, out = x.shape[0], tuple(g.shape[2:])
    cols = _conv_cols(xp, x, weight_size[2:], stride, padding, dilation, groups, out)
    gm = g.reshape(n, groups, weight_size[0] // groups, math.prod(out))
    return xp.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(weight_size)


@defop("conv2d", node="ConvolutionBackward0", saves=("x", "w"))
def conv2d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    out_hw = conv_out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    out = _convolve(xp, x, w, stride, padding, dilation, groups, out_hw)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out.astype(x.dtype, copy=False)


def _image_hw(x) -> tuple:
    """(H, W) of an image, (1, L) of a 1D signal (as conv1d convolves it)."""
    hw = tuple(x.shape[2:])
    return (1,) + hw if len(hw) == 1 else hw


def _geometry(ctx) -> dict:
    return {"stride": ctx.stride, "padding": ctx.padding, "dilation": ctx.dilation,
            "groups": ctx.groups}


@conv2d.vjp
def conv2d_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        grad_x = conv2d_input_grad(grad, w, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_w = conv2d_weight_grad(x, grad, weight_size=tuple(w.shape), **geo)
    if needs(ctx, 2):
        grad_b = grad.sum((0,) + tuple(range(2, len(grad.shape))))
    return grad_x, grad_w, grad_b


def lift(a):
    """A 1D convolution's (N, C, L) array as the (N, C, 1, L) image it convolves."""
    return a[:, :, None, :]


@defop("conv1d", node="ConvolutionBackward0", saves=("x", "w"))
def conv1d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """torch's one convolution node for (N, C, L) inputs: conv2d's forward on a height of 1
    (the geometry is 2D: stride (1, s), padding (0, 0, p, p), dilation (1, d))."""
    out = conv2d.forward(xp, lift(x), lift(w), b, stride, padding, dilation, groups)
    return out[:, :, 0, :]


conv1d.vjp(conv2d_vjp)


def convolution(x, w, b=None, **geometry):
    """conv1d or conv2d, as the rank of ``x`` asks (for derivatives that convolve again)."""
    return (conv1d if len(x.shape) == 3 else conv2d)(x, w, b, **geometry)


@defop("conv2d_input_grad", node="ConvolutionBackwardBackward0", saves=("g", "w"))
def conv2d_input_grad(xp, g, w, input_hw=(1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                      dilation=(1, 1), groups=1):
    if g.ndim == 3:   # conv1d's, on the 2D views of its arrays
        return conv2d_input_grad.forward(xp, lift(g), lift(w), input_hw, stride, padding,
                                         dilation, groups)[:, :, 0, :]
    return _conv_input_grad(xp, g, w, input_hw, stride, padding, dilation, groups)


@conv2d_input_grad.vjp
def conv2d_input_grad_vjp(ctx, grad):
    g, w, geo = ctx.g, ctx.w, _geometry(ctx)
    grad_g = convolution(grad, w, None, **geo) if needs(ctx, 0) else None
    grad_w = None
    if needs(ctx, 1):
        grad_w = conv2d_weight_grad(grad, g, weight_size=tuple(w.shape), **geo)
    return grad_g, grad_w


@defop("conv2d_weight_grad", node="ConvolutionBackwardBackward0", saves=("x", "g"))
def conv2d_weight_grad(xp, x, g, weight_size=(1, 1, 1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                       dilation=(1, 1), groups=1):
    if x.ndim == 3:   # conv1d's, on the 2D views of its arrays
        lifted = tuple(weight_size[:2]) + (1,) + tuple(weight_size[2:])
        return conv2d_weight_grad.forward(xp, lift(x), lift(g), lifted, stride, padding,
                                          dilation, groups).reshape(weight_size)
    return _conv_weight_grad(xp, x, g, weight_size, stride, padding, dilation, groups)


@conv2d_weight_grad.vjp
def conv2d_weight_grad_vjp(ctx, grad):
    x, g, geo = ctx.x, ctx.g, _geometry(ctx)
    grad_x = grad_g = None
    if needs(ctx, 0):
        grad_x = conv2d_input_grad(g, grad, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_g = convolution(x, grad, None, **geo)
    return grad_x, grad_g


# ----------------------------------------------------------------------------- pooling

def check_pool_pads(kernel, stride, padding, dilation) -> None:
    """The checks of torch's ``pooling_output_shape``, dim by dim, in its words (C division:
    a kernel of 0 passes here, to be refused by the shape check that follows)."""
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > c_div((k - 1) * d + 1, 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")


def pool_out_size(size, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """torch's pooling output size along each spatial dim (with ceil_mode, a last window
    must start inside the input or its left padding)."""
    out = []
    for length, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        span = length + 2 * p - d * (k - 1) - 1
        n = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (n - 1) * s >= length + p:
            n -= 1
        out.append(n)
    return tuple(out)


def _pool_padding(size, out, kernel, stride, padding, dilation) -> tuple:
    """(low, high) per spatial dim: ``padding`` plus what ceil_mode's last window needs."""
    pads = []
    for n, o, k, s, p, d in zip(size, out, kernel, stride, padding, dilation):
        pads += [p, p + max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p))]
    return tuple(pads)


def max_pool(xp, x, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """(values, indices) of a max pool over the last ``len(kernel)`` dims (2 or 3); each
    index is the maximum's place in its input plane (or volume) read as one row."""
    dims = len(kernel)
    size, lead = x.shape[-dims:], x.shape[:-dims]
    out = pool_out_size(size, kernel, stride, padding, dilation, ceil_mode)
    pads = _pool_padding(size, out, kernel, stride, padding, dilation)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    cols = _windows(xp, _pad(xp, x, pads, fill), kernel, stride, dilation, out)
    cols = cols.reshape(lead + (math.prod(kernel),) + out)   # not -1: a batch may be empty
    axis = -dims - 1
    best = tie_order.pooled_max(xp, cols, axis)
    values = xp.take_along_axis(cols, xp.expand_dims(best, axis), axis=axis).squeeze(axis)
    indices = 0
    for d in range(dims):   # the window's start plus the maximum's offset in it, per dim
        offset = best // math.prod(kernel[d + 1:]) % kernel[d]
        start = (xp.arange(out[d]) * stride[d]).reshape((-1,) + (1,) * (dims - 1 - d))
        indices = indices * size[d] + (start + offset * dilation[d] - padding[d])
    return values, indices.astype(np.int64)


@defop("max_pool2d", node="MaxPool2DWithIndicesBackward0", saves=("x", "indices"),
       extras=("indices",), saved_as={"indices": "result1"})
def max_pool2d(xp, x, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), dilation=(1, 1),
               ceil_mode=False):
    return max_pool(xp, x, kernel_size, stride, padding, dilation, ceil_mode)


@max_pool2d.vjp
def max_pool2d_vjp(ctx, grad):
    return (max_pool2d_scatter(grad, ctx.indices, input_hw=tuple(input_shape(ctx, 0)[-2:])),)


@defop("max_pool2d_scatter", node="MaxPool2DWithIndicesBackwardBackward0", saves=("indices",))
def max_pool2d_scatter(xp, g, indices, input_hw=(1, 1)):
    lead = g.shape[:-2]
    planes, size = int(np.prod(lead)), input_hw[0] * input_hw[1]
    flat = indices.reshape(planes, -1) + (xp.arange(planes) * size).reshape(-1, 1)
    out = xp.bincount(flat.reshape(-1), weights=g.reshape(-1), minlength=planes * size)
    return out.astype(g.dtype).reshape(lead + tuple(input_hw))


@max_pool2d_scatter.vjp
def max_pool2d_scatter_vjp(ctx, grad):
    # torch's max_pool_double_backward: flatten the image, gather, view as the pooled shape.
    indices = ctx.indices
    flat = tuple(indices.shape[:-2]) + (-1,)
    picked = max_pool2d_gather(grad.reshape(flat), indices.reshape(flat))
    return picked.reshape(tuple(indices.shape)), None


@defop("max_pool2d_gather", node="GatherBackward0", saves=("x", "indices"),
       saved_as={"indices": "index"})
def max_pool2d_gather(xp, x, indices):
    """torch's ``x.gather(-1, indices)`` of flattened planes (..., H * W)."""
    return xp.take_along_axis(x, indices, axis=-1)


@max_pool2d_gather.vjp
def max_pool2d_gather_vjp(ctx, grad):
    indices, shape = ctx.indices, input_shape(ctx, 0)
    rows = tuple(indices.shape[:-1]) + (1, -1)   # each plane as one row of the scatter
    image = max_pool2d_scatter(grad.reshape(rows), indices.reshape(rows),
                               input_hw=(1, shape[-1]))
    return image.reshape(tuple(shape)), None


def _avg_divisor(xp, size, out, dtype, kernel, stride, padding, count_include_pad,
                 divisor_override):
    """Each window's divisor: its cells inside the input (and the padding, if counted)."""
    if divisor_override:
        return divisor_override
    ones = (1,) * len(kernel)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    counted = xp.zeros(_padded_size(size, pads), dtype)
    if count_include_pad:
        counted[tuple(slice(0, n + 2 * p) for n, p in zip(size, padding))] = 1
    else:
        counted[tuple(slice(p, p + n) for n, p in zip(size, padding))] = 1
    return _windows(xp, counted, kernel, stride, ones, out).sum(axis=tuple(range(len(kernel))))


def avg_pool(xp, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """An average pool over the last ``len(kernel)`` dims (2 or 3)."""
    dims, ones = len(kernel), (1,) * len(kernel)
    size = x.shape[-dims:]
    out = pool_out_size(size, kernel, stride, padding, ones, ceil_mode)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    sums = _windows(xp, _pad(xp, x, pads), kernel, stride, ones, out).sum(
        axis=tuple(range(-2 * dims, -dims)))
    divisor = _avg_divisor(xp, size, out, x.dtype, kernel, stride, padding, count_include_pad,
                           divisor_override)
    return (sums / divisor).astype(x.dtype, copy=False)


def avg_pool_backward(xp, g, size, kernel, stride, padding, count_include_pad,
                      divisor_override):
    """The adjoint of :func:`avg_pool`: each window's share of ``g`` spread back over it."""
    dims, ones = len(kernel), (1,) * len(kernel)
    out = tuple(g.shape[-dims:])
    divisor = _avg_divisor(xp, size, out, g.dtype, kernel, stride, padding, count_include_pad,
                           divisor_override)
    share = (g / divisor).reshape(g.shape[:-dims] + ones + out)
    cols = xp.broadcast_to(share, g.shape[:-dims] + tuple(kernel) + out)
    pads = _pool_padding(size, out, kernel, stride, padding, ones)
    padded = _unwindow(xp, cols, _padded_size(size, pads), stride, ones)
    return _crop(padded, pads, size).astype(g.dtype, copy=False)


@defop("avg_pool2d", node="AvgPool2DBackward0", saves=("x",))
def avg_pool2d(xp, x, kernel_size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return avg_pool(xp, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override)


def _avg_attrs(ctx) -> dict:
    return {k: getattr(ctx, k) for k in ("kernel_size", "stride", "padding", "ceil_mode",
                                         "count_include_pad", "divisor_override")}


@avg_pool2d.vjp
def avg_pool2d_vjp(ctx, grad):
    hw = tuple(input_shape(ctx, 0)[-2:])
    return (avg_pool2d_backward(grad, input_hw=hw, **_avg_attrs(ctx)),)


@defop("avg_pool2d_backward", node="AvgPool2DBackwardBackward0")
def avg_pool2d_backward(xp, g, input_hw=(1, 1), kernel_size=(1, 1), stride=(1, 1),
                        padding=(0, 0), ceil_mode=False, count_include_pad=True,
                        divisor_override=None):
    return avg_pool_backward(xp, g, input_hw, kernel_size, stride, padding, count_include_pad,
                             divisor_override)


@avg_pool2d_backward.vjp
def avg_pool2d_backward_vjp(ctx, grad):
    return (avg_pool2d(grad, **_avg_attrs(ctx)),)


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """(out, size): row i averages torch's window i, floor(i*size/out) to ceil((i+1)*size/out)."""
    matrix = xp.zeros((out, size), dtype=dtype)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


@defop("adaptive_avg_pool2d", node="AdaptiveAvgPool2DBackward0", saves=("x",))
def adaptive_avg_pool2d(xp, x, output_size=(1, 1)):
    """Each output cell the mean of its window: ``P_h @ x @ P_w.T`` with averaging matrices."""
    rows = _adaptive_matrix(xp, x.shape[-2], output_size[0], x.dtype)
    cols = _adaptive_matrix(xp, x.shape[-1], output_size[1], x.dtype)
    return xp.matmul(xp.matmul(rows, x), cols.T)


@adaptive_avg_pool2d.vjp
def adaptive_avg_pool2d_vjp(ctx, grad):
    hw = tuple(input_shape(ctx, 0)[-2:])
    return (adaptive_avg_pool2d_backward(grad, input_hw=hw),)


@defop("adaptive_avg_pool2d_backward", node="AdaptiveAvgPool2DBackwardBackward0")
def adaptive_avg_pool2d_backward(xp, g, input_hw=(1, 1)):
    rows = _adaptive_matrix(xp, input_hw[0], g.shape[-2], g.dtype)
    cols = _adaptive_matrix(xp, input_hw[1], g.shape[-1], g.dtype)
    return xp.matmul(xp.matmul(rows.T, g), cols)


@adaptive_avg_pool2d_backward.vjp
def adaptive_avg_pool2d_backward_vjp(ctx, grad):
    return (adaptive_avg_pool2d(grad, output_size=tuple(input_shape(ctx, 0)[-2:])),)


# ----------------------------------------------------------------------------- embedding

@defop("embedding", node="EmbeddingBackward0", saves=("indices=array",))
def embedding(xp, weight, indices=None, padding_idx=None, scale_grad_by_freq=False):
    # the indices are a keyword: torch gives them no edge (they are not differentiable)
    return weight[indices]


@embedding.vjp
def embedding_vjp(ctx, grad):
    """Each looked-up row's gradient summed into its row of the weight (index_add, whose
    derivative is index_select); the padding row gets none."""
    num, dim = input_shape(ctx, 0)
    index = ctx.indices.reshape(-1)
    rows = grad.reshape(-1, dim)
    if ctx.padding_idx is not None:
        rows = masked_fill_op(rows, mask=(index == ctx.padding_idx)[:, None], value=0.0)
    if ctx.scale_grad_by_freq:   # each row's gradient divided by how often it was looked up
        counts = xp_of(index).bincount(index, minlength=num)[index]
        rows = rows * Tensor._wrap((1.0 / counts).astype(rows._data.dtype)[:, None])
    zeros = zeros_grad(grad, (num, dim))
    return (index_add_op(zeros, rows, index=index, dim=0),)


# ----------------------------------------------------------------------------- bindings

def softmax_method(self, dim=NO_DIM, dtype=None):
    """``x.softmax(dim)`` and ``agdebug.softmax(x, dim)``."""
    if dim is NO_DIM:
        raise missing_arguments("softmax", "dim")
    return softmax(self if dtype is None else self.to(dtype), dim=dim)


def log_softmax_method(self, dim=NO_DIM, dtype=None):
    """``x.log_softmax(dim)`` and ``agdebug.log_softmax(x, dim)``."""
    if dim is NO_DIM:
        raise missing_arguments("log_softmax", "dim")
    return log_softmax(self if dtype is None else self.to(dtype), dim=dim)


METHODS = {"softmax": softmax_method, "log_softmax": log_softmax_method}
FUNCTIONS = {"softmax": softmax_method, "log_softmax": log_softmax_method}

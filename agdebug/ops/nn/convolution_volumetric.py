"""3D convolutions: ``conv3d`` and ``conv_transpose3d`` on (N, C, D, H, W) volumes.

As in :mod:`.nn`, windows are gathered with one strided slice per kernel offset and
multiplied with ``matmul``. The geometry: ``stride`` and ``dilation`` (sd, sh, sw),
``padding`` (front, back, top, bottom, left, right).

Six ops, closed under differentiation (each derivative is one of them):

- ``conv3d`` (ConvolutionBackward0), and ``conv3d_to``, a convolution cropped to a given
  output size (what a transposed convolution's derivative computes: with output_padding
  the convolution of its gradient is longer than its input), recorded as torch does,
  ConvolutionBackwardBackward0, under the name ``conv_transpose3d_input_grad``;
- ``conv_transpose3d`` (ConvolutionBackward0): a convolution's input gradient, plus a bias;
- ``conv3d_input_grad`` and ``conv3d_weight_grad`` (ConvolutionBackwardBackward0).
"""

from __future__ import annotations

from .convolution import _conv_input_grad, _conv_weight_grad, _convolve, _geometry, conv_out_size
from ..core.registry import defop
from ..core.gradients import needs

_ONES = (1, 1, 1)
_NO_PAD = (0, 0, 0, 0, 0, 0)


def _size(t) -> tuple:
    return tuple(t.shape[2:])


@defop("conv3d", node="ConvolutionBackward0", saves=("x", "w"))
def conv3d(xp, x, w, b=None, stride=_ONES, padding=_NO_PAD, dilation=_ONES, groups=1):
    """(N, C, D, H, W) volumes with (O, C / groups, kd, kh, kw) kernels to (N, O, D', H', W')."""
    out = conv_out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    result = _convolve(xp, x, w, stride, padding, dilation, groups, out)
    if b is not None:
        result = result + b.reshape(1, -1, 1, 1, 1)
    return result.astype(x.dtype, copy=False)


@conv3d.vjp
def conv3d_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        grad_x = conv3d_input_grad(grad, w, input_size=_size(x), **geo)
    if needs(ctx, 1):
        grad_w = conv3d_weight_grad(x, grad, weight_size=tuple(w.shape), **geo)
    if len(ctx._next) > 2 and needs(ctx, 2):   # (conv3d_to has no bias input)
        grad_b = grad.sum((0, 2, 3, 4))
    return (grad_x, grad_w, grad_b)[:len(ctx._next)]


# torch computes a transposed convolution's derivatives with convolutions, so this op (used
# in them only) records ConvolutionBackward0.
@defop("conv3d_to", node="ConvolutionBackward0", saves=("x", "w"))
def conv3d_to(xp, x, w, output_size=_ONES, stride=_ONES, padding=_NO_PAD, dilation=_ONES,
              groups=1):
    """A convolution (no bias) of only its first ``output_size`` output positions."""
    return _convolve(xp, x, w, stride, padding, dilation, groups, tuple(output_size))


conv3d_to.vjp(conv3d_vjp)


# conv3d_to again, as torch records a transposed convolution's input gradient.
conv_transpose3d_input_grad = defop("conv_transpose3d_input_grad",
                                    node="ConvolutionBackwardBackward0",
                                    saves=("x", "w"))(conv3d_to.forward)
conv_transpose3d_input_grad.vjp(conv3d_vjp)


@defop("conv3d_input_grad", node="ConvolutionBackwardBackward0", saves=("g", "w"))
def conv3d_input_grad(xp, g, w, input_size=_ONES, stride=_ONES, padding=_NO_PAD,
                      dilation=_ONES, groups=1):
    """A convolution's input gradient (a transposed convolution), sized ``input_size``."""
    return _conv_input_grad(xp, g, w, input_size, stride, padding, dilation, groups)


@conv3d_input_grad.vjp
def conv3d_input_grad_vjp(ctx, grad):
    g, w, geo = ctx.g, ctx.w, _geometry(ctx)
    grad_g = conv3d_to(grad, w, output_size=_size(g), **geo) if needs(ctx, 0) else None
    grad_w = None
    if needs(ctx, 1):
        grad_w = conv3d_weight_grad(grad, g, weight_size=tuple(w.shape), **geo)
    return grad_g, grad_w


@defop("conv3d_weight_grad", node="ConvolutionBackwardBackward0", saves=("x", "g"))
def conv3d_weight_grad(xp, x, g, weight_size=(1, 1, 1, 1, 1), stride=_ONES, padding=_NO_PAD,
                       dilation=_ONES, groups=1):
    """A convolution's weight gradient for input ``x`` and output gradient ``g`` (windows
    past ``g``'s size unused)."""
    return _conv_weight_grad(xp, x, g, weight_size, stride, padding, dilation, groups)


@conv3d_weight_grad.vjp
def conv3d_weight_grad_vjp(ctx, grad):
    x, g, geo = ctx.x, ctx.g, _geometry(ctx)
    grad_x = grad_g = None
    if needs(ctx, 0):
        grad_x = conv3d_input_grad(g, grad, input_size=_size(x), **geo)
    if needs(ctx, 1):
        grad_g = conv3d_to(x, grad, output_size=_size(g), **geo)
    return grad_x, grad_g


def transposed3d_out_size(size, kernel, stride, padding, output_padding, dilation) -> tuple:
    """torch's output size: ``(in - 1) * s - pads + d * (k - 1) + output_padding + 1``."""
    return tuple((n - 1) * s - lo - hi + d * (k - 1) + op + 1 for n, k, s, lo, hi, op, d in
                 zip(size, kernel, stride, padding[0::2], padding[1::2], output_padding,
                     dilation))


@defop("conv_transpose3d", node="ConvolutionBackward0", saves=("x", "w"))
def conv_transpose3d(xp, x, w, b=None, stride=_ONES, padding=_NO_PAD, output_padding=(0, 0, 0),
                     dilation=_ONES, groups=1):
    """(N, C_in, D, H, W) with (C_in, C_out / groups, kd, kh, kw) weights to (N, C_out, ...)."""
    out = transposed3d_out_size(x.shape[2:], w.shape[2:], stride, padding, output_padding,
                                dilation)
    result = conv3d_input_grad.forward(xp, x, w, out, stride, padding, dilation, groups)
    if b is not None:
        result = result + b.reshape(1, -1, 1, 1, 1).astype(result.dtype, copy=False)
    return result.astype(x.dtype, copy=False)


@conv_transpose3d.vjp
def conv_transpose3d_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        grad_x = conv_transpose3d_input_grad(grad, w, output_size=_size(x), **geo)
    if needs(ctx, 1):
        grad_w = conv3d_weight_grad(grad, x, weight_size=tuple(w.shape), **geo)
    if needs(ctx, 2):
        grad_b = grad.sum((0, 2, 3, 4))
    return grad_x, grad_w, grad_b

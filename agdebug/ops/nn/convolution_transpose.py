"""Transposed convolutions: ``conv_transpose1d`` and ``conv_transpose2d``.

A transposed convolution is the adjoint of a convolution with the same weight: it
spreads each input pixel over a kernel-sized patch of the output, which is exactly
what a convolution's input gradient computes. So the forward reuses that kernel,
and the derivatives are convolutions again: ``grad_input = conv(grad, w)`` and
``grad_weight = conv_weight_grad(grad, input)``. torch records one node,
ConvolutionBackward0 (``transposed=True``), and ConvolutionBackwardBackward0 for
its derivatives.

The geometry is 2D as in :mod:`.nn`: ``stride`` (sh, sw), ``padding`` (top, bottom,
left, right), ``dilation`` (dh, dw); a 1D op runs on a height of 1.
"""

from __future__ import annotations

from .convolution import (_geometry, _image_hw, conv1d, conv2d, conv2d_input_grad,
                          conv2d_weight_grad, lift)
from ..core.registry import defop
from ..core.gradients import needs


def transposed_out_hw(hw, kernel, stride, padding, output_padding, dilation) -> tuple:
    """torch's output size: ``(in - 1) * s - pads + d * (k - 1) + output_padding + 1``."""
    top, bottom, left, right = padding
    return tuple((size - 1) * s - lo - hi + d * (k - 1) + op + 1 for size, k, s, lo, hi, op, d
                 in zip(hw, kernel, stride, (top, left), (bottom, right), output_padding,
                        dilation))


@defop("conv_transpose2d", node="ConvolutionBackward0", saves=("x", "w"))
def conv_transpose2d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0),
                     output_padding=(0, 0), dilation=(1, 1), groups=1):
    """(N, C_in, H, W) with (C_in, C_out / groups, kh, kw) weights to (N, C_out, H', W')."""
    out_hw = transposed_out_hw(x.shape[2:], w.shape[2:], stride, padding, output_padding,
                               dilation)
    out = conv2d_input_grad.forward(xp, x, w, out_hw, stride, padding, dilation, groups)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1).astype(out.dtype, copy=False)
    return out.astype(x.dtype, copy=False)


@defop("conv_transpose1d", node="ConvolutionBackward0", saves=("x", "w"))
def conv_transpose1d(xp, x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0),
                     output_padding=(0, 0), dilation=(1, 1), groups=1):
    """conv_transpose2d's forward on a height of 1."""
    return conv_transpose2d.forward(xp, lift(x), lift(w), b, stride, padding, output_padding,
                                    dilation, groups)[:, :, 0, :]


@conv_transpose2d.vjp
def conv_transpose_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = grad_b = None
    if needs(ctx, 0):
        grad_x = conv_transpose_input_grad(grad, w, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_w = conv_transpose_weight_grad(grad, x, weight_size=tuple(w.shape), **geo)
    if needs(ctx, 2):
        grad_b = grad.sum((0,) + tuple(range(2, len(grad.shape))))
    return grad_x, grad_w, grad_b


conv_transpose1d.vjp(conv_transpose_vjp)


# The derivatives, closed under differentiation: a convolution of the gradient can be one row
# longer than the transposed convolution's input when output_padding >= stride (allowed while
# it is < dilation); that row saw no input, so it is cropped off, and a transposed convolution
# in a derivative is sized to its target. (The conv2d_* derivative ops assume neither.)

@defop("conv_transpose_input_grad", node="ConvolutionBackwardBackward0", saves=("g", "w"))
def conv_transpose_input_grad(xp, g, w, input_hw=(1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                              dilation=(1, 1), groups=1):
    """``conv(g, w)`` cropped to the transposed convolution's input size."""
    forward = conv1d.forward if g.ndim == 3 else conv2d.forward
    out = forward(xp, g, w, None, stride, padding, dilation, groups)
    return out[..., :input_hw[0], :input_hw[1]] if g.ndim == 4 else out[..., :input_hw[1]]


@conv_transpose_input_grad.vjp
def conv_transpose_input_grad_vjp(ctx, grad):
    g, w, geo = ctx.g, ctx.w, _geometry(ctx)
    grad_g = grad_w = None
    if needs(ctx, 0):
        grad_g = conv_transpose_to(grad, w, output_hw=_image_hw(g), **geo)
    if needs(ctx, 1):
        grad_w = conv_transpose_weight_grad(g, grad, weight_size=tuple(w.shape), **geo)
    return grad_g, grad_w


@defop("conv_transpose_weight_grad", node="ConvolutionBackwardBackward0", saves=("x", "g"))
def conv_transpose_weight_grad(xp, x, g, weight_size=(1, 1, 1, 1), stride=(1, 1),
                               padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """A convolution's weight gradient for input ``x`` and output gradient ``g`` (windows
    past ``g``'s size unused): the transposed convolution's, with ``x`` its output gradient
    and ``g`` its input."""
    return conv2d_weight_grad.forward(xp, x, g, weight_size, stride, padding, dilation, groups)


@conv_transpose_weight_grad.vjp
def conv_transpose_weight_grad_vjp(ctx, grad):
    x, g, geo = ctx.x, ctx.g, _geometry(ctx)
    grad_x = grad_g = None
    if needs(ctx, 0):
        grad_x = conv_transpose_to(g, grad, output_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_g = conv_transpose_input_grad(x, grad, input_hw=_image_hw(g), **geo)
    return grad_x, grad_g


# torch computes second derivatives with convolutions again, so this op (used in them
# only) records ConvolutionBackward0.
@defop("conv_transpose_to", node="ConvolutionBackward0", saves=("x", "w"))
def conv_transpose_to(xp, x, w, output_hw=(1, 1), stride=(1, 1), padding=(0, 0, 0, 0),
                      dilation=(1, 1), groups=1):
    """A transposed convolution (no bias) sized ``output_hw``: a convolution's input gradient."""
    return conv2d_input_grad.forward(xp, x, w, output_hw, stride, padding, dilation, groups)


@conv_transpose_to.vjp
def conv_transpose_to_vjp(ctx, grad):
    x, w, geo = ctx.x, ctx.w, _geometry(ctx)
    grad_x = grad_w = None
    if needs(ctx, 0):
        grad_x = conv_transpose_input_grad(grad, w, input_hw=_image_hw(x), **geo)
    if needs(ctx, 1):
        grad_w = conv_transpose_weight_grad(grad, x, weight_size=tuple(w.shape), **geo)
    return grad_x, grad_w

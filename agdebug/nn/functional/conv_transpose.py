"""``F.conv_transpose1d`` and ``F.conv_transpose2d``: argument handling and torch's checks
(the maths is in :mod:`agdebug.ops.nn.convolution_transpose`).

>>> import agdebug as ag
>>> x, w = ag.ones(1, 1, 2, 2), ag.ones(1, 1, 3, 3, requires_grad=True)
>>> out = ag.nn.functional.conv_transpose2d(x, w, stride=2)
>>> tuple(out.shape), out.grad_fn.name()
((1, 1, 5, 5), 'ConvolutionBackward0')
"""

from __future__ import annotations

import numpy as np

from ...ops.nn import convolution_transpose as ops
from ...ops.core.checks import kernel_missing

__all__ = ["conv_transpose1d", "conv_transpose2d"]


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2D transposed convolution ("deconvolution") of (N, C_in, H, W) images with
    (C_in, C_out / groups, kh, kw) weights: the adjoint of ``conv2d`` with that weight.

    >>> import agdebug as ag
    >>> out = ag.nn.functional.conv_transpose2d(ag.ones(1, 2, 3, 3), ag.ones(2, 4, 2, 2))
    >>> tuple(out.shape)
    (1, 4, 4, 4)
    """
    return _batchify(input, 2, "conv_transpose2d", weight, bias, stride, padding, output_padding,
                     groups, dilation)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1D transposed convolution of (N, C_in, L) signals with (C_in, C_out / groups, k)
    weights.

    >>> import agdebug as ag
    >>> ag.nn.functional.conv_transpose1d(ag.ones(1, 1, 2), ag.ones(1, 1, 3))
    tensor([[[1., 2., 2., 1.]]])
    """
    return _batchify(input, 1, "conv_transpose1d", weight, bias, stride, padding, output_padding,
                     groups, dilation)


def _batchify(input, dim: int, name: str, *args):
    """torch's batchify: an unbatched input is convolved as a batch of one."""
    if isinstance(args[3], str):   # (the functional takes no padding string)
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    if input.ndim not in (dim + 1, dim + 2):
        raise RuntimeError(f"Expected {dim + 1}D (unbatched) or {dim + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if input.ndim == dim + 1:
        return _transposed(input.unsqueeze(0), dim, *args).squeeze(0)
    return _transposed(input, dim, *args)


def expand_param(value, name: str, dim: int, given: int) -> tuple:
    """torch's ``expand_param_if_needed``; the function's own ints come as ``given`` values."""
    values = [int(value)] * given if isinstance(value, (int, np.integer)) else \
        [int(v) for v in value]
    if len(values) == 1:
        values = values * dim
    if len(values) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={values}")
    return tuple(values)


def _transposed(input, given: int, weight, bias, stride, padding, output_padding, groups,
                dilation):
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    dim = weight.ndim - 2
    stride = expand_param(stride, "stride", dim, given)
    padding = expand_param(padding, "padding", dim, given)
    dilation = expand_param(dilation, "dilation", dim, given)
    output_padding = expand_param(output_padding, "output_padding", dim, given)
    _check_shape(input, weight, bias, groups, stride, padding, output_padding, dilation)
    if dim == 1:   # the 2D geometry of a height of 1
        stride, dilation, output_padding = (1,) + stride, (1,) + dilation, (0,) + output_padding
        padding = (0,) + padding
    _check_kernel(input, weight, stride, padding, output_padding, dilation)
    bias = _check_dtypes(input, weight, bias)
    op = ops.conv_transpose1d if dim == 1 else ops.conv_transpose2d
    (ph, pw) = padding
    return op(input, weight, bias, stride=stride, padding=(ph, ph, pw, pw),
              output_padding=output_padding, dilation=dilation, groups=groups)


def _check_shape(input, weight, bias, groups, stride, padding, output_padding, dilation):
    """torch's ``check_shape_forward`` for ``transposed=True``, in its order."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    shape = list(weight.shape)
    if shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {shape} instead")
    if shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{shape}] instead")
    if input.shape[1] != shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {shape}, expected input"
                           f"{list(input.shape)} to have {shape[0]} channels, but got "
                           f"{input.shape[1]} channels instead")
    out_channels = shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given transposed=1, weight of size {shape}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def _check_kernel(input, weight, stride, padding, output_padding, dilation):
    """The checks of torch's CPU kernel (``slow_conv_transpose2d_shape_check``), 2D."""
    kh, kw = (1,) * (4 - weight.ndim) + tuple(weight.shape[2:])
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kh} kernel_width: {kw}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation[0]}, dilation_width: {dilation[1]}")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {output_padding[0]} output_padding_width: "
            f"{output_padding[1]} stride_height: {stride[0]} stride_width: {stride[1]} "
            f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}")
    hw = (1,) * (4 - input.ndim) + tuple(input.shape[2:])
    pads = (padding[0], padding[0], padding[1], padding[1])
    out = ops.transposed_out_hw(hw, (kh, kw), stride, pads, output_padding, dilation)
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(f"Given input size per channel: ({hw[0]} x {hw[1]}). Calculated "
                           f"output size per channel: ({out[0]} x {out[1]}). Output size is too "
                           "small")


def _check_dtypes(input, weight, bias):
    """torch's dtype rules: float32 goes to oneDNN (which words them its way); other dtypes
    need the weight's dtype to match and take a bias of any dtype that casts."""
    dtype = input._data.dtype
    if dtype == np.float32:
        for name, t in (("weight", weight), ("bias", bias)):
            if t is not None and t._data.dtype != dtype:
                raise RuntimeError(f"Input type ({input.type()}) and {name} type ({t.type()}) "
                                   f"should be the same or input should be a MKLDNN tensor and "
                                   f"{name} is a dense tensor")
    if weight._data.dtype != dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    if dtype.kind == "b":
        raise kernel_missing("slow_conv_transpose2d_out_cpu", input.dtype)
    if bias is not None and bias._data.dtype != dtype:
        if dtype.kind in "iu" and bias._data.dtype.kind == "f":
            raise RuntimeError(f"result type {bias.dtype._legacy} can't be cast to the desired "
                               f"output type {input.dtype._legacy}")
        bias = bias.to(input.dtype)
    return bias

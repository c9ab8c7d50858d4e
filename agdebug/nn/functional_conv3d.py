"""``F.conv3d`` and ``F.conv_transpose3d``: argument handling and torch's checks (the maths is
in :mod:`agdebug.ops.nn.convolution_volumetric`).

>>> import agdebug as ag
>>> x, w = ag.ones(1, 1, 3, 3, 3), ag.ones(2, 1, 2, 2, 2, requires_grad=True)
>>> out = ag.nn.functional.conv3d(x, w)
>>> tuple(out.shape), out.grad_fn.name()
((1, 2, 2, 2, 2), 'ConvolutionBackward0')
"""

from __future__ import annotations

import numpy as np

from ..ops.nn import convolution_volumetric as ops
from ..ops.core.checks import kernel_missing
from .conv_transpose import _check_shape, expand_param

__all__ = ["conv3d", "conv_transpose3d"]


def _functional():
    # functional.py imports this module: its helpers are read when a call needs them
    from . import functional
    return functional


def _batchify(input, name: str, run, *args):
    """torch's batchify: an unbatched (C, D, H, W) input is run as a batch of one."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to {name}, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 4:
        return run(input.unsqueeze(0), *args).squeeze(0)
    return run(input, *args)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3D cross-correlation of (N, C, D, H, W) volumes with (O, C / groups, kd, kh, kw)
    kernels.

    >>> import agdebug as ag
    >>> out = ag.nn.functional.conv3d(ag.ones(1, 2, 4, 4, 4), ag.ones(3, 2, 3, 3, 3), padding=1)
    >>> tuple(out.shape)
    (1, 3, 4, 4, 4)
    """
    if bias is not None and not isinstance(padding, str):
        _functional()._check_bias_dtype(input, bias)   # first, in torch's conv3d
    return _batchify(input, "conv3d", _conv3d, weight, bias, stride, padding, dilation, groups)


def _conv3d(input, weight, bias, stride, padding, dilation, groups):
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = weight.ndim - 2
    stride = expand_param(stride, "stride", dim, 3)
    dilation = expand_param(dilation, "dilation", dim, 3)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        pads = _functional().mode_padding(padding, input, weight, stride, dilation)
        extra = [hi - lo for lo, hi in zip(pads[0::2], pads[1::2])]
        if any(extra):   # torch pads the odd unit first (ConstantPadNd), then convolves
            input = _functional().pad(input, [p for e in reversed(extra) for p in (0, e)])
            pads = tuple(p for lo in pads[0::2] for p in (lo, lo))
    else:
        pads = tuple(p for v in expand_param(padding, "padding", dim, 3) for p in (v, v))
    _check_conv(input, weight, bias, groups, pads, stride, dilation)
    return ops.conv3d(input, weight, bias, stride=stride, padding=pads, dilation=dilation,
                      groups=groups)


def _check_conv(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's checks of a 3D convolution's arguments, in its order."""
    _functional().check_conv_shape(input, weight, bias, groups, padding, stride, dilation)
    _check_kernel(input, weight, dilation)


def sizes_by(sizes) -> str:
    """``4 x 5 x 6``: sizes as torch's messages write them."""
    return " x ".join(str(s) for s in sizes)


def _check_kernel(input, weight, dilation) -> None:
    """The checks of the CPU kernel torch picks (slow_conv_dilated3d or slow_conv3d)."""
    kernel = list(weight.shape[2:])
    if any(d != 1 for d in dilation):
        if any(k <= 0 for k in kernel):
            raise RuntimeError(f"kernel size should be greater than zero, but got {kernel}")
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    elif any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got: {sizes_by(kernel)} "
                           "(TxHxW)")
    if input._data.dtype.kind == "b":
        raise kernel_missing("compute_columns3d", input.dtype)
    _check_onednn_dtypes(input, weight)
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")


def _check_onednn_dtypes(input, weight, bias=None) -> None:
    """torch (on this CPU build) sends a float32 batch of more than one volume to oneDNN,
    which words a parameter of another dtype its own way."""
    if input._data.dtype != np.float32 or input.shape[0] <= 1:
        return
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"Input type ({input.type()}) and {name} type ({t.type()}) "
                               f"should be the same or input should be a MKLDNN tensor and "
                               f"{name} is a dense tensor")


# ----------------------------------------------------------------------------- transposed

def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3D transposed convolution of (N, C_in, D, H, W) volumes with
    (C_in, C_out / groups, kd, kh, kw) weights: the adjoint of ``conv3d`` with that weight.

    >>> import agdebug as ag
    >>> out = ag.nn.functional.conv_transpose3d(ag.ones(1, 2, 2, 2, 2), ag.ones(2, 1, 2, 2, 2),
    ...                                         stride=2)
    >>> tuple(out.shape)
    (1, 1, 4, 4, 4)
    """
    if isinstance(padding, str):   # (the functional takes no padding string)
        raise TypeError("conv_transpose3d(): argument 'padding' must be tuple of ints, not str")
    return _batchify(input, "conv_transpose3d", _transposed, weight, bias, stride, padding,
                     output_padding, groups, dilation)


def _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation):
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    dim = weight.ndim - 2
    stride = expand_param(stride, "stride", dim, 3)
    padding = expand_param(padding, "padding", dim, 3)
    dilation = expand_param(dilation, "dilation", dim, 3)
    output_padding = expand_param(output_padding, "output_padding", dim, 3)
    _check_shape(input, weight, bias, groups, stride, padding, output_padding, dilation)
    pads = tuple(p for v in padding for p in (v, v))
    _check_transposed_kernel(input, weight, bias, stride, pads, output_padding, dilation)
    return ops.conv_transpose3d(input, weight, bias, stride=stride, padding=pads,
                                output_padding=output_padding, dilation=dilation,
                                groups=groups)


_DIMS = ("depth", "height", "width")


def _named(name: str, values) -> str:
    return " ".join(f"{name}_{d}: {v}" for d, v in zip(_DIMS, values))


def _check_transposed_kernel(input, weight, bias, stride, padding, output_padding, dilation):
    """The checks of torch's CPU kernel (``slow_conv_transpose3d_shape_check``)."""
    kernel = weight.shape[2:]
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got {_named('output_padding', output_padding)} "
                           f"{_named('stride', stride)} {_named('dilation', dilation)}")
    size = input.shape[2:]
    out = ops.transposed3d_out_size(size, kernel, stride, padding, output_padding, dilation)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({sizes_by(size)}). Calculated output "
                           f"size per channel: ({sizes_by(out)}). Output size is too small")
    dtype = input._data.dtype
    _check_onednn_dtypes(input, weight, bias)
    for t in (weight, bias):
        if t is not None and t._data.dtype != dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                               f"{t.dtype._legacy}")
    if dtype.kind == "b":
        raise kernel_missing("slow_conv_transpose3d_out_cpu", input.dtype)

"""Convolutions: ``F.conv1d``, ``F.conv2d``, ``F.conv3d`` and ``F.conv_transpose3d``
(``F.conv_transpose1d/2d`` are in ``conv_transpose``): argument handling and torch's checks
(the maths is in :mod:`agdebug.ops.nn` and :mod:`agdebug.ops.nn.convolution_volumetric`).

>>> import agdebug as ag
>>> x, w = ag.ones(1, 1, 3, 3, 3), ag.ones(2, 1, 2, 2, 2, requires_grad=True)
>>> out = ag.nn.functional.conv3d(x, w)
>>> tuple(out.shape), out.grad_fn.name()
((1, 2, 2, 2, 2), 'ConvolutionBackward0')
"""

from __future__ import annotations

import numpy as np

from ...backend import cpp_name
from ...ops.nn import convolution_volumetric as conv3d_ops
from ...ops.nn import convolution as ops
from ...ops.core.checks import c_div, kernel_missing
from ._parser import torch_words
from .conv_transpose import _check_shape, expand_param
from .padding import pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose3d"]


# ----------------------------------------------------------------------------- conv2d


def _c_type(t) -> str:
    """A dtype as C++ names it (``dtype().name()``) in torch's conv2d bias error."""
    return cpp_name(t._data.dtype)


def _conv_param(value, name: str, dim: int) -> tuple:
    """torch's ``expand_param_if_needed`` for conv2d, whose own ints come as pairs."""
    return expand_param(value, name, dim, 2)


def _mode_padding(mode, input, weight, stride, dilation, groups) -> tuple:
    """torch's ``_convolution_mode`` for padding='same' or 'valid': (top, bottom, left, right);
    ``stride`` and ``dilation`` are lists (one value serves both dimensions)."""
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if len(value) not in (1, 2):
            raise RuntimeError(f"{name} cannot broadcast to 2 dimensions")
    return mode_padding(mode, input, weight, stride, _both(dilation))


def mode_padding(mode, input, weight, stride, dilation) -> tuple:
    """padding='same' or 'valid' as (low, high) per spatial dim, after torch's checks
    (``dilation``: one value per spatial dim), for 2-D and 3-D convolutions."""
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight{list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    if mode == "valid":
        return (0,) * (2 * len(dilation))
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pads = []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        pads += [c_div(total, 2), total - c_div(total, 2)]   # an odd total's extra goes after
    return tuple(pads)


def _both(values: list) -> tuple:
    return tuple(values * 2 if len(values) == 1 else values)


def check_conv_shape(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's ``check_shape_forward`` for a convolution of any number of spatial dims, in its
    order. ``padding`` is (low, high) per spatial dim: torch passes on the low sides, so it
    checks those; the padded input must hold the dilated kernel."""
    if any(p < 0 for p in padding[0::2]):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):   # 0 passes here: the kernel's own check words it
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    _check_conv_weight(input, weight, bias, groups)
    padded = [n + lo + hi for n, lo, hi in zip(input.shape[2:], padding[0::2], padding[1::2])]
    kernel = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: ({sizes_by(padded)}). "
                           f"Kernel size: ({sizes_by(kernel)}). Kernel size can't be greater "
                           "than actual input size")


def _check_conv(input, weight, bias, groups, padding, stride, dilation) -> None:
    check_conv_shape(input, weight, bias, groups, padding, stride, dilation)
    _check_conv_kernel(input, weight, dilation)


def _check_conv_kernel(input, weight, dilation) -> None:
    """The checks of the CPU kernel torch picks: slow_conv_dilated2d unless every dilation
    is 1, else slow_conv2d; each reads the weight as the input's dtype (no promotion)."""
    kh, kw = weight.shape[2:]
    if any(d != 1 for d in dilation):
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got {[kh, kw]}")
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
        kernel = "slow_conv_dilated<>"
    else:
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                               f"{kh} kernel_width: {kw}")
        kernel = "slow_conv2d_cpu"
    if input._data.dtype.kind == "b":
        raise kernel_missing(kernel, input.dtype)
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")


def _check_conv_weight(input, weight, bias, groups: int) -> None:
    """torch's checks of a convolution's weight and bias against its input and groups."""
    out_channels, channels = weight.shape[0], weight.shape[1] * groups
    if out_channels < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if input.shape[1] != channels:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {channels} channels, but "
                           f"got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2D cross-correlation of (N, C, H, W) images with (O, C / groups, kh, kw) kernels.

    >>> import agdebug as ag
    >>> img, k = ag.ones(1, 1, 4, 4), ag.ones(2, 1, 3, 3, requires_grad=True)
    >>> out = ag.nn.functional.conv2d(img, k, padding=1)
    >>> tuple(out.shape), out.grad_fn.name()
    ((1, 2, 4, 4), 'ConvolutionBackward0')
    """
    if bias is not None and not isinstance(padding, str):
        _check_bias_dtype(input, bias)   # before anything else, in torch's conv2d
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 3:   # torch's batchify: unsqueeze, convolve, squeeze
        out = _conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups)
        return out.squeeze(0)
    return _conv2d(input, weight, bias, stride, padding, dilation, groups)


def _check_bias_dtype(input, bias) -> None:
    if bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_c_type(input)}) and bias type ({_c_type(bias)}) "
                           "should be the same")


def _conv2d(input, weight, bias, stride, padding, dilation, groups):
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        stride, dilation = _as_list(stride), _as_list(dilation)
        pads = _mode_padding(padding, input, weight, stride, dilation, groups)
        stride, dilation = _both(stride), _both(dilation)   # (this overload of torch's
        # conv2d does not compare the bias's dtype with the input's: the output has the input's)
    else:
        if weight.ndim < 3:
            raise RuntimeError("weight should have at least three dimensions")
        if groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        dim = weight.ndim - 2
        stride = _conv_param(stride, "stride", dim)
        ph, pw = _conv_param(padding, "padding", dim)
        dilation = _conv_param(dilation, "dilation", dim)
        pads = (ph, ph, pw, pw)
    _check_conv(input, weight, bias, groups, pads, stride, dilation)
    return ops.conv2d(input, weight, bias, stride=stride, padding=pads, dilation=dilation,
                      groups=groups)


def _as_list(value) -> list:
    return [int(value)] * 2 if isinstance(value, (int, np.integer)) else [int(v) for v in value]


# ----------------------------------------------------------------------------- conv1d

def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1D cross-correlation of (N, C, L) signals with (O, C / groups, k) kernels: one
    ConvolutionBackward0 node, as torch records.

    >>> import agdebug as ag
    >>> x, k = ag.ones(1, 1, 5), ag.ones(1, 1, 3, requires_grad=True)
    >>> ag.nn.functional.conv1d(x, k, padding=1)
    tensor([[[2., 3., 3., 3., 2.]]], grad_fn=<ConvolutionBackward0>)
    """
    if bias is not None and not isinstance(padding, str):
        _check_bias_dtype(input, bias)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 2:   # torch's batchify: unsqueeze, convolve, squeeze
        return _conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                       groups).squeeze(0)
    return _conv1d(input, weight, bias, stride, padding, dilation, groups)


def _conv1d(input, weight, bias, stride, padding, dilation, groups):
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    (s,), (d,) = _conv1_param(stride, "stride"), _conv1_param(dilation, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        low, high = mode_padding(padding, input, weight, (s,), (d,))
    else:
        (low,) = _conv1_param(padding, "padding")
        high = low
    _check_conv1d(input, weight, bias, groups, (low, high), s, d)
    return ops.conv1d(input, weight, bias, stride=(1, s), padding=(0, 0, low, high),
                      dilation=(1, d), groups=groups)


def _conv1_param(value, name: str) -> tuple:
    return _conv_param([value] if isinstance(value, (int, np.integer)) else value, name, 1)


def _check_conv1d(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's convolution checks for one spatial dim, in its order (its kernel is the 2D
    one, on a height of 1: a zero dilation is reported as ``[1, 0]``)."""
    check_conv_shape(input, weight, bias, groups, padding, (stride,), (dilation,))
    if dilation == 0:
        raise RuntimeError("dilation should be greater than zero, but got [1, 0]")
    if weight._data.dtype != input._data.dtype and input.numel():
        if input._data.dtype == np.float32:   # (torch's oneDNN path words it)
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) "
                               "should be the same or input should be a MKLDNN tensor and "
                               "weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    if input._data.dtype.kind == "b":
        raise kernel_missing("slow_conv2d_cpu", input.dtype)


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
        _check_bias_dtype(input, bias)   # first, in torch's conv3d
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
        pads = mode_padding(padding, input, weight, stride, dilation)
        extra = [hi - lo for lo, hi in zip(pads[0::2], pads[1::2])]
        if any(extra):   # torch pads the odd unit first (ConstantPadNd), then convolves
            input = pad(input, [p for e in reversed(extra) for p in (0, e)])
            pads = tuple(p for lo in pads[0::2] for p in (lo, lo))
    else:
        pads = tuple(p for v in expand_param(padding, "padding", dim, 3) for p in (v, v))
    _check_conv3d(input, weight, bias, groups, pads, stride, dilation)
    return conv3d_ops.conv3d(input, weight, bias, stride=stride, padding=pads, dilation=dilation,
                      groups=groups)


def _check_conv3d(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's checks of a 3D convolution's arguments, in its order."""
    check_conv_shape(input, weight, bias, groups, padding, stride, dilation)
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
    return conv3d_ops.conv_transpose3d(input, weight, bias, stride=stride, padding=pads,
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
    out = conv3d_ops.transposed3d_out_size(size, kernel, stride, padding, output_padding, dilation)
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


torch_words(globals(), ["conv1d", "conv2d"])

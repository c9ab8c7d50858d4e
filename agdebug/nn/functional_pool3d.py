"""``F.max_pool3d``, ``F.avg_pool3d`` and ``F.adaptive_avg_pool3d``: argument handling and
torch's checks (the maths is in :mod:`agdebug.ops.nn.pooling_volumetric`).

>>> import agdebug as ag
>>> x = ag.arange(8.0).reshape(1, 1, 2, 2, 2)
>>> ag.nn.functional.max_pool3d(x, 2).reshape(-1)
tensor([7.])
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..ops.nn import pooling_volumetric as ops
from ..ops.nn.pooling import check_pool_pads, pool_out_size
from ..ops.core.checks import check_divisor_override, kernel_missing
from ..tensor import Tensor

__all__ = ["adaptive_avg_pool3d", "avg_pool3d", "max_pool3d"]


def _triple(value, function: str, argument: str, allow_empty=False) -> tuple:
    """torch's three-int arguments: one int serves every dim; one or three values."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 3
    values = tuple(int(v) for v in value)
    if len(values) == 1:
        return values * 3
    if len(values) != 3 and not (allow_empty and not values):
        either = "either be a single int" if function == "max_pool3d" else "be a single int"
        raise RuntimeError(f"{function}: {argument} must {either}, or a tuple of three ints")
    return values


def _args(function, kernel_size, stride, padding, dilation=1) -> tuple:
    kernel = _triple(kernel_size, function, "kernel_size")
    stride = kernel if stride is None or not _triple(stride, function, "stride", True) else \
        _triple(stride, function, "stride")
    return kernel, stride, _triple(padding, function, "padding"), \
        _triple(dilation, function, "dilation")


def _check_output(input, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """torch's ``pooling_output_shape`` checks, depth, height then width."""
    check_pool_pads(kernel, stride, padding, dilation)
    return pool_out_size(tuple(input.shape[-3:]), kernel, stride, padding, dilation, ceil_mode)


def _check_shape(input, kernel, stride, padding, dilation, out, function: str) -> None:
    """torch's ``pool3d_shape_check``."""
    (kt, kh, kw), (pt, ph, pw) = kernel, padding
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {stride[0]} dH: "
                           f"{stride[1]} dW: {stride[2]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: "
                           f"{dilation[0]} dilationH: {dilation[1]} dilationW: {dilation[2]}")
    shape = list(input.shape)
    if 0 in shape[-4:]:
        raise RuntimeError(f"{function}(): Expected input's non-batch dimensions to have "
                           f"positive length, but input has a shape of {shape} and non-batch "
                           f"dimension {shape[-4:].index(0)} has length zero!")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if any(o < 1 for o in out):
        planes, t, h, w = shape[-4:]
        raise RuntimeError(f"Given input size: ({planes}x{t}x{h}x{w}). Calculated output size: "
                           f"({planes}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _check_rank(input) -> None:
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each 3D window of (N, C, D, H, W) volumes; the gradient flows to the
    (first) maximum.

    >>> import agdebug as ag
    >>> x = ag.arange(64.0).reshape(1, 1, 4, 4, 4).requires_grad_()
    >>> ag.nn.functional.max_pool3d(x, 2).grad_fn.name()
    'MaxPool3DWithIndicesBackward0'
    """
    kernel, stride, padding, dilation = _args("max_pool3d", kernel_size, stride, padding,
                                              dilation)
    _check_rank(input)
    out = _check_output(input, kernel, stride, padding, dilation, ceil_mode)
    _check_shape(input, kernel, stride, padding, dilation, out,
                 "max_pool3d_with_indices_out_cpu_template")
    if input._data.dtype.kind == "b":
        raise kernel_missing("max_pool3d", input.dtype)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding,
             "dilation": dilation, "ceil_mode": ceil_mode}
    return max_pool_with_indices(ops.max_pool3d, input, attrs, return_indices)


def max_pool_with_indices(op, input: Tensor, attrs: dict, return_indices: bool):
    """``op(input)`` (max_pool2d's or max_pool3d's op), and with ``return_indices`` the
    indices of the maxima as well: when the call is recorded, the very tensor its node saved
    (as torch returns it: writing into it makes backward refuse, as in torch), so a training
    step pools once. Unrecorded, nothing saved them; under saved-tensor hooks the node holds
    only what the pack hook made of them (unpacking would run the user's unpack hook in the
    forward). In both cases the forward runs again for them."""
    if not return_indices:
        return op(input, **attrs)
    result = op(input, **attrs)
    saved = result.grad_fn._saved.get("indices") if result.grad_fn is not None else None
    if saved is not None and saved._tensor is not None:
        return result, saved._tensor
    _, indices = op.forward(backend.xp_of(input._data), input._data, **attrs)
    return result, Tensor._wrap(indices)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each 3D window (padding counts as zeros unless ``count_include_pad=False``).

    >>> import agdebug as ag
    >>> ag.nn.functional.avg_pool3d(ag.ones(1, 1, 2, 2, 2), 2, padding=1).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    kernel, stride, padding, _ = _args("avg_pool3d", kernel_size, stride, padding)
    check_divisor_override("avg_pool3d", divisor_override)
    _check_rank(input)
    out = _check_output(input, kernel, stride, padding, (1, 1, 1), ceil_mode)
    size = tuple(input.shape[-3:])
    if any(n < k for n, k in zip(size, kernel)) and not any(padding):
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than "
                           f"kernel size (kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    _check_shape(input, kernel, stride, padding, (1, 1, 1), out, "avg_pool3d")
    if input._data.dtype.kind == "b":
        raise kernel_missing("avg_pool3d_out_frame", input.dtype)
    return ops.avg_pool3d(input, kernel_size=kernel, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of volumes to a fixed ``output_size`` (None keeps an input size); an
    output of 1 x 1 x 1 is ``input.mean((-1, -2, -3), keepdim=True)``, as torch computes it.

    >>> import agdebug as ag
    >>> ag.nn.functional.adaptive_avg_pool3d(ag.ones(2, 3, 4, 5, 6), (1, None, 2)).shape
    torch.Size([2, 3, 1, 5, 2])
    """
    if output_size is None:   # (torch's wrapper takes its len)
        raise TypeError("object of type 'NoneType' has no len()")
    sizes = [output_size] * 3 if isinstance(output_size, (int, np.integer)) else \
        list(output_size)
    if not isinstance(output_size, (int, np.integer)) and input.ndim <= len(sizes):
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    spatial = (1,) * (3 - min(input.ndim, 3)) + tuple(input.shape[-3:])
    sizes = tuple(int(n if s is None else s) for s, n in zip(sizes, spatial))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
    if sizes == (1, 1, 1):   # torch's shortcut, before its other checks: a MeanBackward1 node
        return input.mean((-1, -2, -3), keepdim=True)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    if not input.is_floating_point():
        raise kernel_missing("adaptive_avg_pool3d_cpu", input.dtype)
    return ops.adaptive_avg_pool3d(input, output_size=sizes)

"""Pooling: ``F.max_pool1d/2d/3d``, ``F.avg_pool1d/2d/3d`` and ``F.max_unpool1d/2d/3d``
(the adaptive pools are in ``adaptive_pooling``): argument handling and torch's checks in
torch's order and words (the maths is in :mod:`agdebug.ops.nn.pooling`,
:mod:`agdebug.ops.nn.pooling_volumetric` and :mod:`agdebug.ops.nn.pooling_adaptive_max`).

>>> import agdebug as ag
>>> x = ag.arange(8.0).reshape(1, 1, 2, 2, 2)
>>> ag.nn.functional.max_pool3d(x, 2).reshape(-1)
tensor([7.])
"""

from __future__ import annotations

import numpy as np

from ... import backend
from ...ops.nn import convolution as convolution_ops
from ...ops.nn import pooling as pooling_ops
from ...ops.nn import pooling_volumetric as pool3d_ops
from ...ops.nn import pooling_adaptive_max as unpool_ops
from ...ops.nn.pooling import check_pool_pads, pool_out_size
from ...ops.core.checks import check_divisor_override, kernel_missing
from ...tensor import Tensor
from ._parser import torch_words

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool1d_with_indices",
           "max_pool2d", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d"]


# ----------------------------------------------------------------------------- pooling

def _pool_args(kernel_size, stride, padding, dilation=1) -> tuple:
    kernel = convolution_ops.pair(kernel_size)
    given = stride is not None and stride != [] and stride != ()
    stride = convolution_ops.pair(stride) if given else kernel
    return kernel, stride, convolution_ops.pair(padding), convolution_ops.pair(dilation)


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode) -> None:
    """torch's ``pooling_output_shape`` (height, then width) and ``pool2d_shape_check``."""
    pooling_ops.check_pool_pads(kernel, stride, padding, dilation)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    shape = tuple(input.shape)
    # a batch may be empty; the channels and the image may not
    if not ((len(shape) == 3 and 0 not in shape) or (len(shape) == 4 and 0 not in shape[1:])):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    oh, ow = pooling_ops.pool_out_size(shape[-2:], kernel, stride, padding, dilation, ceil_mode)
    if oh < 1 or ow < 1:
        planes, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({planes}x{h}x{w}). Calculated output size: "
                           f"({planes}x{oh}x{ow}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    """The maximum of each window; the gradient flows to the (first) maximum.

    >>> import agdebug as ag
    >>> x = ag.arange(16.0).reshape(1, 1, 4, 4)
    >>> ag.nn.functional.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_pool(input, kernel, stride, padding, dilation, ceil_mode)
    if input._data.dtype.kind == "b":
        raise kernel_missing("max_pool2d", input.dtype)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding,
             "dilation": dilation, "ceil_mode": ceil_mode}
    return max_pool_with_indices(pooling_ops.max_pool2d, input, attrs, return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window (padding counts as zeros unless ``count_include_pad=False``)."""
    kernel, stride, padding, _ = _pool_args(kernel_size, stride, padding)
    check_divisor_override("avg_pool2d", divisor_override)
    if input.ndim < 3:   # torch reads the planes as ``input.size(-3)``
        raise IndexError("Dimension specified as -3 but tensor has no dimensions" if not input.ndim
                         else f"Dimension out of range (expected to be in range of "
                              f"[{-input.ndim}, {input.ndim - 1}], but got -3)")
    _check_pool(input, kernel, stride, padding, (1, 1), ceil_mode)
    if input._data.dtype.kind in "biu" and input._data.dtype != np.int64:   # floats and Long
        raise kernel_missing("avg_pool2d", input.dtype)
    return pooling_ops.avg_pool2d(input, kernel_size=kernel, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)


# ----------------------------------------------------------------------------- 1D pools

def _one(value, function: str, argument: str, allow_empty=False):
    """torch's ``check1d``: an int, or a list/tuple of one int (empty: None, for stride)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    values = list(value)
    if allow_empty and not values:
        return None
    if len(values) != 1:
        raise RuntimeError(f"{function}() argument '{argument}' should contain one int (got "
                           f"{len(values)})")
    return int(values[0])


def _check_dim_range(input, function: str) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {function})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window of (N, C, L) signals: torch unsqueezes to an image and runs
    max_pool2d (SqueezeBackward1 over MaxPool2DWithIndicesBackward0)."""
    if input.ndim not in (2, 3) or 0 in input.shape[-1:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = _one(stride, "max_pool1d", "stride", True) if stride is not None else None
    s = k if s is None else s
    p, d = _one(padding, "max_pool1d", "padding"), _one(dilation, "max_pool1d", "dilation")
    for name, value in (("kernel_size", k), ("stride", s)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    (length,) = pooling_ops.pool_out_size(input.shape[-1:], (k,), (s,), (p,), (d,), ceil_mode)
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")
    if not input.is_floating_point() and not return_indices and not input.requires_grad:
        raise kernel_missing("max_pool1d_impl", input.dtype)
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                     return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean of each window of (N, C, L) signals (avg_pool2d on the unsqueezed input)."""
    _check_dim_range(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None else _one(stride, "avg_pool1d", "stride", True)
    s = k if s is None else s
    p = _one(padding, "avg_pool1d", "padding")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


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
    return max_pool_with_indices(pool3d_ops.max_pool3d, input, attrs, return_indices)


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
    return pool3d_ops.avg_pool3d(input, kernel_size=kernel, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)


# ----------------------------------------------------------------------------- max unpooling

def _tuple(value, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _unpool_output_size(input, kernel, stride, padding, output_size) -> list:
    """torch's Python-level default and checks of the unpooled size."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        size = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        size = list(output_size)
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{low} and {high})')
    for d in range(n):
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    return size


def _max_unpool2d(input, indices, size):
    """torch's native max_unpool2d: its checks, then the op."""
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype._legacy}")
    if input.ndim not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.ndim} dimensions.")
    _check_unpool_input(input, indices, "max_unpooling2d")
    if input._data.dtype.kind not in "f":
        raise kernel_missing("max_unpool2d", input.dtype)
    _check_max_indices(indices, size)
    return unpool_ops.max_unpool2d(input, indices=indices._data, output_size=tuple(size))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of ``max_pool2d``: each value placed at its index in zero planes.

    >>> import agdebug as ag
    >>> x = ag.tensor([[[[1.0, 4.0], [3.0, 2.0]]]])
    >>> out, indices = ag.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> ag.nn.functional.max_unpool2d(out, indices, 2)
    tensor([[[[0., 4.],
              [0., 0.]]]])
    """
    kernel = _tuple(kernel_size, 2)
    stride = kernel if stride is None else _tuple(stride, 2)
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 2), output_size)
    return _max_unpool2d(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of ``max_pool1d``: max_unpool2d on a width of 1 (SqueezeBackward1
    over MaxUnpool2DBackward0, as torch records it)."""
    kernel = _tuple(kernel_size, 1)
    stride = kernel if stride is None else _tuple(stride, 1)
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 1), output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of ``max_pool3d``: each value placed at its index in zero volumes
    (MaxUnpool3DBackward0).

    >>> import agdebug as ag
    >>> out, indices = ag.nn.functional.max_pool3d(ag.arange(8.0).reshape(1, 2, 2, 2), 2,
    ...                                            return_indices=True)
    >>> ag.nn.functional.max_unpool3d(out, indices, 2).reshape(-1).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    kernel = _tuple(kernel_size, 3)
    stride = kernel if stride is None else _tuple(stride, 3)
    padding = _tuple(padding, 3)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    _check_unpool3d(input, indices, size, stride, padding)
    if input._data.dtype.kind not in "f":
        raise kernel_missing("max_unpool3d", input.dtype)
    _check_max_indices(indices, size)
    return unpool_ops.max_unpool3d(input, indices=indices._data, output_size=tuple(size))


def _check_unpool3d(input, indices, size, stride, padding) -> None:
    """torch's max_unpooling3d_shape_check, in its order and words."""
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if input.ndim not in (4, 5):
        raise RuntimeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {input.ndim} dimensions.")
    for name, value in (("output_size", size), ("stride", stride), ("padding", padding)):
        if len(value) != 3:
            colon = "" if name == "output_size" else ":"
            raise RuntimeError(f"There should be exactly three elements (depth, height, width) "
                               f"in {name}, but got{colon} {len(value)} elements.")
    _check_unpool_input(input, indices, "max_unpooling3d")
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{list(stride)}")


def _check_max_indices(indices, size) -> None:
    """Every index inside an output plane or volume of ``size``, as torch's kernel checks
    (it reports the last one it met)."""
    room = int(np.prod(size))
    flat = indices._data.reshape(-1)
    bad = flat[(flat < 0) | (flat >= room)] if room else flat[:0]
    if bad.size:
        raise RuntimeError(f"Found an invalid max index: {int(bad[-1])} (output volumes are of "
                           f"size {'x'.join(map(str, size))})")


def _check_unpool_input(input, indices, name: str) -> None:
    """torch's checks shared by max_unpool2d and 3d: indices shaped as the input, and no
    empty non-batch dimension."""
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}_forward_out_cpu(): Expected input to have non-zero "
                               f"size for non-batch dimensions, but got {list(input.shape)} "
                               f"with dimension {i} being empty.")


# ----------------------------------------------------------------------------- with indices
# torch's names for the pools that return their indices, whatever return_indices says

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool1d` and the index of each maximum."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool2d` and the flat index of each maximum in its plane."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool3d` and the flat index of each maximum in its volume."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


torch_words(globals(), ["avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d"])

"""Normalization functions: ``F.batch_norm``, ``F.instance_norm``, ``F.layer_norm``,
``F.group_norm``, ``F.rms_norm``, ``F.local_response_norm`` and ``F.normalize``.

``rms_norm`` is built as torch's CPU composite builds it (so the graph is torch's:
PowBackward0, MeanBackward1, AddBackward1, RsqrtBackward0, MulBackward0, and one more
MulBackward0 for the weight); ``local_response_norm`` as torch's Python composite is (the
squares averaged over a window of channels by an average pool).

>>> import agdebug as ag
>>> y = ag.nn.functional.rms_norm(ag.tensor([[3.0, 4.0]], requires_grad=True), (2,))
>>> [round(v, 4) for v in y[0].tolist()], y.grad_fn.name()
([0.8485, 1.1314], 'MulBackward0')
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graph.grad_mode import no_grad
from ...ops.pointwise import binary as binary_math
from ...ops.nn import loss_pieces as loss_ops
from ...ops.nn import normalization as norm_ops
from ...ops.core.checks import kernel_missing
from .. import functional as F  # partly loaded while it imports this file: read late
from ._parser import torch_words

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm",
           "normalize", "rms_norm"]


# ----------------------------------------------------------------------------- normalization

def _shape_text(t) -> str:
    return f"torch.Size({list(t.shape)})"


def _check_norm_dtypes(input, kernel: str, *params, float_message=False) -> None:
    """torch's CPU kernels: floating inputs only; parameters of the input's dtype, except
    that a half input may have float32 parameters (batch_norm words a float32 input's
    mismatch otherwise)."""
    if not input.is_floating_point():
        raise kernel_missing(kernel, input.dtype)
    dt = input._data.dtype
    for p in params:
        if p is not None and p._data.dtype != dt and dt.itemsize >= 4:
            if float_message and dt == np.float32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                                   "Float")
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Standardize over the last ``len(normalized_shape)`` dims, then scale and shift.

    >>> import agdebug as ag
    >>> x = ag.tensor([[1.0, 3.0]], requires_grad=True)
    >>> y = ag.nn.functional.layer_norm(x, (2,))
    >>> y.grad_fn.name(), [round(v, 3) for v in y[0].tolist()]
    ('NativeLayerNormBackward0', [-1.0, 1.0])
    """
    if isinstance(normalized_shape, (int, np.integer)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = [int(s) for s in normalized_shape]
    _check_norm_dtypes(input, "LayerNormKernelImpl", weight, bias)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and list(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(p.shape)} and normalized_shape = "
                               f"{shape}")
    if list(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    return norm_ops.native_layer_norm(input, weight, bias, normalized_shape=tuple(shape),
                                      eps=eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Standardize each sample over its channels in ``num_groups`` groups, then scale/shift.

    >>> import agdebug as ag
    >>> x = ag.randn(2, 4, 3, requires_grad=True)
    >>> ag.nn.functional.group_norm(x, 2).grad_fn.name()
    'NativeGroupNormBackward0'
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    _verify_batch_size(size, str(size))
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups="
                           f"{num_groups}")
    # (torch's bias message shows the weight's shape, [0] when there is none: copied as is)
    shown = list(weight.shape) if weight is not None else [0]
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(p.shape) if name == 'weight' else shown} and input of "
                               f"shape {list(input.shape)}")
    _check_norm_dtypes(input, "GroupNormKernelImpl", weight, bias)
    return norm_ops.native_group_norm(input, weight, bias, group=num_groups, eps=eps)


def _verify_batch_size(size, text: str) -> None:
    """torch's Python check: training statistics need more than one value per channel."""
    count = size[0] * int(np.prod(size[2:]))
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {text}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Standardize each channel over the batch (and the spatial dims), then scale and shift.

    Training uses the batch's statistics and moves ``running_mean``/``running_var`` toward
    them in place (with the unbiased variance); eval uses the running statistics.

    >>> import agdebug as ag
    >>> mean, var = ag.zeros(2), ag.ones(2)
    >>> y = ag.nn.functional.batch_norm(ag.tensor([[1.0, 2.0], [3.0, 6.0]]), mean, var,
    ...                                 training=True)
    >>> mean
    tensor([0.2000, 0.4000])
    """
    if training:
        _verify_batch_size(list(input.shape), _shape_text(input))
    if momentum is None or isinstance(momentum, bool):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, p in (("running_mean", running_mean), ("running_var", running_var)):
        if p is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and p.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {p.numel()}")
    if input.numel():   # torch returns an empty input's result before looking at dtypes
        _check_norm_dtypes(input, "batch_norm", weight, bias, running_mean, running_var,
                           float_message=True)
    return norm_ops.native_batch_norm(
        input, weight, bias, running_mean=_stat_array(running_mean),
        running_var=_stat_array(running_var), training=bool(training),
        momentum=float(momentum), eps=eps)


def _stat_array(t):
    """A running statistic as its array (updated in place by the op, as torch's kernel)."""
    return None if t is None else t._data


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Standardize each sample's channels over their spatial dims: torch runs batch_norm on
    the input viewed as (1, N * C, ...), with the parameters repeated N times.

    >>> import agdebug as ag
    >>> x = ag.randn(2, 3, 4, requires_grad=True)
    >>> ag.nn.functional.instance_norm(x).grad_fn.name()
    'ViewBackward0'
    """
    if use_input_stats:
        size = list(input.shape)
        if int(np.prod(size[2:])) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {_shape_text(input)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    b, c = input.shape[:2]
    stats = [None if s is None else s.repeat(b) for s in (running_mean, running_var)]
    params = [None if p is None else p.repeat(b) for p in (weight, bias)]
    flat = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    out = batch_norm(flat, stats[0], stats[1], params[0], params[1], use_input_stats,
                     momentum, eps)
    with no_grad():   # torch copies the repeated statistics' mean back (a version bump)
        for own, repeated in zip((running_mean, running_var), stats):
            if own is not None and use_input_stats:
                own.copy_(repeated.view(b, c).mean(0))
    return out.view(tuple(input.shape))


# ----------------------------------------------------------------------------- normalize

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``).

    >>> import agdebug as ag
    >>> ag.nn.functional.normalize(ag.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    if out is not None:
        raise NotImplementedError("agdebug's normalize takes no out=")
    denom = binary_math.clamp_min(input.norm(p, dim, keepdim=True), min=eps)
    return input / denom.expand_as(input)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0):
    """``input / (k + alpha * mean of the squares of `size` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        # (torch's text has the run of spaces of a line continuation inside its string)
        raise ValueError("Expected 3D or higher dimensionality" + " " * 26 +
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:   # the channels as the height of a one-channel image
        div = F.pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:          # the channels as the depth of a one-channel volume
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input ** 2) + eps)`` over the last ``len(normalized_shape)`` dims,
    times ``weight``; ``eps`` defaults to the machine epsilon of ``input``'s dtype."""
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = [int(s) for s in normalized_shape]
    _check(input, shape, weight)
    dtype = input._data.dtype
    if eps is None:
        eps = float(np.finfo(dtype).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    scale = loss_ops.add_scalar(input.pow(2).mean(dims, keepdim=True), other=eps).rsqrt()
    result = input * scale
    if weight is not None:
        result = result * weight
        if result._data.dtype != dtype:   # torch's type_as(input)
            result = result.to(input.dtype)
    return result


def _check(input, shape: list, weight) -> None:
    """torch's checks, in its order and words (the input's shape is written ``[*2, 3]``)."""
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{shape}")
    if input.ndim < len(shape) or list(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if input._data.dtype.kind != "f":
        raise kernel_missing("rms_norm", input._data.dtype)


torch_words(globals(), ["batch_norm", "group_norm", "instance_norm", "layer_norm", "normalize"])

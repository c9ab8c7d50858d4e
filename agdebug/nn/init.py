"""``torch.nn.init``: fill tensors in place, without recording, from agdebug's generator.

>>> import agdebug as ag
>>> w = ag.nn.init.zeros_(ag.empty(2, 3))
>>> w.sum().item()
0.0
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import backend, creation, functions, linalg
from ..graph.grad_mode import no_grad
from ..ops.core.inplace import write_into

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_",
    "normal_", "ones_", "orthogonal_", "sparse_", "trunc_normal_", "uniform_",
    "xavier_normal_", "xavier_uniform_", "zeros_",
]


def _fill(tensor, array):
    with no_grad():
        write_into(tensor, backend.move_array(np.asarray(array, dtype=tensor._data.dtype),
                                              tensor.device))
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (torch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    # torch: tensor.uniform_(a, b): the same draws, from torch's generator
    draws = creation.generator(generator).uniform(tuple(tensor.shape), tensor.dtype.name, a, b)
    return _fill(tensor, draws)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    draws = creation.generator(generator).normal(tuple(tensor.shape), tensor.dtype.name, mean,
                                                 std, tensor.is_contiguous())
    return _fill(tensor, draws)


def constant_(tensor, val: float):
    return _fill(tensor, np.full(tuple(tensor.shape), val))


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity) -> float:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    if 0 in tuple(tensor.shape):
        return 0.0
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """U(-b, b) with b = gain * sqrt(3 / fan): He initialisation (torch's Linear default)."""
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """N(mean, std) truncated to [a, b], drawn as torch 2.13 draws it: redrawn where outside
    while most draws land inside (p > 0.3), else by rejection from U(a, b)."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        inside = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if inside > 0.3:
            result = _redrawn_normal(tensor, mean, std, a, b, generator)
        else:
            result = _rejected_uniform(tensor, mean, std, a, b, generator)
        if result is not tensor:
            tensor.copy_(result)
    return tensor


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redrawn_normal(tensor, mean, std, a, b, generator):
    lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            return result
        redrawn = creation.empty_like(result).normal_(mean, std, generator=generator)
        result = functions.where(outside, redrawn, result)


def _rejected_uniform(tensor, mean, std, a, b, generator):
    log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
    candidates, accept = creation.empty_like(tensor), creation.empty_like(tensor)

    def rejected(values):   # log U > the candidate's log density (relative to the peak)
        log_density = values.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return accept.uniform_(generator=generator).log_().gt(log_density)
    tensor.uniform_(a, b, generator=generator)
    pending, result = rejected(tensor.clone()), tensor
    while pending.any():
        candidates.uniform_(a, b, generator=generator)
        result = functions.where(pending, candidates, result)
        pending = functions.where(pending, rejected(candidates.clone()), pending)
    return result


def eye_(tensor):
    """The identity matrix (a 2-d tensor; ones on the diagonal, zeros elsewhere)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups: int = 1):
    """The Dirac delta of a convolution's weight (3-, 4- or 5-d): each of the first input
    channels passed through unchanged, per group."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    delta = np.zeros(sizes)
    centre = tuple(size // 2 for size in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            delta[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, delta)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """A (semi-)orthogonal matrix: the Q of a QR factorisation of normal draws, its columns'
    signs fixed by R's diagonal (trailing dimensions flattened), times ``gain``."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            flattened = flattened.t()
        q, r = linalg.qr(flattened)
        q = q * functions.diag(r, 0).sign()
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """A dense 2-d tensor of N(0, std) draws with ``ceil(sparsity * rows)`` zeros in each
    column, at rows drawn as torch draws them (one randperm per column)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            tensor[functions.randperm(rows)[:zeros], column] = 0
    return tensor


def _deprecated(method):
    """torch's old name for an initialiser (``uniform`` for ``uniform_``): it warns."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: ``nn.init.{new_name}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)

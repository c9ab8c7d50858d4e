"""``torch.nn.utils`` for agdebug: gradient clipping and parameter/vector conversion.

>>> import agdebug as ag
>>> w = ag.nn.Parameter(ag.ones(4))
>>> (w * 3).sum().backward()
>>> ag.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(6.)
>>> round(w.grad.norm().item(), 4)
1.0
"""

from __future__ import annotations

import types
import warnings

import numpy as np

from ... import creation, functions
from ...graph.grad_mode import no_grad
from ...ops.reduce import vector_norm
from ...ops.utility import typename
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


def _as_list(parameters) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _quiet():
    """NumPy's overflow and ``inf * 0`` warnings off: torch computes an inf or NaN norm, and
    scales by it, silently (the ops' own warning filter does not hold where a user's
    ``simplefilter("error")`` or pytest's ``-W error`` comes first)."""
    return np.errstate(over="ignore", invalid="ignore")


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The ``norm_type`` norm of all ``tensors`` together (the norm of their norms)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return creation.tensor(0.0)
    with no_grad(), _quiet():
        norms = [vector_norm(t, norm_type) for t in tensors]
        device = tensors[0].device
        total = vector_norm(functions.stack([n.to(device) for n in norms]), norm_type)
        if error_if_nonfinite and functions.logical_or(total.isnan(), total.isinf()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach=None) -> None:
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))`` in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad(), _quiet():
        coef = functions.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Rescale the gradients so their total ``norm_type`` norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor); ``norm_type`` may be ``inf``.
    Runs under ``no_grad``: nothing is recorded.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([3.0, -4.0]))
    >>> w.grad = ag.tensor([3.0, -4.0])
    >>> ag.nn.utils.clip_grad_norm_(w, 1.0, norm_type=float("inf"))
    tensor(4.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated spelling of :func:`clip_grad_norm_` (warns, as torch does)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient into ``[-clip_value, clip_value]`` in place (under ``no_grad``).

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.zeros(3))
    >>> w.grad = ag.tensor([-5.0, 0.5, 5.0])
    >>> ag.nn.utils.clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters) -> Tensor:
    """All ``parameters`` flattened and concatenated into one 1-d tensor.

    As in torch, this is recorded (``CatBackward0``): the vector is differentiable.

    >>> import agdebug as ag
    >>> net = ag.nn.Linear(2, 1)
    >>> ag.nn.utils.parameters_to_vector(net.parameters()).shape
    torch.Size([3])
    """
    device = None
    pieces = []
    for param in parameters:
        device = _check_param_device(param, device)
        pieces.append(param.view(-1))
    return functions.cat(pieces)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of ``vec`` into ``parameters`` (their ``.data``, unrecorded)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        num = param.numel()
        param.data = vec[pointer:pointer + num].view_as(param).data
        pointer += num


def _check_param_device(param: Tensor, old_device):
    """The first parameter's device index (-1 for CPU); refuse a parameter elsewhere."""
    index = param.device.index if param.device.type == "cuda" else -1
    if old_device is None:
        return index
    if index != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old_device


from . import rnn  # noqa: E402,F401 - torch.nn.utils.rnn, imported with the package as in torch
from . import parametrizations, parametrize  # noqa: E402,F401 - as torch.nn.utils imports them
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402

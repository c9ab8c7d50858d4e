"""Activation functions of ``torch.nn.functional``: ``relu``, ``gelu``, ``softmax``, ...

Argument handling (defaults, checks, torch's error texts) lives here; the maths is in
:mod:`agdebug.ops.nn.activations` and :mod:`agdebug.ops.nn`.

>>> import agdebug as ag
>>> ag.nn.functional.relu(ag.tensor([-1.0, 2.0], requires_grad=True)).grad_fn.name()
'ReluBackward0'
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import backend, creation
from ...ops.nn import activations as act
from ...ops.pointwise import activations as activations_ops
from ...ops.pointwise import unary as unary_ops
from ...ops.nn import softmax as ops
from ...ops.core.inplace import apply_inplace
from ...ops.tensor_methods.method_functions import FUNCTIONS as _METHOD_FUNCTIONS
from ...tensor import Tensor
from ._parser import torch_words

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid",
           "hardswish", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax",
           "logsigmoid", "mish", "prelu", "relu", "relu6", "relu_", "rrelu", "rrelu_", "selu",
           "selu_",
           "sigmoid", "silu", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
           "tanhshrink", "threshold", "threshold_"]


# ----------------------------------------------------------------------------- activations


def _activation(op, input, inplace: bool, **attrs):
    if inplace:
        return apply_inplace(op, input, (), attrs)
    return op(input, **attrs)


def relu(input, inplace=False):
    """max(x, 0); the gradient at exactly 0 is 0, as in torch (integers pass, bools do not)."""
    return _activation(activations_ops.relu, input, inplace)


relu_ = _METHOD_FUNCTIONS["relu_"]   # torch's F.relu_ is torch.relu_ (ReluBackward0 in place)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:   # torch's in-place node reads the result (LeakyReluBackward1)
        return leaky_relu_(input, negative_slope)
    return activations_ops.leaky_relu(input, negative_slope=negative_slope)


def gelu(input, approximate="none"):
    return activations_ops.gelu(input, approximate=approximate)


def elu(input, alpha=1.0, inplace=False):
    if inplace:   # torch's in-place node reads the result (EluBackward1)
        return elu_(input, alpha)
    return activations_ops.elu(input, alpha=alpha)


def silu(input, inplace=False):
    return _activation(activations_ops.silu, input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return activations_ops.softplus(input, beta=beta, threshold=threshold)


def sigmoid(input):
    return unary_ops.sigmoid(input)


def tanh(input):
    return unary_ops.tanh(input)


# ----------------------------------------------------------------------------- softmax

def _softmax_dim(ndim: int) -> int:
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed stably.

    >>> import agdebug as ag
    >>> ag.nn.functional.softmax(ag.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return ops.softmax(input, dim=dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along ``dim``, without forming softmax (stable for large logits)."""
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return ops.log_softmax(input, dim=dim)


# ============================================================================= more of torch's
# activations, losses and helpers (one block: the maths of single-node ones is in
# ops/activation.py and ops/loss.py; composites are built from the ops torch records)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val] (HardtanhBackward0, also in place).

    >>> import agdebug as ag
    >>> ag.nn.functional.hardtanh(ag.tensor([-3.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation(act.hardtanh, input, inplace, min_val=min_val, max_val=max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """min(max(0, x), 6): torch records it as hardtanh(0, 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input):
    """x / (1 + |x|), a composite (DivBackward0) as in torch."""
    return input / (input.abs() + 1)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with torch's fixed constants (EluBackward0; EluBackward1 in
    place)."""
    op = act.elu_inplace if inplace else act.elu_scaled
    return _activation(op, input, inplace, **act.selu_constants())


def selu_(input):
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


def elu_(input, alpha=1.0):
    """In-place elu: torch's node reads the result (EluBackward1)."""
    return apply_inplace(act.elu_inplace, input, (), {"alpha": alpha})


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (CeluBackward0; CeluBackward1 in
    place)."""
    op = act.celu_inplace if inplace else act.celu
    return _activation(op, input, inplace, alpha=alpha)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu: torch's node reads the result (LeakyReluBackward1)."""
    return apply_inplace(act.leaky_relu_inplace, input, (), {"negative_slope": negative_slope})


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow (LogSigmoidBackward0)."""
    return act.logsigmoid(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``: a NegBackward0 then a SoftmaxBackward0, as in torch."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning, stacklevel=2)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from ...ops.core.checks import dims_of
    axis = dims_of(dim, input.ndim)[0]
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size "
                           f"{input.shape[axis]}")
    return act.glu(input, dim=axis)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6 (HardswishBackward0)."""
    return _activation(act.hardswish, input, inplace)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 (HardsigmoidBackward0)."""
    return _activation(act.hardsigmoid, input, inplace)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (MishBackward0)."""
    return _activation(act.mish, input, inplace)


def threshold(input, threshold, value, inplace=False):
    """``input`` where it is greater than ``threshold``, else ``value``.

    >>> import agdebug as ag
    >>> ag.nn.functional.threshold(ag.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    op = act.threshold_inplace if inplace else act.threshold
    return _activation(op, input, inplace, threshold=threshold, value=value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold` (ThresholdBackward1)."""
    return apply_inplace(act.threshold_inplace, input, (),
                         {"threshold": threshold, "value": value})


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    return act.softshrink(input, lambd=lambd)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 elsewhere."""
    return act.hardshrink(input, lambd=lambd)


def tanhshrink(input):
    """x - tanh(x), a composite (SubBackward0) as in torch."""
    return input - input.tanh()


def prelu(input, weight):
    """x where x > 0, else weight * x; ``weight`` holds one slope or one per channel (dim 1).

    >>> import agdebug as ag
    >>> ag.nn.functional.prelu(ag.tensor([-2.0, 3.0]), ag.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    if input.dtype != weight.dtype:   # (torch checks this first)
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy} "
                           f"and {weight.dtype._legacy}")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.numel()} and channel size = {channels}.")
    return act.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """leaky_relu with a slope drawn from U(lower, upper) for each negative element in
    training (from agdebug's generator, so not torch's numbers), (lower + upper) / 2 else."""
    noise = _rrelu_noise(input, lower, upper) if training else None
    op = act.rrelu_with_noise_inplace if inplace else act.rrelu_with_noise
    return _activation(op, input, inplace, noise=noise, lower=lower, upper=upper,
                       training=bool(training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu` (RreluWithNoiseBackward1)."""
    return rrelu(input, lower, upper, training, inplace=True)


def _rrelu_noise(input, lower, upper):
    """torch's noise: a random slope where x <= 0, 1 elsewhere."""
    data = input._data
    act._floating(np, data, "leaky_relu")
    draw = creation.generator().uniform(tuple(input.shape), backend.dtype_name(data.dtype),
                                        lower, upper)
    draw = backend.move_array(draw, input.device)
    return Tensor._wrap(backend.xp_of(data).where(data <= 0, draw, 1).astype(data.dtype))


torch_words(globals(), __all__)

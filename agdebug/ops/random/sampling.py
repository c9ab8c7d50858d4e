"""torch's sampling functions: ``randperm``, ``randint_like``, ``normal`` and ``poisson``,
drawn from agdebug's generator (``agdebug.manual_seed``). The ops torch records
(``normal`` with tensor arguments, ``poisson``) have a zero derivative, as in torch's
``derivatives.yaml`` (no reparameterisation)."""

from __future__ import annotations

import numpy as np

from ... import backend, creation
from ...tensor import Tensor
from ..core.registry import defop
from . import fills
from ..pointwise.rounding_trig import zeros_like_vjp
from ..core.checks import kernel_missing
from ..core.gradients import needs, zeros_grad


# ----------------------------------------------------------------------------- sampling

def _rng(given=None):
    """torch's generator (agdebug/generator.py): the ``generator=`` given (or the one the
    running op draws from), else the default."""
    return creation.generator(given if given is not None else fills.chosen_generator())


def _placed_like(array: np.ndarray, like: Tensor):
    """A host array of samples moved to ``like``'s device."""
    return array if like.device.type == "cpu" else backend.move_array(array, like.device)


def randperm(n, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False, generator=None) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return creation.tensor(_rng(generator).randperm(int(n)), dtype=dtype or backend.int64,
                           device=device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 layout=None, memory_format=None) -> Tensor:
    """Random integers in ``[low, high)`` shaped like ``input``, of ``input``'s dtype."""
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    values = _rng().randint(int(low), int(high), tuple(input.shape))
    return creation.tensor(values, dtype=dtype or input.dtype, device=device or input.device,
                           requires_grad=requires_grad)


def _check_std(std) -> None:
    if hasattr(std, "min"):
        if std.size and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        return
    low = std
    if low < 0:
        shown = low if not float(low).is_integer() else int(low)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {shown}")


def _normal_forward(xp, mean, std):
    _check_std(std)
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    dt = next(a.dtype for a in (mean, std) if hasattr(a, "dtype"))
    noise = _rng().normal(shape, np.dtype(dt).name)   # torch: normal_(0, 1), * std, + mean
    if xp is not np:
        noise = xp.asarray(noise)
    return (noise * std + mean).astype(dt)


normal_tensor_float = defop("normal_tensor_float", node="NormalBackward1")(
    lambda xp, mean, std=1.0: _normal_forward(xp, mean, std))
normal_float_tensor = defop("normal_float_tensor", node="NormalBackward2")(
    lambda xp, std, mean=0.0: _normal_forward(xp, mean, std))
normal_tensor_tensor = defop("normal_tensor_tensor", node="NormalBackward3",
                             broadcasts=True)(_normal_forward)
normal_tensor_float.vjp(zeros_like_vjp)
normal_float_tensor.vjp(zeros_like_vjp)


@normal_tensor_tensor.vjp
def normal_tensor_tensor_vjp(ctx, grad):
    # torch: zeros_like of each input (both get a zero gradient, not the reparameterised one)
    zero = zeros_grad(grad, tuple(grad.shape))
    return (zero if needs(ctx, 0) else None), (zero if needs(ctx, 1) else None)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False, out=None) -> Tensor:
    """Samples of N(mean, std**2): ``mean`` and ``std`` numbers or tensors (broadcast),
    or numbers with a ``size``. The gradient is zero, as in torch.

    >>> import agdebug as ag
    >>> ag.normal(ag.zeros(2), 0.0)
    tensor([0., 0.])
    """
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    with fills.drawing_from(generator):
        if mean_t and std_t:
            return normal_tensor_tensor(mean, std)
        if mean_t:
            return normal_tensor_float(mean, std=float(std))
        if std_t:
            return normal_float_tensor(std, mean=float(mean))
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got "
                        "(float, float), but expected one of:")
    _check_std(float(std))
    dtype = dtype or backend.DEFAULT_FLOAT
    values = _rng(generator).normal(tuple(size), dtype.name, float(mean), float(std))
    return creation.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def _floating_kernel(name: str, x) -> None:
    if x.dtype.kind != "f":
        raise kernel_missing(name, x.dtype)


@defop("poisson", node="PoissonBackward0")
def poisson_op(xp, x):
    _floating_kernel("poisson_cpu", x)
    # torch's Poisson sampler is its own algorithm: these are NumPy's, drawn from a NumPy
    # generator seeded by torch's stream (repeatable under a seed, not torch's numbers)
    rates = backend.move_array(x, backend.CPU)
    return xp.asarray(_rng().numpy_generator().poisson(rates)).astype(x.dtype)


poisson_op.vjp(zeros_like_vjp)


def poisson(input, generator=None) -> Tensor:
    """Poisson samples with rates ``input``."""
    with fills.drawing_from(generator):
        return poisson_op(input)
